import type { Statement } from 'better-sqlite3';
import type { AttachResult, SignatureLog, SignatureRecord } from '../../../src/ports/signature-log.port.js';
import { GroupCommit, type Pending } from '../shared/group-commit.js';
import { fromMillis, SIGNATURE_COLUMNS as COLUMNS, toSignatureRecord, type SignatureRow } from '../shared/rows.js';
import { runSql as run, toDatabaseError, type SqliteDatabase } from './sqlite.database.js';

/**
 * Group commit: the signatures recorded during one turn of the event loop are written in one
 * transaction, so concurrent signs share one fsync instead of queueing behind one each. Each caller is
 * still answered only after its record is durable.
 */
export class SqliteSignatureLog implements SignatureLog {
  private readonly batches = new GroupCommit<SignatureRecord>((batch) => this.flush(batch));
  private readonly insert: Statement;
  private readonly select: Statement;
  private readonly attach: Statement;

  constructor(private readonly db: SqliteDatabase) {
    this.insert = db.prepare(
      `INSERT INTO signatures (${COLUMNS}) VALUES (@submissionHash, @vaultId, @walletId, @walletAddress, @chain, @contract, @sender, @selector, @created, @transactionHash, @submitted)`,
    );
    this.select = db.prepare(`SELECT ${COLUMNS} FROM signatures WHERE vault_id = ? AND submission_hash = ?`);
    this.attach = db.prepare(
      'UPDATE signatures SET transaction_hash = ?, submitted = ? WHERE vault_id = ? AND submission_hash = ? AND transaction_hash IS NULL',
    );
  }

  record(entry: SignatureRecord): Promise<void> {
    return this.batches.submit(entry);
  }

  private flush(batch: Pending<SignatureRecord>[]): void {
    try {
      this.db.transaction(() => batch.forEach((p) => this.insertOne(p.item)))();
      batch.forEach((p) => p.resolve());
    } catch {
      // One bad record must not fail its neighbours: retry them one by one.
      for (const p of batch) {
        try {
          this.insertOne(p.item);
          p.resolve();
        } catch (error) {
          p.reject(toDatabaseError(error));
        }
      }
    }
  }

  private insertOne(entry: SignatureRecord): void {
    this.insert.run({ ...entry, created: entry.created.getTime(), submitted: entry.submitted?.getTime() ?? null });
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
