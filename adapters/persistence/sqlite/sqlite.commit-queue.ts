import { ErrorCode, isDomainError } from '../../../src/domain/errors.js';
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
 * transaction, so they share one fsync; each caller is answered only after the commit. One queue per
 * connection: two queues on the same connection would mean two transactions and two fsyncs per turn.
 */
export class SqliteCommitQueue {
  private readonly batches = new GroupCommit<QueuedWrite>((batch) => this.flush(batch));

  constructor(private readonly db: SqliteDatabase) {}

  /** Resolves once `write` is committed (durable: the connection runs synchronous=FULL). */
  enqueue(write: QueuedWrite): Promise<void> {
    return this.batches.submit(write);
  }

  private flush(batch: Pending<QueuedWrite>[]): void {
    try {
      // IMMEDIATE: the write lock is held from the first statement on, so a write that reads before it
      // writes (the audit chain's head) sees what it extends.
      this.db.transaction(() => this.run(batch)).immediate();
      batch.forEach((p) => p.resolve());
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
          this.db.transaction(() => this.run([p])).immediate();
          p.resolve();
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
