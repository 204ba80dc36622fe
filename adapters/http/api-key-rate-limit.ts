import type { HttpDeps } from './http-deps.js';
import { RateLimitedError } from './rate-limiter.js';

/**
 * Takes one request from the API key's rate limit: the step after authentication in the pipeline's
 * admission sequence (pipeline.ts). The in-process limiter answers at once (undefined or a throw: no
 * promise, no microtask on the sign path); a shared one returns a promise the pipeline awaits.
 */
export function takeRateLimit(deps: Pick<HttpDeps, 'rateLimiter' | 'metrics'>, apiKeyId: string): void | Promise<void> {
  if (!deps.rateLimiter) return;
  const refused = (error: unknown): never => {
    if (error instanceof RateLimitedError) deps.metrics?.observeRateLimited();
    throw error;
  };
  try {
    const pending = deps.rateLimiter.take(apiKeyId);
    if (pending) return pending.catch(refused);
  } catch (error) {
    refused(error);
  }
}
