import { assertAuditEvent, extendChain, snapshotEvent } from '../../../src/domain/audit-chain.js';
import { isDomainError } from '../../../src/domain/errors.js';
import type { AuditEvent, AuditLog, AuditRecord } from '../../../src/ports/audit-log.port.js';
import { GroupCommit, type Pending } from '../shared/group-commit.js';
import { asDate, AUDIT_COLUMNS, toAuditRecord, type AuditRow } from '../shared/rows.js';
import { MAX_ROWS_PER_INSERT, rowPlaceholders, type PostgresDatabase, type Queryable } from './postgres.database.js';

// Any constant unique to this use; advisory locks of other purposes use other keys.
const AUDIT_HEAD_LOCK = 0x61756469746c6fn; // "auditlo"

/**
 * One hash chain for every instance on the database. Appends are group-committed per turn of the event
 * loop, as the SQLite log's are (signature.issued is on the sign path). Each batch takes a transaction
 * advisory lock, reads the head, and inserts the batch chained after it, all in one transaction: an
 * append on another instance waits for the lock and chains after this one, so the chain never forks and
 * seq never skips. The lock is released by commit or rollback, also when the connection dies.
 */
export class PostgresAuditLog implements AuditLog {
  private readonly batches = new GroupCommit<AuditEvent>((batch) => {
    for (let i = 0; i < batch.length; i += MAX_ROWS_PER_INSERT) void this.write(batch.slice(i, i + MAX_ROWS_PER_INSERT));
  });

  constructor(private readonly db: PostgresDatabase) {}

  append(event: AuditEvent): Promise<void> {
    try {
      // Checked now, so an event that cannot be stored fails alone rather than its whole batch.
      assertAuditEvent(event);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.batches.submit(snapshotEvent(event));
  }

  /**
   * Chains `events` (already checked and snapshotted) after the head inside the caller's transaction:
   * takes the head lock (held until that transaction ends), reads the head, inserts. PostgresSignatureLog
   * calls it to store signature.issued records in the transaction of their signatures.
   */
  async chainIn(tx: Queryable, events: readonly AuditEvent[]): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_HEAD_LOCK.toString()]);
    const { rows } = await tx.query<{ seq: string; hash: string }>('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
    const head = rows[0] ? { seq: Number(rows[0].seq), hash: rows[0].hash } : null;
    const records = extendChain(head, events);
    await tx.query(
      `INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES ${rowPlaceholders(records.length, 9)}`,
      records.flatMap((r) => [r.seq, r.at, r.actor, r.vaultId, r.subject, r.action, JSON.stringify(r.details), r.prevHash, r.hash]),
    );
  }

  private async write(batch: Pending<AuditEvent>[]): Promise<void> {
    try {
      await this.db.transaction((tx) => this.chainIn(tx, batch.map((p) => p.item)));
      batch.forEach((p) => p.resolve());
    } catch (error) {
      // Unreachable database: every caller gets the same answer at once, without a retry storm.
      if (batch.length === 1 || isDomainError(error)) return batch.forEach((p) => p.reject(error));
      // Nothing of the batch was written (one transaction): chain each alone, in order.
      for (const p of batch) await this.write([p]);
    }
  }

  async list(query: { readonly afterSeq: number; readonly limit: number; readonly vaultId?: string }): Promise<AuditRecord[]> {
    const { rows } =
      query.vaultId === undefined
        ? await this.db.query<AuditRow<Date>>(`SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2`, [
            query.afterSeq,
            query.limit,
          ])
        : await this.db.query<AuditRow<Date>>(
            `SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE vault_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
            [query.vaultId, query.afterSeq, query.limit],
          );
    return rows.map((r) => toAuditRecord(r, asDate));
  }
}
