import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RequestCount, RequestRateCounter } from '../../src/ports/request-rate-store.port.js';

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
 * A rate-limiter-flexible limiter as the port: its answer, granted or refused (a RateLimiterRes), becomes
 * the key's count and the milliseconds until its window ends; anything else it rejects with is the store
 * failing, and rejects as it is.
 */
export function flexibleCounter(limiter: RateLimiterAbstract): RequestRateCounter {
  const countOf = (res: RateLimiterRes, refused: boolean): RequestCount => ({
    // A refusal from memory (inMemoryBlockOnConsumed) reports no count: the key is over its limit.
    counted: refused ? Math.max(res.consumedPoints, limiter.points + 1) : res.consumedPoints,
    windowEndsInMs: Math.max(1, res.msBeforeNext),
  });
  return {
    async consume(key) {
      try {
        return countOf(await limiter.consume(key), false);
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return countOf(refusal, true);
        throw refusal;
      }
    },
  };
}
