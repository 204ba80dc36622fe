import type { Clock } from '../../ports/clock.port.js';
import type { IdempotencyStore } from '../../ports/idempotency-store.port.js';

/**
 * Removes idempotency records past their expiry. They are already ignored from that instant on (reads
 * and inserts compare with `expires`), so this only keeps the table small; batches keep each delete short.
 */
export class PurgeExpiredIdempotency {
  constructor(
    private readonly repository: IdempotencyStore,
    private readonly clock: Clock,
    private readonly batchSize = 1000,
  ) {}

  /** Returns how many records were removed. */
  async execute(): Promise<number> {
    const now = this.clock.now();
    let removed = 0;
    for (;;) {
      const n = await this.repository.deleteExpiredIdempotency(now, this.batchSize);
      removed += n;
      if (n < this.batchSize) return removed;
    }
  }
}
