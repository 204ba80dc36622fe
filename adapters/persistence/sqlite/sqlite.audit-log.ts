import type { Statement } from 'better-sqlite3';
import { assertAuditEvent, extendChain } from '../../../src/domain/audit-chain.js';
import { ErrorCode, isDomainError } from '../../../src/domain/errors.js';
import type { AuditEvent, AuditLog, AuditRecord } from '../../../src/ports/audit-log.port.js';
import { GroupCommit, type Pending } from '../shared/group-commit.js';
import { AUDIT_COLUMNS as COLUMNS, fromMillis, toAuditRecord, type AuditRow } from '../shared/rows.js';
import { runSql as run, toDatabaseError, type SqliteDatabase } from './sqlite.database.js';

/**
 * The hash-chained audit trail. Appends are group-committed like SqliteSignatureLog's records (one
 * transaction, one fsync per turn of the event loop), because signature.issued is appended on the sign
 * path. Each batch reads the chain head and extends it inside one IMMEDIATE transaction, which holds the
 * database write lock from the read on: an operator command appending through its own connection waits
 * for it and chains after it, so the chain never forks and seq never skips.
 */
export class SqliteAuditLog implements AuditLog {
  private readonly batches = new GroupCommit<AuditEvent>((batch) => this.flush(batch));
  private readonly head: Statement;
  private readonly insert: Statement;
  private readonly listAll: Statement;
  private readonly listVault: Statement;

  constructor(private readonly db: SqliteDatabase) {
    this.head = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
    this.insert = db.prepare(
      `INSERT INTO audit_log (${COLUMNS}) VALUES (@seq, @at, @actor, @vaultId, @subject, @action, @details, @prevHash, @hash)`,
    );
    this.listAll = db.prepare(`SELECT ${COLUMNS} FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?`);
    this.listVault = db.prepare(`SELECT ${COLUMNS} FROM audit_log WHERE vault_id = ? AND seq > ? ORDER BY seq LIMIT ?`);
  }

  append(event: AuditEvent): Promise<void> {
    try {
      // Checked now, so an event that cannot be stored fails alone rather than its whole batch.
      assertAuditEvent(event);
    } catch (error) {
      return Promise.reject(error);
    }
    // A snapshot: what is hashed and stored is the event as it was when appended.
    const snapshot: AuditEvent = { ...event, at: new Date(event.at.getTime()), details: { ...event.details } };
    return this.batches.submit(snapshot);
  }

  private flush(batch: Pending<AuditEvent>[]): void {
    try {
      this.db.transaction(() => this.chain(batch.map((p) => p.item))).immediate();
      batch.forEach((p) => p.resolve());
    } catch (error) {
      const failure = toDatabaseError(error);
      // An unavailable database fails them all: retrying one by one would only wait out the busy timeout
      // once per record with the event loop blocked.
      if (isDomainError(failure) && failure.code === ErrorCode.DATABASE_UNAVAILABLE) {
        batch.forEach((p) => p.reject(failure));
        return;
      }
      // Anything else is one bad record: the others are chained without it.
      for (const p of batch) {
        try {
          this.db.transaction(() => this.chain([p.item])).immediate();
          p.resolve();
        } catch (single) {
          p.reject(toDatabaseError(single));
        }
      }
    }
  }

  /** Runs inside the IMMEDIATE transaction: the head cannot move between this read and the inserts. */
  private chain(events: readonly AuditEvent[]): void {
    const head = this.head.get() as { seq: number; hash: string } | undefined;
    for (const r of extendChain(head ?? null, events)) {
      this.insert.run({ ...r, at: r.at.getTime(), details: JSON.stringify(r.details) });
    }
  }

  list(query: { readonly afterSeq: number; readonly limit: number; readonly vaultId?: string }): Promise<AuditRecord[]> {
    return run(() => {
      const rows = (
        query.vaultId === undefined
          ? this.listAll.all(query.afterSeq, query.limit)
          : this.listVault.all(query.vaultId, query.afterSeq, query.limit)
      ) as AuditRow<number>[];
      return rows.map((r) => toAuditRecord(r, fromMillis));
    });
  }
}
