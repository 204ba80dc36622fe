import type { Redis } from 'ioredis';
import { requireDriver } from '../optional-driver.js';

/** `host:port` of a Redis URL: what messages say, never the URL (it may carry a password). */
export function describeRedis(url: string): string {
  const u = new URL(url);
  return `Redis on ${u.hostname}:${u.port || '6379'}`;
}

/**
 * A client of the Redis at `url` for the shared rate limit (VAULT_REDIS_URL; needs the optional package
 * ioredis). Every command is bounded by `timeoutMs`, and none waits in an offline queue: a Redis that is
 * down fails each count at once, and the request is counted in process (adapters/http/rate-limits.ts). Waits
 * up to `timeoutMs` for the first connection; a Redis not there yet is connected to when it comes.
 */
export async function openRedis(url: string, timeoutMs: number, logger: { warn(o: object, m?: string): void; debug?(o: object, m?: string): void }): Promise<Redis> {
  await requireDriver('ioredis', 'serve with VAULT_REDIS_URL');
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    // Reconnects at most every 2 s for as long as the process runs.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  const redis = describeRedis(url);
  // Without a listener ioredis prints every failed reconnect; each count that fails is logged by the limiter.
  client.on('error', (error: Error) => logger.debug?.({ redis, err: error.message }, 'Redis connection failed'));
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    client.once('ready', done);
  });
  if (client.status !== 'ready') {
    logger.warn({ redis }, 'Redis does not answer yet: API keys are limited per instance until it does');
  }
  return client;
}
