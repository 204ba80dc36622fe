import { isDomainError } from '../../../src/domain/errors.js';
import type { AttachResult, SignatureLog, SignatureRecord } from '../../../src/ports/signature-log.port.js';
import { GroupCommit, type Pending } from '../shared/group-commit.js';
import { asDate, SIGNATURE_COLUMNS as COLUMNS, toSignatureRecord, type SignatureRow } from '../shared/rows.js';
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

/**
 * Group commit, as the SQLite log does: the signatures recorded during one turn of the event loop go to
 * the database in one multi-row INSERT (one round trip, one commit) instead of one each. Each caller is
 * still answered only after its own record is committed, and a bad record fails alone.
 */
export class PostgresSignatureLog implements SignatureLog {
  private readonly batches = new GroupCommit<SignatureRecord>((batch) => this.flush(batch));

  constructor(private readonly db: PostgresDatabase) {}

  record(entry: SignatureRecord): Promise<void> {
    return this.batches.submit(entry);
  }

  private flush(all: Pending<SignatureRecord>[]): void {
    for (let i = 0; i < all.length; i += MAX_ROWS_PER_INSERT) void this.write(all.slice(i, i + MAX_ROWS_PER_INSERT));
  }

  private async write(batch: Pending<SignatureRecord>[]): Promise<void> {
    try {
      await this.db.query(`INSERT INTO signatures (${COLUMNS}) VALUES ${rowPlaceholders(batch.length, 11)}`, batch.flatMap((p) => values(p.item)));
      batch.forEach((p) => p.resolve());
    } catch (error) {
      // Unreachable database: every caller gets the same answer at once, without a retry storm.
      if (batch.length === 1 || isDomainError(error)) return batch.forEach((p) => p.reject(error));
      // A statement is atomic, so nothing of the batch was written: retry each alone.
      await Promise.all(batch.map((p) => this.write([p])));
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
