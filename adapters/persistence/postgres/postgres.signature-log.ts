import { appendChained, prepareAuditEvent, type PreparedAuditEvent } from '../../../src/domain/audit-chain.js';
import { isDomainError } from '../../../src/domain/errors.js';
import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { AttachResult, SignatureLog, SignatureRecord } from '../../../src/ports/signature-log.port.js';
import { SerialGroupCommit, writeBatchOrEachAlone, type Pending } from '../shared/group-commit.js';
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
  readonly issued: PreparedAuditEvent | undefined;
}

/**
 * Group commit, one batch in flight at a time: the signatures recorded while the previous batch was being
 * written go to the database together, with their signature.issued records, in one transaction under the
 * audit head lock (PostgresAuditLog.underHeadLock), in three round trips whatever the batch's size:
 * BEGIN + lock + head, one statement inserting the signatures and the chained audit records (a CTE), and
 * COMMIT. Each caller is answered only after that commit, and a bad record fails alone.
 */
export class PostgresSignatureLog implements SignatureLog {
  // An unreachable database (a DomainError) fails every caller at once, without a retry storm.
  private readonly batches = new SerialGroupCommit<Issued>((batch) => writeBatchOrEachAlone(batch, this.insertSigned, isDomainError), MAX_ROWS_PER_INSERT);

  constructor(
    private readonly db: PostgresDatabase,
    /** Chains the `issued` events; any instance on the same database chains the same way. */
    private readonly auditLog = new PostgresAuditLog(db),
  ) {}

  record(entry: SignatureRecord, issued?: AuditEvent): Promise<void> {
    let prepared: PreparedAuditEvent | undefined;
    try {
      // Checked now, so an event that cannot be stored fails alone rather than its whole batch.
      prepared = issued && prepareAuditEvent(issued);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.batches.submit({ entry, issued: prepared });
  }

  /** Inserts `items`' signatures and chained events in one statement (one transaction), then answers them. */
  private readonly insertSigned = async (items: Pending<Issued>[]): Promise<void> => {
    const signatures = `INSERT INTO signatures (${COLUMNS}) VALUES ${rowPlaceholders(items.length, 11)}`;
    const rows = items.flatMap((p) => values(p.item.entry));
    const events = items.flatMap((p) => (p.item.issued ? [p.item.issued] : []));
    if (events.length === 0) await this.db.query(signatures, rows);
    else
      await this.auditLog.underHeadLock(async (tx, head) => {
        const audit = auditInsert(appendChained(head, events), rows.length + 1);
        // Data-modifying CTEs always run to completion: one statement, both inserts.
        await tx.query(`WITH signed AS (${signatures}) ${audit.text}`, [...rows, ...audit.values]);
      });
    items.forEach((p) => p.resolve());
  };

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
