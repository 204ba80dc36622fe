import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresApiKeyCache } from '../../adapters/persistence/postgres/postgres.api-key-cache.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../adapters/persistence/postgres/postgres.database.js';
import { PostgresWalletRepository } from '../../adapters/persistence/postgres/postgres.wallet-repository.js';
import { openTestDatabase, POSTGRES_AVAILABLE, terminateConnections, testPostgresConfig, type TestDatabase } from '../support/postgres.js';
import { anApiKey, aVault } from '../support/wallet-mother.js';

describe.skipIf(!POSTGRES_AVAILABLE)('PostgreSQL API key cache: answered from memory, invalidated by the database', () => {
  let test: TestDatabase;
  let cleanup: () => Promise<void>;
  let operator: PostgresWalletRepository; // another process's view, as the CLI has
  let db: PostgresDatabase;
  let cache: PostgresApiKeyCache;
  let served: PostgresWalletRepository; // a running server's
  let reads = 0;

  beforeAll(async () => {
    const opened = await openTestDatabase();
    ({ test, cleanup } = opened);
    operator = new PostgresWalletRepository(opened.db);
    db = await openPostgresDatabase(testPostgresConfig(test.url));
    const query = db.query.bind(db);
    db.query = ((text: string, values?: unknown[]) => {
      if (text.includes('FROM api_keys WHERE id')) reads++;
      return query(text, values);
    }) as typeof db.query;
    cache = new PostgresApiKeyCache(db);
    served = new PostgresWalletRepository(db, cache);
  });
  afterAll(async () => {
    await cache?.close();
    await db?.close();
    await cleanup?.();
  });

  async function aStoredKey() {
    const vault = aVault();
    await operator.ensureAccount(vault.accountId, new Date());
    await operator.insertVault(vault);
    const key = anApiKey(vault);
    await operator.insertApiKey(key);
    return key;
  }

  /** Looks the key up until its record comes from memory (the listener starts on the first lookup). */
  async function warm(id: string): Promise<void> {
    await expect
      .poll(async () => {
        const before = reads;
        await served.findApiKey(id);
        return reads - before;
      })
      .toBe(0);
  }

  it('answers a known key from memory, and sees a revocation made elsewhere without a TTL', async () => {
    const key = await aStoredKey();
    await warm(key.id);
    expect(await operator.revokeApiKey(key.id, new Date('2026-02-01T00:00:00Z'))).toBe(true);
    // The NOTIFY arrives with the commit; the next lookups read the revoked record.
    await expect.poll(() => served.findApiKey(key.id)).toMatchObject({ revoked: new Date('2026-02-01T00:00:00Z') });
  });

  it('never caches an unknown key', async () => {
    const before = reads;
    expect(await served.findApiKey('ffffffffffffffff')).toBeNull();
    expect(await served.findApiKey('ffffffffffffffff')).toBeNull();
    expect(reads - before).toBe(2);
  });

  it('reads the database again while its listener is gone, and until it listens again', async () => {
    const key = await aStoredKey();
    await warm(key.id);
    // Every connection of the database ends, the listener's included: notifications could be missed now.
    expect(await terminateConnections(test.name)).toBeGreaterThan(0);
    await expect
      .poll(async () => {
        const before = reads;
        await served.findApiKey(key.id).catch(() => undefined); // the pool's dead connections fail once
        return reads - before;
      })
      .toBe(1);
    // A revocation made before it listens again is seen: the cache was emptied when the listener went.
    await expect.poll(() => operator.revokeApiKey(key.id, new Date('2026-03-01T00:00:00Z')).catch(() => false)).toBe(true);
    expect(await served.findApiKey(key.id)).toMatchObject({ revoked: new Date('2026-03-01T00:00:00Z') });
    await warm(key.id); // and it listens again
    expect(await served.findApiKey(key.id)).toMatchObject({ revoked: new Date('2026-03-01T00:00:00Z') });
  });
});
