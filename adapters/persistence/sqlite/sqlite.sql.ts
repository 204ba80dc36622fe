import type { Statement } from 'better-sqlite3';
import { chainedAfter, type ChainHead, type PreparedAuditEvent } from '../../../src/domain/audit-chain.js';
import { fenceBroken, vaultFrozen, type FreezeFence } from '../../../src/ports/freeze-fence.js';
import { AuditListeners } from '../sql/audit-watch.js';
import { FREEZE_COUNT, freezeCountOf, holdFence } from '../sql/freeze-counts.js';
import { AUDIT, fromMillis, signatureHashIs, SIGNATURES, type InstantDecoder } from '../sql/rows.js';
import { seamPerDatabase, type DurableWrite, type SqlDatabase, type SqlSession } from '../sql/sql-database.js';
import { noteLocalCommit } from '../sql/local-commits.js';
import { SqliteGuardedReads } from './sqlite.guarded-reads.js';
import { commitQueueOf, type SqliteCommitQueue, type TransactionScope } from './sqlite.commit-queue.js';
import { runSql, type SqliteDatabase } from './sqlite.database.js';
import { SqliteWalletPages } from './sqlite.wallet-pages.js';

/** A statement prepared once per SQL text, and where each `?` takes its value from among `$1, $2, ...`. */
interface Prepared {
  readonly statement: Statement;
  readonly order: readonly number[];
}

const NONE: readonly unknown[] = [];
// The transaction's chain head is one per connection, whichever log appends.
const CHAIN_HEAD = {};
/** The freeze rows counted by fences in one transaction, by vault. */
const FENCE_COUNTS = {};
/**
 * Whether a signature record with this submission hash exists (the hash bound twice). The index on the
 * hash's first 8 hex digits (migration 10), unlike the primary key it replaced, does not keep the hash
 * unique: the sign's insert does, asking this first under the transaction's write lock (it reads the leaf
 * the insert then writes). Two statements cost less than one INSERT ... SELECT ... WHERE NOT EXISTS.
 */
const SIGNATURE_EXISTS = `SELECT 1 FROM signatures WHERE ${signatureHashIs('?')}`;

/**
 * The SQL seam on one better-sqlite3 connection. Statements run synchronously and are answered with
 * settled promises. `$n` placeholders become `?` (better-sqlite3 binds `?NNN` by name only), instants are
 * stored as milliseconds. The sign path's writes (signatures, audit appends, nonces) go through the
 * connection's commit queue: one IMMEDIATE transaction per turn of the event loop, one fsync, off the
 * event loop (SqliteCommitQueue). The audit records a write appended are told to `watchAudit` after it is
 * durable: the queue's answer (after its WAL sync), or a transaction's COMMIT (synchronous=FULL).
 */
export class SqliteSql implements SqlDatabase {
  readonly instant = fromMillis as InstantDecoder<unknown>;
  readonly walletPages: SqliteWalletPages;
  /** One cache for both: a write of either empties it, and each read takes the data version once. */
  readonly guardedReads: SqliteGuardedReads;
  readonly apiKeyCache: SqliteGuardedReads;
  private readonly audits = new AuditListeners();
  readonly watchAudit = this.audits.watch;
  private readonly statements = new Map<string, Prepared>();
  private readonly commits: SqliteCommitQueue;
  private readonly insertSignature: Prepared;
  private readonly signatureExists: Statement;
  private readonly head: Statement;
  private readonly insertAudit: Statement;
  /**
   * Set while `transaction()` runs: its statements are separated by awaits, and a statement of another
   * request run in between would join (and share the fate of) its transaction, so others wait for it.
   */
  private held: Promise<void> | undefined;
  /** The statements of the transaction that holds the connection. */
  private readonly inside: SqlSession = {
    all: <R>(sql: string, params = NONE) => runSql(() => this.allNow<R>(sql, params)),
    run: (sql, params = NONE) => runSql(() => this.runNow(sql, params)),
  };

