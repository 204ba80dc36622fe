import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { RateLimitedError, RateLimiter, SharedRateLimiter, takeRateLimit } from '../../adapters/http/rate-limits.js';
import { ConfigError, loadConfig } from '../../adapters/main/config.js';
import { redisRequestRates } from '../../adapters/rate-limit/redis.request-rates.js';
import { skipFailingStore } from '../../adapters/rate-limit/store-breaker.js';
import { FixedClock, MovableClock } from '../support/movable-clock.js';
import { describeEachBackend, type Target } from '../support/backends.js';
import { client } from '../support/http-client.js';
import { startTestServer } from '../support/test-server.js';

/**
 * The exactness tests are about counting, not the store's timeout: on a busy machine a count can take
 * longer than the default 250 ms, and the skipped store would then count per instance.
 */
const EXACT_TIMEOUT_MS = 30_000;
const REDIS_URL = process.env.VAULT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The standalone server's key prefix in Redis (it has no setting for it; each API key id is random). */
const SERVER_PREFIX = 'wallet-vault:rate';

/** The count rows of the target's database that name this API key. */
async function rowsInDatabase(s: Target, keyId: string): Promise<{ key: string; points: number }[]> {
  const db = new pg.Client({ connectionString: s.database!.url });
  await db.connect();
  try {
    return (await db.query<{ key: string; points: number }>('SELECT key, points FROM request_rates WHERE key LIKE $1', [`%${keyId}`])).rows;
  } finally {
    await db.end();
  }
}

type Reply = { status: number; retryAfter: string | null; code?: string };

/**
 * The attempt to get around the limit: one API key, 200 cheap authenticated requests (GET …/status),
 * 16 in flight at a time, alternating between two instances.
 */
