import { DomainError, ErrorCode } from '../../src/domain/errors.js';

/** A refusal by the rate limit; the HTTP layer turns `retryAfterSeconds` into `Retry-After`. */
export class RateLimitedError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(ErrorCode.RATE_LIMITED, `rate limit exceeded for this API key; retry after ${retryAfterSeconds} s`);
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Per-API-key token bucket: `perMinute` requests a minute on average, with bursts of up to `perMinute`
 * (a full bucket). In memory, per process: with N instances behind a load balancer a key gets up to N
 * times the limit (docs/configuration.md). Buckets live only for keys that made a request; a bucket that
 * has refilled is dropped, so memory stays proportional to the keys active in the last minute.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private lastSweep: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000;
    this.lastSweep = now();
  }

  /** Takes one request from the key's bucket; throws RateLimitedError when it is empty. */
  take(keyId: string): void {
    const now = this.now();
    this.sweep(now);
    const b = this.buckets.get(keyId) ?? { tokens: this.perMinute, at: now };
    b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * this.perMs);
    b.at = now;
    this.buckets.set(keyId, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return;
    }
    throw new RateLimitedError(Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)));
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, b] of this.buckets) {
      if (b.tokens + (now - b.at) * this.perMs >= this.perMinute) this.buckets.delete(key);
    }
  }
}
