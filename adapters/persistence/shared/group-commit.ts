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
