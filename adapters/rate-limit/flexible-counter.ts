import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RequestRateCounter } from '../../src/ports/request-rate-store.port.js';

/** The options every shared counter is made with: `points` per key in fixed windows of `windowSeconds`. */
export function windowOptions(limit: { readonly points: number; readonly windowSeconds: number }, keyPrefix: string) {
  return {
    points: limit.points,
    duration: limit.windowSeconds,
    keyPrefix,
    // A key over its limit is refused from memory until its window ends: a key that floods costs the
    // store one round trip per window and process, not one per request.
    inMemoryBlockOnConsumed: limit.points + 1,
  };
}

/**
 * A rate-limiter-flexible limiter as the port: its refusal (a RateLimiterRes) becomes the milliseconds
 * until the window ends; anything else it rejects with is the store failing, and rejects as it is.
 */
export function flexibleCounter(limiter: RateLimiterAbstract): RequestRateCounter {
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
        return 0;
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return Math.max(1, refusal.msBeforeNext);
        throw refusal;
      }
    },
  };
}
