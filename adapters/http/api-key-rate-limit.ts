import type { HttpDeps } from './http-deps.js';
import { RateLimitedError } from './rate-limiter.js';

/**
 * Takes one request from the API key's rate limit: the step after authentication in the pipeline's
 * admission sequence (pipeline.ts).
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