async function burst(urls: readonly string[], apiKey: string, base: string): Promise<Reply[]> {
  const instances = urls.map((url) => client(url, apiKey));
  const replies: Reply[] = [];
  let next = 0;
  const lane = async () => {
    while (next < 200) {
      const i = next++;
      const r = await instances[i % instances.length]!.get(`${base}/status`);
      replies.push({ status: r.status, retryAfter: r.headers.get('retry-after'), code: r.body.code });
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  return replies;
}

/** Exactly 50 answered; the 150 others refused as RATE_LIMITED with a Retry-After within the minute window. */
function expectExactlyFifty(replies: readonly Reply[]): void {
  expect(replies).toHaveLength(200);
  expect(replies.filter((r) => r.status === 200)).toHaveLength(50);
  const refused = replies.filter((r) => r.status === 429);
  expect(refused).toHaveLength(150);
  for (const r of refused) {
    expect(r.code).toBe('RATE_LIMITED');
    expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(r.retryAfter)).toBeLessThanOrEqual(60);
  }
}

// The limit's window is the documented minute: 200 status requests take a second or two, so nothing is
// refilled during a burst (the window starts at the key's first request, not on a clock minute).
describeEachBackend(
  'per-API-key rate limit across two instances',
  (backend) => {
    const targets: Target[] = [];
    const redisKeys: string[] = [];
    afterAll(async () => {
      for (const t of targets) await t.close();
      if (redisKeys.length > 0) {
        const redis = new Redis(REDIS_URL);
        await redis.del(...redisKeys);
        await redis.quit();
      }
    });

    it('in the PostgreSQL database (the default there): 50 per minute, 200 requests over both instances, exactly 50 answered', async () => {
      const s = await backend.start({ rateLimitPerMinute: 50, rateLimitStoreTimeoutMs: EXACT_TIMEOUT_MS });
      targets.push(s);
      const peer = await s.peer();
      const { apiKey, keyId, base } = await s.vaultWithKey('shared limit');
      expectExactlyFifty(await burst([s.url, peer.url], apiKey, base));
      // Counted in the table the migrations made; past the limit each instance refuses from memory.
      const [row, ...others] = await rowsInDatabase(s, keyId);
      expect(others).toEqual([]);
      expect(row).toMatchObject({ key: `api-key:${keyId}` });
      expect(row!.points).toBeGreaterThanOrEqual(51);
    });

    it('in Redis (VAULT_REDIS_URL, or a client of the application): exactly 50 answered over both instances, nothing counted in the database', async () => {
      const keyPrefix = `wallet-vault-test:${randomBytes(6).toString('hex')}`;
      const s = await backend.start({ rateLimitPerMinute: 50, rateLimitRedis: { url: REDIS_URL, keyPrefix }, rateLimitStoreTimeoutMs: EXACT_TIMEOUT_MS });
      targets.push(s);
      const peer = await s.peer();
      const { apiKey, keyId, base } = await s.vaultWithKey('redis limit');
      redisKeys.push(`${keyPrefix}:${keyId}`, `${SERVER_PREFIX}:${keyId}`);
      expectExactlyFifty(await burst([s.url, peer.url], apiKey, base));
      const redis = new Redis(REDIS_URL);
      try {
        const counted = backend.shell === 'mounted' ? `${keyPrefix}:${keyId}` : `${SERVER_PREFIX}:${keyId}`;
        expect(Number(await redis.get(counted))).toBeGreaterThanOrEqual(51);
        expect(await redis.pttl(counted)).toBeGreaterThan(0);
      } finally {
        await redis.quit();
      }
      expect(await rowsInDatabase(s, keyId)).toEqual([]);
    });
  },
  { database: 'postgres' },
);

describe('when the shared store fails', () => {
  it('each instance counts the key in process instead (the same per-minute size), logs the outage once, and asks the store no more until its skip ends', async () => {
    // Nothing listens on port 1; no offline queue: each count fails at once.
    const down = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    down.on('error', () => undefined);
    const warnings: object[] = [];
    let failures = 0;
    // Standing still: the 5 s skip never ends during the test.
    const clock = new FixedClock(new Date('2026-01-01T00:00:00Z'));
    const watch = { logger: { info() {}, warn: (o: object) => warnings.push(o) } };
    const instances = [0, 1].map(
      () =>
        new SharedRateLimiter(
          skipFailingStore(redisRequestRates(down, 'down').counter({ points: 3, windowSeconds: 60 }), { clock, failed: () => failures++ }),
          3,
          watch,
          'redis',
          clock,
        ),
    );
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i++) {
      await instances[i % 2]!.take('key').then(
        () => outcomes.push('ok'),
        (error: unknown) => outcomes.push(error instanceof RateLimitedError ? `429 after ${error.retryAfterSeconds} s` : String(error)),
      );
    }
    // Three per instance, as without a shared store: the outage costs the shared bound, not signing.
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(6);
    expect(outcomes.filter((o) => o.startsWith('429 after '))).toEqual(Array(4).fill('429 after 60 s'));
    // One failed count per instance; the eight requests after it did not ask the store.
    expect(failures).toBe(2);
    expect(warnings).toEqual([expect.objectContaining({ store: 'redis' }), expect.objectContaining({ store: 'redis' })]);
    down.disconnect();
  });

  it('a server whose Redis is down starts, answers, limits each key in process and counts the failure in its metrics', async () => {
    // Port 1: nothing listens. The start waits VAULT_OUTBOUND_TIMEOUT_MS for Redis, then serves. The
    // clock stands still, so the store stays skipped after the first failure.
    const clock = new MovableClock();
    clock.freeze();
    const s = await startTestServer({ clock, env: { VAULT_REDIS_URL: 'redis://127.0.0.1:1', VAULT_OUTBOUND_TIMEOUT_MS: '300', VAULT_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const vaultId = (await s.createVault({ name: 'redis down' })).id;
      const api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await api.get(`/api/v1/vaults/${vaultId}/status`)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const metrics = (await client(s.url).get('/metrics')).body as string;
      expect(metrics).toMatch(/^wallet_vault_rate_limit_store_failures_total 1$/m);
      expect(metrics).toMatch(/^wallet_vault_rate_limit_store_skipped_seconds_total 0$/m);
      expect(metrics).toMatch(/^wallet_vault_rate_limited_total 2$/m);
    } finally {
      await s.stop();
    }
  });

  it('a real Redis that fails mid-window: the instance refuses at the limit counting from the last count Redis gave, not from zero', async () => {
    const redis = new Redis(REDIS_URL);
    const keyPrefix = `wallet-vault-test:${randomBytes(6).toString('hex')}`;
    try {
      const counts = redisRequestRates(redis, keyPrefix).counter({ points: 5, windowSeconds: 60 });
      let redisDown = false;
      const flapping = { consume: (key: string) => (redisDown ? Promise.reject(new Error('connection reset')) : counts.consume(key)) };
      const clock = new FixedClock(new Date('2026-01-01T00:00:00Z'));
      const limiter = new SharedRateLimiter(skipFailingStore(flapping, { clock }), 5, { logger: { info() {}, warn() {} } }, 'redis', clock);
      const outcomes: string[] = [];
      const take = () =>
        limiter.take('key').then(
          () => outcomes.push('ok'),
          (error: unknown) => outcomes.push(error instanceof RateLimitedError ? '429' : String(error)),
        );
      for (let i = 0; i < 3; i++) await take();
      redisDown = true;
      for (let i = 0; i < 4; i++) await take();
      // Before: the fallback started from zero and answered all four (3 + 4 > 5).
      expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', '429', '429']);
      expect(Number(await redis.get(`${keyPrefix}:key`))).toBe(3);
    } finally {
      await redis.del(`${keyPrefix}:key`);
      await redis.quit();
    }
  });

  it('a store that answers again is used again, and the recovery is logged', async () => {
    let up = false;
    const counter = { consume: async () => (up ? { counted: 1, windowEndsInMs: 60_000 } : Promise.reject(new Error('down'))) };
    const lines: string[] = [];
    const limiter = new SharedRateLimiter(counter, 100, { logger: { info: (_o, m) => lines.push(`info ${m}`), warn: (_o, m) => lines.push(`warn ${m}`) } }, 'database');
    await limiter.take('k');
    await limiter.take('k');
    up = true;
    await limiter.take('k');
    expect(lines).toEqual([
      'warn the shared rate-limit store did not answer: API keys are limited per instance until it does',
      'info the shared rate-limit store answers again: API keys are limited across instances',
    ]);
  });

  it('a refusal by the store is 429 with the seconds left in the window, rounded up', async () => {
    const limiter = new SharedRateLimiter({ consume: async () => ({ counted: 11, windowEndsInMs: 1500 }) }, 10, { logger: { info() {}, warn() {} } }, 'database');
    await expect(limiter.take('k')).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 2 });
  });
});

