import { assertAuditEvent, extendChain, snapshotEvent } from '../../../src/domain/audit-chain.js';
import { isDomainError } from '../../../src/domain/errors.js';
import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { AttachResult, SignatureLog, SignatureRecord } from '../../../src/ports/signature-log.port.js';
import { SerialGroupCommit, type Pending } from '../shared/group-commit.js';
import { asDate, SIGNATURE_COLUMNS as COLUMNS, toSignatureRecord, type SignatureRow } from '../shared/rows.js';
import { auditInsert, PostgresAuditLog } from './postgres.audit-log.js';
import { MAX_ROWS_PER_INSERT, rowPlaceholders, type PostgresDatabase } from './postgres.database.js';

const values = (e: SignatureRecord): unknown[] => [
  e.submissionHash,
  e.vaultId,
  e.walletId,
  e.walletAddress,
  e.chain,
  e.contract,
  e.sender,
  e.selector,
  e.created,
  e.transactionHash,
  e.submitted,
];

/** A signature to record and, when given, its signature.issued event. */
interface Issued {
  readonly entry: SignatureRecord;
  readonly issued: AuditEvent | undefined;
}

/**
 * Group commit, one batch in flight at a time: the signatures recorded while the previous batch was being
 * written go to the database together, with their signature.issued records, in one transaction under the
 * audit head lock (PostgresAuditLog.underHeadLock), in three round trips whatever the batch's size:
 * BEGIN + lock + head, one statement inserting the signatures and the chained audit records (a CTE), and
 * COMMIT. Each caller is answered only after that commit, and a bad record fails alone.
 */
export class PostgresSignatureLog implements SignatureLog {
  private readonly batches = new SerialGroupCommit<Issued>((batch) => this.write(batch), MAX_ROWS_PER_INSERT);

  constructor(
    private readonly db: PostgresDatabase,
    /** Chains the `issued` events; any instance on the same database chains the same way. */
    private readonly auditLog = new PostgresAuditLog(db),
  ) {}

  record(entry: SignatureRecord, issued?: AuditEvent): Promise<void> {
    try {
      // Checked now, so an event that cannot be stored fails alone rather than its whole batch.
      if (issued) assertAuditEvent(issued);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.batches.submit({ entry, issued: issued && snapshotEvent(issued) });
  }

  private async write(batch: Pending<Issued>[]): Promise<void> {
    const signatures = `INSERT INTO signatures (${COLUMNS}) VALUES ${rowPlaceholders(batch.length, 11)}`;
    const rows = batch.flatMap((p) => values(p.item.entry));
    const events = batch.flatMap((p) => (p.item.issued ? [p.item.issued] : []));
    try {
      if (events.length === 0) await this.db.query(signatures, rows);
      else
        await this.auditLog.underHeadLock(async (tx, head) => {
          const audit = auditInsert(extendChain(head, events), rows.length + 1);
          // Data-modifying CTEs always run to completion: one statement, both inserts.
          await tx.query(`WITH signed AS (${signatures}) ${audit.text}`, [...rows, ...audit.values]);
        });
      batch.forEach((p) => p.resolve());
    } catch (error) {
      // Unreachable database: every caller gets the same answer at once, without a retry storm.
      if (batch.length === 1 || isDomainError(error)) return batch.forEach((p) => p.reject(error));
      // Nothing of the batch was written (one statement or one transaction): retry each alone.
      for (const p of batch) await this.write([p]);
    }
  }

  async find(vaultId: string, submissionHash: string): Promise<SignatureRecord | null> {
    const { rows } = await this.db.query<SignatureRow<Date>>(`SELECT ${COLUMNS} FROM signatures WHERE vault_id = $1 AND submission_hash = $2`, [
      vaultId,
      submissionHash,
    ]);
    return rows[0] ? toSignatureRecord(rows[0], asDate) : null;
  }

  async attachTransaction(vaultId: string, submissionHash: string, transactionHash: string, now: Date): Promise<AttachResult> {
    const attached = await this.db.query(
      'UPDATE signatures SET transaction_hash = $3, submitted = $4 WHERE vault_id = $1 AND submission_hash = $2 AND transaction_hash IS NULL',
      [vaultId, submissionHash, transactionHash, now],
    );
    if (attached.rowCount === 1) return 'attached';
    // Once attached the hash never changes, so this later read answers for the state the update saw.
    const row = await this.find(vaultId, submissionHash);
    if (!row) return 'missing';
    return row.transactionHash === transactionHash ? 'unchanged' : 'conflict';
  }
}
