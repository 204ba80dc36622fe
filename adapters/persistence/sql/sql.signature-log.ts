import { prepareAuditEvent } from '../../../src/domain/audit-chain.js';
import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { FreezeFence } from '../../../src/ports/freeze-fence.js';
import type { AttachResult, SignatureLog, SignatureRecord } from '../../../src/ports/signature-log.port.js';
import { signatureHashIs, signatureValues, SIGNATURES } from './rows.js';
import type { SqlDatabase } from './sql-database.js';

const BY_HASH = `${signatureHashIs('$2')} AND vault_id = $1`;
const FIND = `SELECT ${SIGNATURES.columns} FROM signatures WHERE ${BY_HASH}`;
const ATTACH = `UPDATE signatures SET transaction_hash = $3, submitted = $4 WHERE ${BY_HASH} AND transaction_hash IS NULL`;

/**
 * Signature records, group-committed on the sign path with their signature.issued audit record (the
 * database's commitDurable): concurrent signs share one commit, each caller is answered only once its
 * record is durable, and a record that cannot be stored fails alone.
 */
export class SqlSignatureLog implements SignatureLog {
  constructor(private readonly db: SqlDatabase) {}

  record(entry: SignatureRecord, issued?: AuditEvent, fence?: FreezeFence | null): Promise<void> {
    try {
      // Checked now, so an event that cannot be stored fails alone rather than its whole batch.
      const event = issued && prepareAuditEvent(issued);
      return this.db.commitDurable({ signature: signatureValues(entry), event, fence });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async find(vaultId: string, submissionHash: string): Promise<SignatureRecord | null> {
    const [row] = await this.db.all<object>(FIND, [vaultId, submissionHash]);
    return row ? SIGNATURES.read(row, this.db.instant) : null;
  }

  async attachTransaction(vaultId: string, submissionHash: string, transactionHash: string, now: Date): Promise<AttachResult> {
    if ((await this.db.run(ATTACH, [vaultId, submissionHash, transactionHash, now])) === 1) return 'attached';
    // Once attached the hash never changes, so this later read answers for the state the update saw.
    const row = await this.find(vaultId, submissionHash);
    if (!row) return 'missing';
    return row.transactionHash === transactionHash ? 'unchanged' : 'conflict';
  }
}
