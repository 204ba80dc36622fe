import { fdatasync, openSync } from 'node:fs';
import type { Statement, Transaction } from 'better-sqlite3';
import { DomainError, ErrorCode, isDomainError } from '../../../src/domain/errors.js';
import { GroupCommit, writeBatchOrEachAlone, type Pending } from '../sql/group-commit.js';
import { toDatabaseError, type SqliteDatabase } from './sqlite.database.js';
import { noteLocalCommit } from '../sql/local-commits.js';
import { WalCheckpointer } from './sqlite.wal-checkpointer.js';

/** A checkpoint is asked for after this many commits (a sign batch writes some 10 to 40 WAL frames). */
const COMMITS_PER_CHECKPOINT = 32;
/** SQLite's own threshold (wal_autocheckpoint's default): past it, the WAL is brought back to its start. */
const RESTART_FRAMES = 1000;

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
 *
 * Checkpoints run off the event loop too, once the connection has committed enough to need them (so a CLI
 * command never starts one): the automatic checkpoint is turned off and a WalCheckpointer copies frames
 * from a worker thread while commits go on. A PASSIVE checkpoint cannot finish while frames keep being
 * appended, and SQLite only brings the WAL back to its start when a checkpoint has copied every frame, so
 * a WAL past RESTART_FRAMES gets a second, short checkpoint with the batches held (as during a sync): it
 * copies the few frames the first one missed, and the next commit starts the WAL over. A checkpointer
 * that fails gives the connection its automatic checkpoint back.
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
  /** Batches that arrived while a sync or a held checkpoint was running: committed together when it returns. */
  private held: Pending<QueuedWrite>[] = [];
  /** Started on the connection's COMMITS_PER_CHECKPOINT-th commit; null once it failed. */
  private checkpointer: WalCheckpointer | null | undefined;
  private commitsSinceCheckpoint = 0;
  private checkpointing = false;
  /** A checkpoint that must copy every frame is running: commits wait for it. */
  private checkpointHeld = false;
  /**
   * Set by the first WAL sync that fails, for the connection's life. After a failed fdatasync the kernel
   * may have dropped the frames it could not write and reports the error once only: a later sync can
   * return success over a WAL whose chain of frames is broken, and on recovery SQLite discards every
   * frame after the break. So nothing committed after the failure may be answered as durable (as
   * PostgreSQL stops at a failed fsync): every later write is refused, and readiness fails, until the
   * process is restarted and SQLite recovers the WAL from what is on disk.
   */
  private syncFailure: DomainError | undefined;

  constructor(private readonly db: SqliteDatabase) {
    this.transaction = db.transaction((writes: Pending<QueuedWrite>[]) => this.run(writes));
    this.normal = db.prepare('PRAGMA synchronous = NORMAL');
    this.full = db.prepare('PRAGMA synchronous = FULL');
    this.walMode = !db.memory && db.pragma('journal_mode', { simple: true }) === 'wal';
  }

  /** Resolves once `write` is committed and on disk. */
  enqueue(write: QueuedWrite): Promise<void> {
    return this.syncFailure ? Promise.reject(this.syncFailure) : this.batches.submit(write);
  }

  /** Throws the failure that stopped the connection's writes (see `syncFailure`), if one did. */
  assertWritable(): void {
    if (this.syncFailure) throw this.syncFailure;
  }

  /** Commits `writes` with the WAL written but not yet synced (see the class comment). */
  private commit(writes: Pending<QueuedWrite>[]): void {
    try {
      if (!this.walMode) return this.transaction.immediate(writes);
      this.normal.run();
      try {
        // IMMEDIATE: the write lock is held from the first statement on, so a write that reads before it
        // writes (the audit chain's head) sees what it extends.
        this.transaction.immediate(writes);
      } finally {
        this.full.run();
      }
    } finally {
      // Other connections of this process read data_version again (a rolled-back batch: harmlessly).
      noteLocalCommit();
    }
  }

  /** Answers `writes` once an fdatasync of the WAL, started after their commit, has returned. */
  private answerWhenSynced(writes: Pending<QueuedWrite>[]): void {
    if (!this.walMode) return writes.forEach((p) => p.resolve());
    // Committed but not known to be on disk: never answered as durable (and never committed again).
    const unsynced = (reason: string) =>
      new DomainError(ErrorCode.DATABASE_UNAVAILABLE, `database unavailable (${reason})`);
    try {
      this.wal ??= openSync(`${this.db.name}-wal`, 'r');
    } catch (error) {
      const failure = unsynced(`WAL not opened for its sync: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      return writes.forEach((p) => p.reject(failure));
    }
    this.syncing++;
    fdatasync(this.wal, (error) => {
      this.syncing--;
      if (error) {
        this.syncFailure ??= unsynced(`WAL sync failed: ${error.code ?? error.message}; writes refused until the process restarts`);
        writes.forEach((p) => p.reject(this.syncFailure));
      } else if (this.syncFailure) {
        writes.forEach((p) => p.reject(this.syncFailure)); // committed after a failed sync: not known to survive
      } else {
        writes.forEach((p) => p.resolve());
      }
      this.releaseHeld();
    });
  }

  /** Commits the held batches, together, once nothing holds them any more. */
  private releaseHeld(): void {
    if (this.syncing > 0 || this.checkpointHeld || this.held.length === 0) return;
    const next = this.held;
    this.held = [];
    this.flush(next);
  }

  /** After a commit: a checkpoint off the event loop when enough has been committed (see the class comment). */
  private checkpointIfDue(): void {
    if (!this.walMode || this.checkpointer === null || this.checkpointing) return;
    if (++this.commitsSinceCheckpoint < COMMITS_PER_CHECKPOINT) return;
    this.commitsSinceCheckpoint = 0;
    if (this.checkpointer === undefined) {
      try {
        this.checkpointer = new WalCheckpointer(this.db.name);
        this.db.pragma('wal_autocheckpoint = 0');
      } catch {
        this.checkpointer = null;
        return;
      }
    }
    const checkpointer = this.checkpointer;
    this.checkpointing = true;
    void checkpointer
      .checkpoint()
      .then(async (first) => {
        if (first.log < RESTART_FRAMES) return;
        this.checkpointHeld = true;
        try {
          await checkpointer.checkpoint();
        } finally {
          this.checkpointHeld = false;
        }
      })
      .catch(() => {
        // Never a reason to fail a sign: the connection checkpoints inline again, as SQLite does by default.
        this.checkpointer = null;
        try {
          this.db.pragma('wal_autocheckpoint = 1000');
        } catch {
          // closed meanwhile
        }
      })
      .finally(() => {
        this.checkpointing = false;
        this.releaseHeld();
      });
  }

  /** Stops the checkpointer (before the connection closes, so that closing checkpoints what is left). */
  async close(): Promise<void> {
    const checkpointer = this.checkpointer;
    this.checkpointer = null;
    await checkpointer?.close();
  }

  private flush(batch: Pending<QueuedWrite>[]): void {
    if (this.syncFailure) return batch.forEach((p) => p.reject(this.syncFailure));
    // While a sync runs, the WAL write of another commit would only wait behind it on the event loop:
    // the batches of those turns are held and committed together, with one sync, when it returns.
    if (this.syncing > 0 || this.checkpointHeld) {
      for (const p of batch) this.held.push(p);
      return;
    }
    // A transaction of SqliteSql.transaction() still open (its work awaited more than its own statements):
    // committed now, the batch would become part of it, and of its rollback. It waits for the next turn.
    if (this.db.inTransaction) {
      for (const p of batch) this.held.push(p);
      setImmediate(() => this.releaseHeld());
      return;
    }
    void writeBatchOrEachAlone(batch, this.commitAndAnswer, isUnavailable);
  }

  /**
   * Commits `writes` in one transaction and answers them once it is on disk; throws, committing none, if
   * it fails. A property, so flushing a batch builds no closure.
   */
  private readonly commitAndAnswer = (writes: Pending<QueuedWrite>[]): void => {
    try {
      this.commit(writes);
    } catch (error) {
      throw toDatabaseError(error);
    }
    this.answerWhenSynced(writes);
    this.checkpointIfDue();
  };

  private run(writes: Pending<QueuedWrite>[]): void {
    const scope = new TransactionScope();
    for (const p of writes) p.item(scope);
  }
}

/**
 * Fails every write of a batch alike: retrying one by one would only wait out the busy timeout once per
 * write with the event loop blocked.
 */
const isUnavailable = (failure: unknown) => isDomainError(failure) && failure.code === ErrorCode.DATABASE_UNAVAILABLE;

const queues = new WeakMap<SqliteDatabase, SqliteCommitQueue>();

/** Stops the connection's commit queue's background work, if it has a queue; call before `db.close()`. */
export async function closeCommitQueueOf(db: SqliteDatabase): Promise<void> {
  await queues.get(db)?.close();
}

/** The connection's one commit queue, shared by every adapter built on it. */
export function commitQueueOf(db: SqliteDatabase): SqliteCommitQueue {
  let queue = queues.get(db);
  if (!queue) {
    queue = new SqliteCommitQueue(db);
    queues.set(db, queue);
  }
  return queue;
}
