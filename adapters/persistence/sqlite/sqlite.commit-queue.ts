import { fdatasync, openSync } from 'node:fs';
import type { Statement, Transaction } from 'better-sqlite3';
import { DomainError, ErrorCode, isDomainError } from '../../../src/domain/errors.js';
import { GroupCommit, type Pending } from '../shared/group-commit.js';
import { toDatabaseError, type SqliteDatabase } from './sqlite.database.js';

/**
 * What the writes of one transaction share: a fresh scope for every transaction (also for each of the
 * one-by-one retries after a failed batch), so nothing memoized outlives a rollback or misses a write
 * another connection made between two transactions.
 */
export class TransactionScope {
  private readonly values = new Map<object, unknown>();

  /** The value `key` holds in this transaction; `first` computes it on first use. */
  get<V>(key: object, first: () => V): V {
    if (!this.values.has(key)) this.values.set(key, first());
    return this.values.get(key) as V;
  }

  set(key: object, value: unknown): void {
    this.values.set(key, value);
  }
}

/** A write that runs inside a batch's transaction and throws to refuse itself. */
export type QueuedWrite = (transaction: TransactionScope) => void;

/**
 * Group commit for one SQLite connection. The writes every adapter on the connection enqueues during
 * one turn of the event loop (a sign's signature record, audit records) are committed in one IMMEDIATE
 * transaction, so they share one fsync; each caller is answered only after the commit is durable. One
 * queue per connection: two queues on the same connection would mean two transactions and two fsyncs
 * per turn.
 *
 * The fsync runs off the event loop. A queue's transaction commits with synchronous=NORMAL (in WAL mode:
 * the commit writes its frames to the WAL and returns without syncing), then one fdatasync of the WAL
 * file on libuv's thread pool covers it, and only then are its callers answered: what FULL guarantees
 * (nothing acknowledged that a power loss could take back), without the event loop waiting for the disk.
 * While a sync runs, the batches of the following turns are held and committed together, with one sync
 * of their own, when it returns. Committed at once, they spent far more event-loop time inside the
 * transaction than its CPU (their WAL write waiting behind the sync of the same file, see
 * docs/benchmarks.md); held, they grow into one larger batch while the loop keeps serving.
 * A checkpoint that moves frames into the database file syncs both files itself (NORMAL still does), so
 * a frame is on disk either in the WAL our sync covered or in the database file. Every other write on
 * the connection keeps synchronous=FULL.
 */
export class SqliteCommitQueue {
  private readonly batches = new GroupCommit<QueuedWrite>((batch) => this.flush(batch));
  private readonly normal: Statement;
  private readonly full: Statement;
  /** False for a database not in WAL mode (in memory): its commits stay synchronous=FULL. */
  private readonly walMode: boolean;
  /** The WAL file, opened after the first commit (which creates it when missing); kept for the connection's life. */
  private wal: number | undefined;
  /** Built once: better-sqlite3 builds several wrapper functions for every `db.transaction` call. */
  private readonly transaction: Transaction<(writes: Pending<QueuedWrite>[]) => void>;
  /** WAL syncs started and not yet returned. */
  private syncing = 0;
  /** Batches that arrived while a sync was running: committed together when it returns. */
  private held: Pending<QueuedWrite>[] = [];

  constructor(private readonly db: SqliteDatabase) {
    this.transaction = db.transaction((writes: Pending<QueuedWrite>[]) => this.run(writes));
    this.normal = db.prepare('PRAGMA synchronous = NORMAL');
    this.full = db.prepare('PRAGMA synchronous = FULL');
    this.walMode = !db.memory && db.pragma('journal_mode', { simple: true }) === 'wal';
  }

  /** Resolves once `write` is committed and on disk. */
  enqueue(write: QueuedWrite): Promise<void> {
    return this.batches.submit(write);
  }

  /** Commits `writes` with the WAL written but not yet synced (see the class comment). */
  private commit(writes: Pending<QueuedWrite>[]): void {
    if (!this.walMode) {
      this.transaction.immediate(writes);
      return;
    }
    this.normal.run();
    try {
      // IMMEDIATE: the write lock is held from the first statement on, so a write that reads before it
      // writes (the audit chain's head) sees what it extends.
      this.transaction.immediate(writes);
    } finally {
      this.full.run();
    }
  }

  /** Answers `writes` once an fdatasync of the WAL, started after their commit, has returned. */
  private answerWhenSynced(writes: Pending<QueuedWrite>[]): void {
    if (!this.walMode) return writes.forEach((p) => p.resolve());
    // Committed but not known to be on disk: never answered as durable (and never committed again).
    const unsynced = (error: NodeJS.ErrnoException) => {
      const failure = new DomainError(ErrorCode.DATABASE_UNAVAILABLE, `database unavailable (WAL sync failed: ${error.code ?? error.message})`);
      writes.forEach((p) => p.reject(failure));
    };
    try {
      this.wal ??= openSync(`${this.db.name}-wal`, 'r');
    } catch (error) {
      return unsynced(error as NodeJS.ErrnoException);
    }
    this.syncing++;
    fdatasync(this.wal, (error) => {
      this.syncing--;
      if (error) unsynced(error);
      else writes.forEach((p) => p.resolve());
      if (this.syncing === 0 && this.held.length > 0) {
        const next = this.held;
        this.held = [];
        this.flush(next);
      }
    });
  }

  private flush(batch: Pending<QueuedWrite>[]): void {
    // While a sync runs, the WAL write of another commit would only wait behind it on the event loop:
    // the batches of those turns are held and committed together, with one sync, when it returns.
    if (this.syncing > 0) {
      for (const p of batch) this.held.push(p);
      return;
    }
    try {
      this.commit(batch);
      this.answerWhenSynced(batch);
    } catch (error) {
      const failure = toDatabaseError(error);
      // An unavailable database fails them all: retrying one by one would only wait out the busy timeout
      // once per write with the event loop blocked.
      if (isDomainError(failure) && failure.code === ErrorCode.DATABASE_UNAVAILABLE) {
        batch.forEach((p) => p.reject(failure));
        return;
      }
      // Anything else is one bad write: it fails alone, its neighbours commit without it.
      for (const p of batch) {
        try {
          this.commit([p]);
          this.answerWhenSynced([p]);
        } catch (single) {
          p.reject(toDatabaseError(single));
        }
      }
    }
  }

  private run(writes: Pending<QueuedWrite>[]): void {
    const scope = new TransactionScope();
    for (const p of writes) p.item(scope);
  }
}

const queues = new WeakMap<SqliteDatabase, SqliteCommitQueue>();

/** The connection's one commit queue, shared by every adapter built on it. */
export function commitQueueOf(db: SqliteDatabase): SqliteCommitQueue {
  let queue = queues.get(db);
  if (!queue) {
    queue = new SqliteCommitQueue(db);
    queues.set(db, queue);
  }
  return queue;
}
