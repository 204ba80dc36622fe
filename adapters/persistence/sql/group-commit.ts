/** One caller's item waiting for the batch it joined to be written. */
export interface Pending<T> {
  readonly item: T;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit: the items submitted during one turn of the event loop are handed to `write` together,
 * so concurrent callers share one transaction (one fsync, one round trip) instead of queueing behind
 * one each. `write` settles every pending item, each only once its own record is durable.
 */
export class GroupCommit<T> {
  private pending: Pending<T>[] = [];

  constructor(private readonly write: (batch: Pending<T>[]) => void) {}

  /** Resolves when the item is durable; rejects with the error of its write. */
  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.write(batch);
  }
}

/**
 * Group commit with one write in flight at a time: what is submitted while a batch is being written
 * waits and goes, all together, in the next one. For a database where every batch queues on one lock
 * (PostgreSQL's audit head): batches written one after another grow with the load, where one batch per
 * turn would split the same signs into many small transactions queueing on that lock. `write` settles
 * every pending item; `maxBatch` bounds one batch (the rest goes in the following one).
 */
export class SerialGroupCommit<T> {
  private pending: Pending<T>[] = [];
  private writing = false;

  constructor(
    private readonly write: (batch: Pending<T>[]) => Promise<void>,
    private readonly maxBatch: number,
  ) {}

  /** Resolves when the item is durable; rejects with the error of its write. */
  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length === 1 && !this.writing) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    if (this.writing || this.pending.length === 0) return;
    this.writing = true;
    const batch = this.pending.splice(0, this.maxBatch);
    try {
      await this.write(batch);
    } catch (error) {
      batch.forEach((p) => p.reject(error)); // a write that threw settles nobody else; settling twice is a no-op
    } finally {
      this.writing = false;
      if (this.pending.length > 0) void this.flush();
    }
  }
}

/**
 * "Batch, then each alone", the failure rule of every group commit: `write` stores the items in one
 * transaction and answers their callers, or throws, having stored none of them. A failure every write
 * would meet (`failsAll`: an unavailable database) is everyone's answer at once, since retrying one by
 * one would only wait it out once per item. Any other is one bad item's: each is written again alone, in
 * order, so the bad one fails alone and its neighbours are stored without it.
 */
export async function writeBatchOrEachAlone<T>(
  batch: Pending<T>[],
  write: (items: Pending<T>[]) => void | Promise<void>,
  failsAll: (error: unknown) => boolean,
): Promise<void> {
  try {
    return await write(batch);
  } catch (error) {
    if (batch.length === 1 || failsAll(error)) return batch.forEach((p) => p.reject(error));
  }
  for (const p of batch) {
    try {
      await write([p]);
    } catch (error) {
      p.reject(error);
    }
  }
}
