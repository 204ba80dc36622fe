import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { RequestRateStore } from '../../src/ports/request-rate-store.port.js';
import { flexibleCounter, windowOptions } from './flexible-counter.js';

/**
 * What the Redis store needs of a client: an ioredis `Redis` (or `Cluster`), which the application opens
 * and closes. Made with `enableOfflineQueue: false` (and a `commandTimeout`), a request meets a Redis
 * that is down with an error at once instead of waiting in the client's queue.
 */
export interface RedisClientLike {
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
}

/** Request counts in Redis, under `<keyPrefix>:<API key id>` (one key per API key, expiring with its window). */
export function redisRequestRates(client: RedisClientLike, keyPrefix = 'wallet-vault:rate'): RequestRateStore {
  return {
    counter: (limit) => flexibleCounter(new RateLimiterRedis({ storeClient: client, ...windowOptions(limit, keyPrefix) })),
  };
}
