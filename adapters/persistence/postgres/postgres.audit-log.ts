import { appendChained, prepareAuditEvent, type ChainedEvent, type ChainHead, type PreparedAuditEvent } from '../../../src/domain/audit-chain.js';
import { isDomainError } from '../../../src/domain/errors.js';
import type { AuditEvent, AuditLog, AuditRecord } from '../../../src/ports/audit-log.port.js';
import type { QueryResult } from 'pg';
import { SerialGroupCommit, writeBatchOrEachAlone, type Pending } from '../shared/group-commit.js';
import { asDate, AUDIT_COLUMNS, toAuditRecord, type AuditRow } from '../shared/rows.js';
import { MAX_ROWS_PER_INSERT, rowPlaceholders, type PostgresDatabase, type Queryable } from './postgres.database.js';

// Any constant unique to this use; advisory locks of other purposes use other keys.
const AUDIT_HEAD_LOCK = 0x61756469746c6fn; // "auditlo"

/**
 * One hash chain for every instance on the database. Appends are group-committed, one batch in flight at
 * a time (signature.issued is on the sign path). Each batch takes a transaction advisory lock, reads the
 * head, and inserts the batch chained after it, all in one transaction: an append on another instance
 * waits for the lock and chains after this one, so the chain never forks and seq never skips. The lock
 * is released by commit or rollback, also when the connection dies.
 */
export class PostgresAuditLog implements AuditLog {
  // An unreachable database (a DomainError) fails every caller at once, without a retry storm.
  private readonly batches = new SerialGroupCommit<PreparedAuditEvent>((batch) => writeBatchOrEachAlone(batch, this.insertChained, isDomainError), MAX_ROWS_PER_INSERT);

  constructor(private readonly db: PostgresDatabase) {}

  append(event: AuditEvent): Promise<void> {
    let prepared: PreparedAuditEvent;
    try {
      // Checked now, so an event that cannot be stored fails alone rather than its whole batch.
      prepared = prepareAuditEvent(event);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.batches.submit(prepared);
  }

  /**
   * Runs `work` in a transaction that holds the audit head lock, with the head it read under the lock;
   * commits when `work` resolves. `work` inserts the records `appendChained(head, ...)` gives, with the
   * rows that must commit with them (PostgresSignatureLog's signatures). Round trips: one for BEGIN, the
   * lock and the head together (a simple query of three statements; the transaction stays open after
   * it), those of `work`, and COMMIT: the lock is held for `work` and the commit only.
   */
  async underHeadLock(work: (tx: Queryable, head: ChainHead | null) => Promise<void>): Promise<void> {
    await this.db.withClient(async (client) => {
      try {
        const results = (await client.query(
          `BEGIN; SELECT pg_advisory_xact_lock(${AUDIT_HEAD_LOCK}); SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1`,
        )) as unknown as QueryResult<{ seq: string; hash: string }>[];
        const row = results[2]!.rows[0];
        await work(client, row ? { seq: Number(row.seq), hash: row.hash } : null);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** Chains and inserts `items` in one transaction under the head lock, then answers them. */
  private readonly insertChained = async (items: Pending<PreparedAuditEvent>[]): Promise<void> => {
    await this.underHeadLock(async (tx, head) => {
      const insert = auditInsert(appendChained(head, items.map((p) => p.item)));
      await tx.query(insert.text, insert.values);
    });
    items.forEach((p) => p.resolve());
  };

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

/**
 * The multi-row INSERT of chained records; `firstParam` is the number of the first placeholder, so the
 * statement can follow other rows' parameters in one query (PostgresSignatureLog's CTE).
 */
export function auditInsert(records: readonly ChainedEvent[], firstParam = 1): { text: string; values: unknown[] } {
  return {
    text: `INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES ${rowPlaceholders(records.length, 9, firstParam)}`,
    // The instant as hashed (ISO 8601, UTC, milliseconds); the details as hashed (jsonb keeps its own key order).
    values: records.flatMap((r) => [r.seq, r.atIso, r.actor, r.vaultId, r.subject, r.action, r.detailsJson, r.prevHash, r.hash]),
  };
}
