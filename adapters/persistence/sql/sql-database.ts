import { prepareAuditEvent, type PreparedAuditEvent } from '../../../src/domain/audit-chain.js';
import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { FreezeFence } from '../../../src/ports/freeze-fence.js';
import type { ApiKeyRecord } from '../../../src/domain/vault.js';
import type { AuditWatch } from '../../../src/ports/persistence.port.js';
import type { WalletPage } from '../../../src/ports/wallet-repository.port.js';
import type { InstantDecoder } from './rows.js';

/**
 * Statements of one connection (or transaction). SQL is written once, in PostgreSQL's spelling: `$1, $2`
 * placeholders (a number may repeat), `EXCLUDED`, standard upserts and RETURNING, which SQLite reads as
 * well. Parameters are JavaScript values; an instant is a Date, stored as the dialect stores instants.
 */
export interface SqlSession {
  /** The rows of one statement. */
  all<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs one statement; resolves with the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/** A write the sign path commits durably: a signature row, its audit event chained, or both. */
export interface DurableWrite {
  /** A row of `signatures` (signatureValues). */
  readonly signature?: readonly unknown[];
  /** Chained after the log's head, in the same transaction as the row. */
  readonly event?: PreparedAuditEvent;
  /**
   * A signing record's FreezeFence: the vault's freeze rows are counted in the write's own transaction
   * and, if more than the fence's, the write fails alone with VAULT_FROZEN, nothing of it stored.
   */
  readonly fence?: FreezeFence | null;
}

/**
 * The seam between the ports written once (sql.*.ts) and a database: one object per opened database.
 * What differs between databases is here and nowhere else: how an instant reads back, how the writes of
 * the sign path are committed (SQLite: one IMMEDIATE transaction per turn of the event loop; PostgreSQL:
 * batches one after another under the audit head lock), how a page of wallets is counted, and how API
 * key lookups are answered from memory. Since the database knows when a commit is durable, it is also the
 * one that tells the watchers of the audit records it committed (`watchAudit`).
 */
export interface SqlDatabase extends SqlSession {
  /** How the database returns an instant column. */
  readonly instant: InstantDecoder<unknown>;
  /** A JSON array text or value of `{ field: column }` objects over `from` (`FROM ... WHERE ...`). */
  jsonArray(fields: Record<string, string>, from: string): string;
  /** Runs `work` in one write transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlSession) => Promise<T>): Promise<T>;
  /**
   * `transaction`, one at a time among those of the same `name` on every instance: for a count that decides
   * whether to insert, which two transactions at once would both pass. PostgreSQL takes a transaction lock
   * on the name first (its READ COMMITTED lets two counts see the same rows); SQLite's write transactions
   * are one at a time already.
   */
  serialTransaction<T>(name: string, work: (tx: SqlSession) => Promise<T>): Promise<T>;
  /**
   * `transaction`, with the audit events `work` hands to `audit` chained at its end in the same
   * transaction (after the head, read while holding what keeps it from moving): the change and its audit
   * records are durable together or not at all. With `fence`, the vault's freezes are counted while
   * holding what keeps the head from moving (a freeze, audited, needs it too) and VAULT_FROZEN rolls all
   * back when one was added since.
   */
  auditedTransaction<T>(work: (tx: SqlSession, audit: (event: PreparedAuditEvent) => void) => Promise<T>, fence?: FreezeFence | null): Promise<T>;
  /**
   * Commits `write` durably with the other writes of the sign path (group commit); resolves once it is on
   * disk. A write that cannot be stored fails alone.
   */
  commitDurable(write: DurableWrite): Promise<void>;
  /** `run`, grouped with the sign path's commit where the database has one (a replay nonce). */
  runGrouped(sql: string, params: readonly unknown[]): Promise<number>;
  /** The visible wallets of a vault, a page and the total from one snapshot. */
  readonly walletPages: WalletPages;
  /** API key lookups answered from memory, kept exact the database's way (absent: always read). */
  readonly apiKeyCache?: ApiKeyCache;
  /**
   * Small reads of the sign path (a vault's freeze count) answered from memory while known unchanged
   * (SQLite's data version), or shared by the requests of one turn of the event loop and remembered a few
   * seconds for `remembered` readers, whose writes are fenced (PostgreSQL); absent: always read.
   */
  readonly guardedReads?: GuardedReads;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  /**
   * Persistence.watchAudit: each audit record that `commitDurable` or `auditedTransaction` appended is told
   * once its commit is durable, never before, and nothing of a write that failed or rolled back.
   */
  readonly watchAudit: AuditWatch;
}

export interface WalletPages {
  list(vaultId: string, now: Date, offset: number, limit: number): Promise<WalletPage>;
  count(vaultId: string, now: Date): Promise<number>;
}

/**
 * Reads kept in memory while the database knows their rows unchanged by any connection; a write made
 * through this connection to rows a read reads calls `forget` once committed.
 */
export interface GuardedReads {
  /** `remembered`: an older read may answer where the database keeps one (PostgreSQL), for a reader whose write is fenced. */
  read<T>(key: string, load: () => Promise<T>, remembered?: boolean): Promise<T>;
  forget(): void;
}

export interface ApiKeyCache {
  /** The record by id, from memory while it is known unchanged, else from `load`. */
  find(id: string, load: (id: string) => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null>;
  /** After an API key was written through this connection (a database that does not tell itself). */
  forget?(): void;
}

/**
 * Runs one statement and, when it changed a row, chains `event` in the same transaction
 * (auditedTransaction): the change and its audit record are durable together or not at all, and a
 * statement that changed nothing (already done) records nothing. The event is checked after the statement,
 * inside the transaction, so an event the audit log refuses rolls the change back. Without `event`, the
 * statement alone. Resolves with whether it changed a row.
 */
export async function runAudited(db: SqlDatabase, sql: string, params: readonly unknown[], event: AuditEvent | undefined): Promise<boolean> {
  if (!event) return (await db.run(sql, params)) > 0;
  return db.auditedTransaction(async (tx, audit) => {
    if ((await tx.run(sql, params)) === 0) return false;
    audit(prepareAuditEvent(event));
    return true;
  });
}

/** `open` once per database: its one seam, shared by every port built on it (one group commit, one key cache). */
export function seamPerDatabase<D extends object, S>(open: (db: D) => S): (db: D) => S {
  const seams = new WeakMap<D, S>();
  return (db) => {
    let seam = seams.get(db);
    if (!seam) seams.set(db, (seam = open(db)));
    return seam;
  };
}
