import { DomainError, ErrorCode } from '../../src/domain/errors.js';

/** A refusal by a rate limit; the HTTP layer turns `retryAfterSeconds` into `Retry-After`. */
export class RateLimitedError extends DomainError {
  declare readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, scope = 'this API key') {
    super(ErrorCode.RATE_LIMITED, `rate limit exceeded for ${scope}; retry after ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

export interface RateLimiterOptions {
  /**
   * Buckets kept at most. Past it the least recently used bucket is forgotten (its owner starts again
   * with a full bucket): memory stays bounded whatever the number of distinct keys or addresses.
   */
  readonly maxKeys?: number;
  /** What the limit applies to, for the message: `this API key`, `this client address`. */
  readonly scope?: string;
}

/**
 * Token bucket per key (an API key id, a client address): `perMinute` requests a minute on average, with
 * bursts of up to `perMinute` (a full bucket). In memory, per process: with N instances behind a load
 * balancer a key gets up to N times the limit (docs/configuration.md). Buckets live only for keys that
 * made a request; a bucket that has refilled is dropped, and there are never more than `maxKeys`.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private readonly maxKeys: number;
  private readonly scope: string | undefined;
  private lastSweep: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    options: RateLimiterOptions = {},
  ) {
    this.perMs = perMinute / 60_000;
    this.maxKeys = options.maxKeys ?? 100_000;
    this.scope = options.scope;
    this.lastSweep = now();
  }

  /** Takes one request from the key's bucket; throws RateLimitedError when it is empty. */
  take(key: string): void {
    const now = this.now();
    this.sweep(now);
    let b = this.buckets.get(key);
    if (b) {
      // Re-inserted, so the map's order is least recently used first.
      this.buckets.delete(key);
    } else {
      b = { tokens: this.perMinute, at: now };
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    }
    b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * this.perMs);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return;
    }
    throw new RateLimitedError(Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)), this.scope);
  }

  /** Buckets currently held (for tests of the bound). */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, b] of this.buckets) {
      if (b.tokens + (now - b.at) * this.perMs >= this.perMinute) this.buckets.delete(key);
    }
  }
}
