import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_CACHE_TTL_MS, PostgresApiKeyCache } from '../../adapters/persistence/postgres/postgres.api-key-cache.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../adapters/persistence/postgres/postgres.database.js';
import { openTestDatabase, POSTGRES_AVAILABLE, terminateConnections, testPostgresConfig, type TestDatabase } from '../support/postgres.js';
import { anApiKey, aVault } from '../support/wallet-mother.js';
import { SqlWalletRepository } from '../../adapters/persistence/sql/sql.wallet-repository.js';
import { PostgresSql, postgresSql } from '../../adapters/persistence/postgres/postgres.sql.js';

describe.skipIf(!POSTGRES_AVAILABLE)('PostgreSQL API key cache: answered from memory, invalidated by the database', () => {
  let test: TestDatabase;
  let cleanup: () => Promise<void>;
  let operator: SqlWalletRepository; // another process's view, as the CLI has
  let db: PostgresDatabase;
  let cache: PostgresApiKeyCache;
  let served: SqlWalletRepository; // a running server's
  let reads = 0;

  beforeAll(async () => {
    const opened = await openTestDatabase();
    ({ test, cleanup } = opened);
    operator = new SqlWalletRepository(postgresSql(opened.db));
    db = await openPostgresDatabase(testPostgresConfig(test.url));
    const query = db.query.bind(db);
    db.query = ((text: string, values?: unknown[]) => {
      if (text.includes('FROM api_keys WHERE id')) reads++;
      return query(text, values);
    }) as typeof db.query;
    cache = new PostgresApiKeyCache(db);
    served = new SqlWalletRepository(new PostgresSql(db, cache));
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

  it('answers a known key from memory, and sees a revocation made by another instance', async () => {
    const key = await aStoredKey();
    await warm(key.id);
    expect(await operator.revokeApiKey(key.id, new Date('2026-02-01T00:00:00Z'))).toBe(true);
    // The NOTIFY arrives with the commit; the next lookups read the revoked record.
    await expect.poll(() => served.findApiKey(key.id)).toMatchObject({ revoked: new Date('2026-02-01T00:00:00Z') });
  });

  it("sees a key's roles changed by another instance (setApiKeyRoles, with its audit record)", async () => {
    const key = await aStoredKey();
    await warm(key.id);
    const recorded = { action: 'api-key.roles-changed', at: new Date(), actor: 'operator:bob', vaultId: key.vaultId, subject: key.id, details: { roles: 'reader', previous: key.roles.join(',') } } as const;
    expect(await operator.setApiKeyRoles(key.id, ['reader'], recorded)).toBe(true);
    // The NOTIFY arrives with the commit: the next lookups read the narrowed record, not the cached one.
    await expect.poll(() => served.findApiKey(key.id)).toMatchObject({ roles: ['reader'] });
  });

  it("carries a key's roles and networks, and sees them narrowed by plain SQL on another connection", async () => {
    const key = await aStoredKey();
    await warm(key.id);
    expect(await served.findApiKey(key.id)).toMatchObject({ roles: ['admin', 'signer', 'reader', 'approver'], allowCidrs: null });
    await sql("UPDATE api_keys SET roles = 'reader', allow_cidrs = '10.0.0.0/8' WHERE id = $1", [key.id]);
    await expect.poll(async () => (await served.findApiKey(key.id))?.roles).toEqual(['reader']);
    expect((await served.findApiKey(key.id))?.allowCidrs?.map((c) => c.text)).toEqual(['10.0.0.0/8']);
  });

  /** Plain SQL on a connection of its own, as an operator or a restore would run it. */
  async function sql(text: string, values: unknown[] = []): Promise<number> {
    const c = new pg.Client({ connectionString: test.url });
    await c.connect();
    try {
      const results = (await c.query(text, values)) as unknown as pg.QueryResult | pg.QueryResult[];
      return (Array.isArray(results) ? results.at(-1)! : results).rowCount ?? 0;
    } finally {
      await c.end();
    }
  }

  /** A cache whose lifetime never ends in this test: only the database's push can drop an entry. */
  function pushOnly() {
    const own = new PostgresApiKeyCache(db, { ttlMs: Number.MAX_SAFE_INTEGER });
    return { own, repo: new SqlWalletRepository(new PostgresSql(db, own)) };
  }

  async function warmIn(repo: SqlWalletRepository, id: string): Promise<void> {
    await expect
      .poll(async () => {
        const before = reads;
        await repo.findApiKey(id);
        return reads - before;
      })
      .toBe(0);
  }

  it('drops a key changed by plain SQL, by the trigger of api_keys: UPDATE, DELETE, and an UPDATE of its id', async () => {
    const { own, repo } = pushOnly();
    try {
      const [revoked, deleted, renamed] = [await aStoredKey(), await aStoredKey(), await aStoredKey()];
      for (const k of [revoked, deleted, renamed]) await warmIn(repo, k.id);
      expect(await sql("UPDATE api_keys SET revoked = '2026-04-01T00:00:00Z' WHERE id = $1", [revoked.id])).toBe(1);
      expect(await sql('DELETE FROM api_keys WHERE id = $1', [deleted.id])).toBe(1);
      expect(await sql("UPDATE api_keys SET id = 'eeeeeeeeeeeeeeee' WHERE id = $1", [renamed.id])).toBe(1);
      await expect.poll(() => repo.findApiKey(revoked.id)).toMatchObject({ revoked: new Date('2026-04-01T00:00:00Z') });
      await expect.poll(() => repo.findApiKey(deleted.id)).toBeNull();
      await expect.poll(() => repo.findApiKey(renamed.id)).toBeNull();
    } finally {
      await own.close();
    }
  });

  it('reads a record again once its lifetime (1 s by default) has passed, also when no notification came', async () => {
    let clock = 0;
    const own = new PostgresApiKeyCache(db, { now: () => clock });
    const repo = new SqlWalletRepository(new PostgresSql(db, own));
    try {
      const key = await aStoredKey();
      await warmIn(repo, key.id);
      const readsOf = async () => {
        const before = reads;
        const record = await repo.findApiKey(key.id);
        return { reads: reads - before, revoked: record?.revoked ?? null };
      };
      // A change the trigger does not see: a restore or replication applies rows with triggers off.
      const update = `UPDATE api_keys SET revoked = '2026-05-01T00:00:00Z' WHERE id = '${key.id}'`; // a hex id
      expect(await sql(`SET session_replication_role = replica; ${update}`)).toBe(1);
      clock += API_KEY_CACHE_TTL_MS - 1;
      expect(await readsOf()).toEqual({ reads: 0, revoked: null }); // still within its lifetime: from memory
      clock += 1;
      expect(await readsOf()).toEqual({ reads: 1, revoked: new Date('2026-05-01T00:00:00Z') }); // read again
      expect(await readsOf()).toEqual({ reads: 0, revoked: new Date('2026-05-01T00:00:00Z') }); // then once per lifetime
      // Many requests of one key when its lifetime ends: one read, shared, never one per request.
      clock += API_KEY_CACHE_TTL_MS;
      const before = reads;
      const all = await Promise.all(Array.from({ length: 50 }, () => repo.findApiKey(key.id)));
      expect(all.every((r) => r?.id === key.id)).toBe(true);
      expect(reads - before).toBe(1);
    } finally {
      await own.close();
    }
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

  it('drops every key on TRUNCATE (the last test here: it empties the table)', async () => {
    const { own, repo } = pushOnly();
    try {
      const key = await aStoredKey();
      await warmIn(repo, key.id);
      await sql('TRUNCATE api_keys');
      await expect.poll(() => repo.findApiKey(key.id)).toBeNull();
    } finally {
      await own.close();
    }
  });
});
