import type { Statement } from 'better-sqlite3';
import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { AttachResult, SignatureLog, SignatureRecord } from '../../../src/ports/signature-log.port.js';
import { fromMillis, SIGNATURE_COLUMNS as COLUMNS, toSignatureRecord, type SignatureRow } from '../shared/rows.js';
import { SqliteAuditLog } from './sqlite.audit-log.js';
import { commitQueueOf, type QueuedWrite, type SqliteCommitQueue } from './sqlite.commit-queue.js';
import { runSql as run, type SqliteDatabase } from './sqlite.database.js';

/**
 * Group commit: the signatures recorded during one turn of the event loop are written in one
 * transaction (the connection's commit queue, shared with the audit log), so concurrent signs share one
 * fsync instead of queueing behind one each. Each caller is still answered only after its record is
 * durable, and a record that cannot be stored fails alone. A signature's signature.issued audit record
 * is chained in the same write, so both are in one transaction.
 */
export class SqliteSignatureLog implements SignatureLog {
  private readonly commits: SqliteCommitQueue;
  private readonly insert: Statement;
  private readonly select: Statement;
  private readonly attach: Statement;

  constructor(
    private readonly db: SqliteDatabase,
    /** The audit log of the same connection, which chains `issued` events. */
    private readonly auditLog = new SqliteAuditLog(db),
  ) {
    this.commits = commitQueueOf(db);
    this.insert = db.prepare(
      // Positional: binding a row by name costs a lookup per column, on every sign.
      `INSERT INTO signatures (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.select = db.prepare(`SELECT ${COLUMNS} FROM signatures WHERE vault_id = ? AND submission_hash = ?`);
    this.attach = db.prepare(
      'UPDATE signatures SET transaction_hash = ?, submitted = ? WHERE vault_id = ? AND submission_hash = ? AND transaction_hash IS NULL',
    );
  }

  record(entry: SignatureRecord, issued?: AuditEvent): Promise<void> {
    const e = entry;
    const row = [e.submissionHash, e.vaultId, e.walletId, e.walletAddress, e.chain, e.contract, e.sender, e.selector, e.created.getTime(), e.transactionHash, e.submitted?.getTime() ?? null];
    let chain: QueuedWrite | undefined;
    try {
      chain = issued && this.auditLog.writeOf(issued);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.commits.enqueue((transaction) => {
      this.insert.run(...row);
      chain?.(transaction);
    });
  }

  find(vaultId: string, submissionHash: string): Promise<SignatureRecord | null> {
    return run(() => {
      const row = this.select.get(vaultId, submissionHash) as SignatureRow<number> | undefined;
      return row ? toSignatureRecord(row, fromMillis) : null;
    });
  }

  attachTransaction(vaultId: string, submissionHash: string, transactionHash: string, now: Date): Promise<AttachResult> {
    return run(() =>
      this.db.transaction((): AttachResult => {
        if (this.attach.run(transactionHash, now.getTime(), vaultId, submissionHash).changes === 1) return 'attached';
        const row = this.select.get(vaultId, submissionHash) as SignatureRow<number> | undefined;
        if (!row) return 'missing';
        return row.transaction_hash === transactionHash ? 'unchanged' : 'conflict';
      }).immediate(),
    );
  }
}