  constructor(readonly db: SqliteDatabase) {
    this.commits = commitQueueOf(db);
    this.guardedReads = new SqliteGuardedReads(db);
    this.apiKeyCache = this.guardedReads;
    this.walletPages = new SqliteWalletPages(this);
    this.insertSignature = this.prepared(SIGNATURES.insert);
    this.signatureExists = db.prepare(SIGNATURE_EXISTS).pluck();
    this.head = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
    // Positional: binding a row by name costs a lookup per column, on every sign.
    this.insertAudit = db.prepare(`INSERT INTO audit_log (${AUDIT.columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  }

  jsonArray(fields: Record<string, string>, from: string): string {
    const object = Object.entries(fields).map(([name, column]) => `'${name}', ${column}`);
    return `(SELECT json_group_array(json_object(${object.join(', ')})) ${from})`;
  }

  all<R>(sql: string, params = NONE): Promise<R[]> {
    return this.sync(() => this.allNow<R>(sql, params));
  }

  run(sql: string, params = NONE): Promise<number> {
    return this.sync(() => {
      this.commits.assertWritable();
      const changed = this.runNow(sql, params);
      noteLocalCommit();
      return changed;
    });
  }

  /** Runs `work` (synchronous statements) once no transaction holds the connection; errors as the seam's. */
  sync<T>(work: () => T): Promise<T> {
    return this.held ? this.held.then(() => this.sync(work)) : runSql(work);
  }

  /** Write transactions are one at a time here already (one IMMEDIATE transaction at once, across processes too). */
  serialTransaction<T>(_name: string, work: (tx: SqlSession) => Promise<T>): Promise<T> {
    return this.transaction(work);
  }

  async transaction<T>(work: (tx: SqlSession) => Promise<T>): Promise<T> {
    while (this.held) await this.held;
    let release!: () => void;
    this.held = new Promise((resolve) => (release = resolve));
    try {
      await runSql(() => (this.commits.assertWritable(), this.db.exec('BEGIN IMMEDIATE')));
      const value = await work(this.inside);
      await runSql(() => this.db.exec('COMMIT'));
      noteLocalCommit();
      return value;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    } finally {
      this.held = undefined;
      release();
    }
  }

  /** With `fence`, its count is read inside the IMMEDIATE transaction, which holds the write lock a freeze needs too. */
  async auditedTransaction<T>(work: (tx: SqlSession, audit: (event: PreparedAuditEvent) => void) => Promise<T>, fence?: FreezeFence | null): Promise<T> {
    const events: PreparedAuditEvent[] = [];
    const value = await this.transaction(async (tx) => {
      await holdFence(tx, fence);
      const value = await work(tx, (event) => events.push(event));
      if (events.length > 0) {
        // BEGIN IMMEDIATE holds the write lock: the head cannot move until the commit.
        let head = this.readHead();
        for (const e of events) head = this.append(head, e);
      }
      return value;
    });
    // COMMIT has returned, with synchronous=FULL: on disk. A rollback threw past this line.
    this.audits.afterCommit(events);
    return value;
  }

  // The commit queue flushes on a later turn of the event loop, never while `held`: a transaction's
  // statements are settled promises, so it runs to its end within the turn that started it (and should
  // its work await more, the queue holds its batches until it has ended).
  commitDurable(write: DurableWrite): Promise<void> {
    const row = write.signature && this.bind(this.insertSignature, write.signature);
    const durable = this.commits.enqueue((transaction) => {
      if (write.fence) this.holdFenceInBatch(write.fence, transaction);
      if (row) {
        // signatureValues' first column is the submission hash.
        if (this.signatureExists.get(row[0], row[0]) !== undefined) throw new Error('a signature with this submission hash is already recorded');
        this.insertSignature.statement.run(row);
      }
      if (write.event) this.chain(write.event, transaction);
    });
    // The queue answers once the commit's WAL sync returned: only then is `event` told.
    return this.audits.afterDurable(durable, write.event);
  }

  async runGrouped(sql: string, params: readonly unknown[]): Promise<number> {
    const prepared = this.prepared(sql);
    const values = this.bind(prepared, params);
    let changed = 0;
    // Set inside the transaction: a batch retried write by write runs this again and overwrites it.
    await this.commits.enqueue(() => (changed = prepared.statement.run(values).changes));
    return changed;
  }

  /** Fails once a WAL sync has failed (the connection takes no more writes), so readiness reports it. */
  async ping(): Promise<void> {
    await this.sync(() => this.commits.assertWritable());
    await this.all('SELECT 1');
  }

  /**
   * Chains `e` inside the commit queue's IMMEDIATE transaction, which holds the write lock from its first
   * statement: the head cannot move between its read and the insert, whichever connection (an operator
   * command's) appends. The head is read once per transaction (the scope is fresh for each, also after a
   * rollback); later appends in it chain on the record the previous one inserted.
   */
  private chain(e: PreparedAuditEvent, transaction: TransactionScope): void {
    transaction.set(CHAIN_HEAD, this.append(transaction.get(CHAIN_HEAD, this.readHead), e));
  }

  /**
   * Throws VAULT_FROZEN, refusing this write alone, when the fence's vault has more freeze rows than the
   * fence: counted once per vault per transaction (nothing else writes while it holds the write lock).
   */
  private holdFenceInBatch(fence: FreezeFence, transaction: TransactionScope): void {
    const counts = transaction.get(FENCE_COUNTS, () => new Map<string, number>());
    let frozen = counts.get(fence.vaultId);
    if (frozen === undefined) {
      frozen = freezeCountOf(this.allNow<{ frozen: number; lifted: number }>(FREEZE_COUNT, [fence.vaultId])[0]).frozen;
      counts.set(fence.vaultId, frozen);
    }
    if (fenceBroken(fence, frozen)) throw vaultFrozen(fence.vaultId);
  }

  private readonly readHead = (): ChainHead | null => (this.head.get() as ChainHead | undefined) ?? null;

  /** Inserts `e` chained after `head`; returns the new head. */
  private append(head: ChainHead | null, e: PreparedAuditEvent): ChainHead {
    const r = chainedAfter(head, e);
    // The details are stored as hashed: canonical JSON (keys sorted).
    this.insertAudit.run(r.seq, r.atMillis, r.actor, r.vaultId, r.subject, r.action, r.detailsJson, r.prevHash, r.hash);
    return r;
  }

  private allNow<R>(sql: string, params: readonly unknown[]): R[] {
    const prepared = this.prepared(sql);
    return prepared.statement.all(this.bind(prepared, params)) as R[];
  }

  private runNow(sql: string, params: readonly unknown[]): number {
    const prepared = this.prepared(sql);
    return prepared.statement.run(this.bind(prepared, params)).changes;
  }

  private prepared(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      const order: number[] = [];
      const text = sql.replace(/\$(\d+)/g, (_, n: string) => (order.push(Number(n) - 1), '?'));
      prepared = { statement: this.db.prepare(text), order };
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /** The values in the order of the statement's `?`s; an instant as milliseconds, undefined as NULL. */
  private bind({ order }: Prepared, params: readonly unknown[]): unknown[] {
    const values = new Array<unknown>(order.length);
    for (let i = 0; i < order.length; i++) {
      const value = params[order[i]!];
      values[i] = value instanceof Date ? value.getTime() : (value ?? null);
    }
    return values;
  }
}

/** The connection's one SQL seam (one commit queue, one key cache). */
export const sqliteSql: (db: SqliteDatabase) => SqliteSql = seamPerDatabase((db) => new SqliteSql(db));
