import type { RequestRateCounter } from '../../src/ports/request-rate-store.port.js';
import { RateLimitedError, RateLimiter } from './rate-limiter.js';

/** Where a shared limiter reports that its store stopped or started answering again. */
export interface SharedLimitWatch {
  readonly logger: { info(o: object, m?: string): void; warn(o: object, m?: string): void };
  /** Each count the store failed (the request was counted in this process instead). */
  readonly storeFailed?: () => void;
}

/**
 * The per-API-key limit counted in a store every instance shares (the PostgreSQL database, Redis):
 * `perMinute` requests per key in each fixed minute window, whichever instance receives them. When the
 * store fails, the request is counted in this process instead, by the in-process token bucket of the
 * same size (signing goes on; each instance then limits on its own, as without a shared store); the
 * first failure and the recovery are logged, every failure is counted (`storeFailed`).
 */
export class SharedRateLimiter {
  private readonly fallback: RateLimiter;
  private storeDown = false;

  constructor(
    private readonly counter: RequestRateCounter,
    perMinute: number,
    private readonly watch: SharedLimitWatch,
    private readonly store: string,
  ) {
    this.fallback = new RateLimiter(perMinute);
  }

  async take(key: string): Promise<void> {
    let waitMs: number;
    try {
      waitMs = await this.counter.consume(key);
    } catch (error) {
      this.watch.storeFailed?.();
      if (!this.storeDown) {
        this.storeDown = true;
        const err = error instanceof Error ? error.message : String(error);
        this.watch.logger.warn({ store: this.store, err }, 'the shared rate-limit store did not answer: API keys are limited per instance until it does');
      }
      return this.fallback.take(key);
    }
    if (this.storeDown) {
      this.storeDown = false;
      this.watch.logger.info({ store: this.store }, 'the shared rate-limit store answers again: API keys are limited across instances');
    }
    if (waitMs > 0) throw new RateLimitedError(Math.max(1, Math.ceil(waitMs / 1000)));
  }
}
