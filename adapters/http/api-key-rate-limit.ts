import type { HttpDeps } from './http-deps.js';
import { RateLimitedError } from './rate-limiter.js';

/**
 * Takes one request from the API key's rate limit: the vault routes (http-app.ts) and Sign (sign-handler.ts)
 * both take it, so it lives apart from either and neither imports the other for it.
 */
export function takeRateLimit(deps: Pick<HttpDeps, 'rateLimiter' | 'metrics'>, apiKeyId: string): void {
  if (!deps.rateLimiter) return;
  try {
    deps.rateLimiter.take(apiKeyId);
  } catch (error) {
    if (error instanceof RateLimitedError) deps.metrics?.observeRateLimited();
    throw error;
  }
}