describe('the in-process limiter (SQLite, or VAULT_RATE_LIMIT_STORE=process)', () => {
  it('answers without a promise: the sign path awaits nothing for it', () => {
    const rateLimiter = new RateLimiter(1);
    expect(takeRateLimit({ rateLimiter }, 'k')).toBeUndefined();
    expect(() => takeRateLimit({ rateLimiter }, 'k')).toThrow(RateLimitedError);
  });
});

describe('VAULT_RATE_LIMIT_STORE and VAULT_REDIS_URL', () => {
  const DB = 'postgres://u@127.0.0.1/db';
  it('default: redis with VAULT_REDIS_URL, database with VAULT_DATABASE_URL, else process', () => {
    expect(loadConfig({}).rateLimitStore).toBe('process');
    expect(loadConfig({ VAULT_DATABASE_URL: DB }).rateLimitStore).toBe('database');
    expect(loadConfig({ VAULT_DATABASE_URL: DB, VAULT_REDIS_URL: 'redis://:pw@cache:6379/0' })).toMatchObject({ rateLimitStore: 'redis', redisUrl: 'redis://:pw@cache:6379/0' });
    expect(loadConfig({ VAULT_DATABASE_URL: DB, VAULT_RATE_LIMIT_STORE: 'process' }).rateLimitStore).toBe('process');
  });

  it('refuses a store it cannot have, naming the variable', () => {
    expect(() => loadConfig({ VAULT_RATE_LIMIT_STORE: 'database' })).toThrow(/^VAULT_RATE_LIMIT_STORE: database needs VAULT_DATABASE_URL/);
    expect(() => loadConfig({ VAULT_RATE_LIMIT_STORE: 'redis' })).toThrow(/^VAULT_RATE_LIMIT_STORE: redis needs VAULT_REDIS_URL/);
    expect(() => loadConfig({ VAULT_RATE_LIMIT_STORE: 'process', VAULT_REDIS_URL: 'redis://cache' })).toThrow(/^VAULT_REDIS_URL: only with VAULT_RATE_LIMIT_STORE=redis/);
    expect(() => loadConfig({ VAULT_REDIS_URL: 'http://cache' })).toThrow(/VAULT_REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => loadConfig({ VAULT_RATE_LIMIT_STORE: 'memcached' })).toThrow(ConfigError);
  });
});
