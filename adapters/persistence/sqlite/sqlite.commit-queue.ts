import { ErrorCode, isDomainError } from '../../../src/domain/errors.js';
import { GroupCommit, type Pending } from '../shared/group-commit.js';
import { toDatabaseError, type SqliteDatabase } from './sqlite.database.js';

/**
 * Group commit for one SQLite connection. The writes every adapter on the connection enqueues during
 * one turn of the event loop (a sign's signature record, audit records) are committed in one IMMEDIATE
 * transaction, so they share one fsync; each caller is answered only after the commit. One queue per
 * connection: two queues on the same connection would mean two transactions and two fsyncs per turn.
 */
export class SqliteCommitQueue {
  /** Each item runs inside the batch's transaction and throws to refuse its own write. */
  private readonly batches = new GroupCommit<() => void>((batch) => this.flush(batch));

  constructor(private readonly db: SqliteDatabase) {}

  /** Resolves once `write` is committed (durable: the connection runs synchronous=FULL). */
  enqueue(write: () => void): Promise<void> {
    return this.batches.submit(write);
  }

  private flush(batch: Pending<() => void>[]): void {
    try {
      // IMMEDIATE: the write lock is held from the first statement on, so a write that reads before it
      // writes (the audit chain's head) sees what it extends.
      this.db.transaction(() => batch.forEach((p) => p.item())).immediate();
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
          this.db.transaction(p.item).immediate();
          p.resolve();
        } catch (single) {
          p.reject(toDatabaseError(single));
        }
      }
    }
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
