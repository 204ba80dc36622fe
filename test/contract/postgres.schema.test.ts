import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresApiKeyCache } from '../../adapters/persistence/postgres/postgres.api-key-cache.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../adapters/persistence/postgres/postgres.database.js';
import { SCHEMA_VERSION } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { postgresPersistence } from '../../adapters/persistence/postgres/index.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { createTestDatabase, POSTGRES_AVAILABLE, testPostgresConfig, type TestDatabase } from '../support/postgres.js';
import { anApiKey, aVault } from '../support/wallet-mother.js';
import { SqlWalletRepository } from '../../adapters/persistence/sql/sql.wallet-repository.js';
import { PostgresSql, postgresSql } from '../../adapters/persistence/postgres/postgres.sql.js';

const ALL_VERSIONS = Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1);

/** A fresh database, handed to `work` with a plain client on it (the operator's psql), dropped afterwards. */
async function withDatabase(work: (test: TestDatabase, sql: pg.Client) => Promise<void>): Promise<void> {
  const test = await createTestDatabase();
  const sql = new pg.Client({ connectionString: test.url });
  await sql.connect();
  try {
    await work(test, sql);
  } finally {
    await sql.end();
    await test.drop();
  }
}

/** Relations (tables, indexes, sequences) and functions in `schema`, by name. */
async function objectsIn(sql: pg.Client, schema: string): Promise<string[]> {
  const { rows } = await sql.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
     UNION ALL SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1
     ORDER BY 1`,
    [schema],
  );
  return rows.map((r) => r.name);
}

const versions = async (sql: pg.Client, table: string) =>
  (await sql.query<{ version: number }>(`SELECT version FROM ${table} ORDER BY version`)).rows.map((r) => r.version);

async function aVaultWithKey(db: PostgresDatabase) {
  const repo = new SqlWalletRepository(postgresSql(db));
  const vault = aVault();
  await repo.ensureAccount(vault.accountId, new Date());
  await repo.insertVault(vault);
  const key = anApiKey(vault);
  await repo.insertApiKey(key);
  return { vault, key };
}

describe.skipIf(!POSTGRES_AVAILABLE)('PostgreSQL inside a database other tools use too', () => {
  it("starts beside golang-migrate's schema_migrations (version bigint, dirty boolean), never writing into it", () =>
    withDatabase(async (test, sql) => {
      await sql.query('CREATE TABLE schema_migrations (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL)');
      await sql.query('INSERT INTO schema_migrations VALUES (3, false)');
      const db = await openPostgresDatabase(testPostgresConfig(test.url));
      try {
        await aVaultWithKey(db);
        expect((await sql.query('SELECT version, dirty FROM schema_migrations')).rows).toEqual([{ version: '3', dirty: false }]);
        expect(await versions(sql, 'wallet_vault_migrations')).toEqual(ALL_VERSIONS);
      } finally {
        await db.close();
      }
    }));

  it('starts beside a schema_migrations (id serial, name text) of another tool, never writing into it', () =>
    withDatabase(async (test, sql) => {
      await sql.query('CREATE TABLE schema_migrations (id serial PRIMARY KEY, name text NOT NULL)');
      await sql.query("INSERT INTO schema_migrations (name) VALUES ('0001_init.sql'), ('0002_users.sql')");
      for (let start = 0; start < 2; start++) await (await openPostgresDatabase(testPostgresConfig(test.url))).close();
      expect((await sql.query('SELECT id, name FROM schema_migrations ORDER BY id')).rows).toEqual([
        { id: 1, name: '0001_init.sql' },
        { id: 2, name: '0002_users.sql' },
      ]);
      expect(await versions(sql, 'wallet_vault_migrations')).toEqual(ALL_VERSIONS);
    }));

  it("refuses another tool's wallets table, naming the schema and the table and pointing at the schema setting, and writes nothing", () =>
    withDatabase(async (test, sql) => {
      await sql.query('CREATE TABLE wallets (id serial PRIMARY KEY, owner text, balance numeric)');
      const error = await openPostgresDatabase(testPostgresConfig(test.url)).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
      expect((error as Error).message).toMatch(/schema "public".*table "wallets".*not one wallet-vault made/);
      expect((error as Error).message).toMatch(/VAULT_DATABASE_SCHEMA/);
      expect(await objectsIn(sql, 'public')).toEqual(['wallets', 'wallets_id_seq', 'wallets_pkey']);
      // Another schema of the same database is the way out.
      const db = await openPostgresDatabase(testPostgresConfig(test.url, { schema: 'vault' }));
      await db.close();
    }));

  it("schema 'vault' (created if missing) holds every table, index, the trigger function and the migrations table; public gets nothing", () =>
    withDatabase(async (test, sql) => {
      const db = await openPostgresDatabase(testPostgresConfig(test.url, { schema: 'vault' }));
      // A lifetime far beyond the test: only the trigger's notification can make the cache read the key again.
      const cache = new PostgresApiKeyCache(db, { ttlMs: 3_600_000 });
      try {
        const { key } = await aVaultWithKey(db);
        expect(await objectsIn(sql, 'public')).toEqual([]);
        const inVault = await objectsIn(sql, 'vault');
        for (const name of ['accounts', 'api_keys', 'vaults', 'wallets', 'audit_log', 'sign_policies', 'deployment', 'wallet_vault_migrations', 'wallet_vault_api_keys_changed'])
          expect(inVault).toContain(name);
        expect(await versions(sql, 'vault.wallet_vault_migrations')).toEqual(ALL_VERSIONS);
        // The trigger function works there: a change made with plain SQL reaches the cache's listener.
        const repo = new SqlWalletRepository(new PostgresSql(db, cache));
        expect(await repo.findApiKey(key.id)).toMatchObject({ revoked: null });
        await expect.poll(async () => (await repo.findApiKey(key.id), (cache as unknown as { listening: boolean }).listening)).toBe(true);
        await sql.query('UPDATE vault.api_keys SET revoked = now() WHERE id = $1', [key.id]);
        await expect.poll(async () => (await repo.findApiKey(key.id))?.revoked).not.toBeNull();
      } finally {
        await cache.close();
        await db.close();
      }
    }));

  it("the schema wins over a search_path in the URL's own options, which keep their other settings", () =>
    withDatabase(async (test, sql) => {
      const url = `${test.url}?options=${encodeURIComponent('-c search_path=public -c lock_timeout=4321')}&application_name=x`;
      const db = await openPostgresDatabase(testPostgresConfig(url, { schema: 'vault' }));
      try {
        const { rows } = await db.query<{ path: string; lock: string }>("SELECT current_setting('search_path') AS path, current_setting('lock_timeout') AS lock");
        expect(rows).toEqual([{ path: 'vault', lock: '4321ms' }]);
        expect(await objectsIn(sql, 'public')).toEqual([]);
      } finally {
        await db.close();
      }
    }));

  it('many instances starting at once on a new schema create it and migrate once', () =>
    withDatabase(async (test, sql) => {
      const opened = await Promise.all(Array.from({ length: 5 }, () => openPostgresDatabase(testPostgresConfig(test.url, { schema: 'vault', poolSize: 1 }))));
      await Promise.all(opened.map((db) => db.close()));
      expect(await versions(sql, 'vault.wallet_vault_migrations')).toEqual(ALL_VERSIONS);
    }));

  it('upgrades a database of the previous release (versions in schema_migrations) in place, keeping its data', () =>
    withDatabase(async (test, sql) => {
      const before = await openPostgresDatabase(testPostgresConfig(test.url));
      const { vault, key } = await aVaultWithKey(before);
      await before.close();
      // As the release that recorded its versions in schema_migrations left it: schema 4, no migration 5, 6, 7, 8 or 9.
      await sql.query('DROP TABLE approval_votes; DROP TABLE approvals; ALTER TABLE api_keys DROP COLUMN approver_group, DROP COLUMN approver_address; DROP TABLE deployment; DROP TABLE quarantined_keys; DROP TABLE sign_count_keys; DROP TABLE sign_counts; DROP TABLE request_rates');
      await sql.query('DROP TABLE webhook_endpoints; DROP TABLE webhook_undeliverable; DROP TABLE webhook_signing_key');
      await sql.query('ALTER TABLE api_keys DROP COLUMN roles, DROP COLUMN allow_cidrs');
      await sql.query('DELETE FROM wallet_vault_migrations WHERE version > 4');
      // The previous release's table had the version and when it was applied, not the names.
      await sql.query('ALTER TABLE wallet_vault_migrations DROP COLUMN name, DROP COLUMN checksum');
      await sql.query('ALTER TABLE wallet_vault_migrations RENAME TO schema_migrations');
      await sql.query('ALTER INDEX wallet_vault_migrations_pkey RENAME TO schema_migrations_pkey');
      const after = await openPostgresDatabase(testPostgresConfig(test.url));
      try {
        const repo = new SqlWalletRepository(postgresSql(after));
        expect(await repo.findVault(vault.id)).toEqual(vault);
        expect(await repo.findApiKey(key.id)).toMatchObject({ id: key.id });
        expect(await versions(sql, 'wallet_vault_migrations')).toEqual(ALL_VERSIONS);
        // Left as it was: the previous release, started again (a rollback), still finds its versions.
        expect(await versions(sql, 'schema_migrations')).toEqual(ALL_VERSIONS.slice(0, 4));
        // Its keys hold every role (migration 6).
        expect((await repo.findApiKey(key.id))?.roles).toEqual(['admin', 'signer', 'reader', 'approver']);
        expect((await sql.query('SELECT count(*)::int AS n FROM deployment')).rows).toEqual([{ n: 1 }]);
        expect((await sql.query('SELECT count(*)::int AS n FROM sign_counts')).rows).toEqual([{ n: 0 }]);
      } finally {
        await after.close();
      }
      const again = await openPostgresDatabase(testPostgresConfig(test.url));
      await again.close();
      expect(await versions(sql, 'wallet_vault_migrations')).toEqual(ALL_VERSIONS);
    }));

  it("refuses a schema_migrations with our version numbers when the tables it claims are another tool's", () =>
    withDatabase(async (test, sql) => {
      await sql.query('CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())');
      await sql.query('INSERT INTO schema_migrations (version) VALUES (1), (2)');
      await sql.query('CREATE TABLE wallets (id text PRIMARY KEY, owner text)');
      const error = await openPostgresDatabase(testPostgresConfig(test.url)).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/schema "public".*table "wallets".*not one wallet-vault made/);
      expect(await versions(sql, 'schema_migrations')).toEqual([1, 2]);
      expect(await objectsIn(sql, 'public')).not.toContain('wallet_vault_migrations');
    }));

  it("with the application's own pool, its connections' search_path picks the schema; one naming no schema that exists is refused clearly", () =>
    withDatabase(async (test, sql) => {
      const pool = new pg.Pool({ connectionString: test.url, max: 2, options: '-c search_path=app_vault' });
      try {
        const error = await postgresPersistence({ pool }).catch((e: unknown) => e);
        expect((error as Error).message).toMatch(/search_path names no schema that exists.*VAULT_DATABASE_SCHEMA/);
        await sql.query('CREATE SCHEMA app_vault');
        const persistence = await postgresPersistence({ pool });
        await persistence.close();
        expect(await objectsIn(sql, 'app_vault')).toContain('wallet_vault_migrations');
        expect(await objectsIn(sql, 'public')).toEqual([]);
      } finally {
        await pool.end();
      }
    }));

  it('postgresPersistence: schema puts the tables there; a bad identifier or a schema with your own pool is refused naming the option', async () => {
    await withDatabase(async (test, sql) => {
      const persistence = await postgresPersistence({ connectionString: test.url, schema: 'tenant_a', poolSize: 2 });
      await persistence.close();
      expect(persistence.description).toMatch(new RegExp(`^PostgreSQL database "${test.name}" on .*, schema "tenant_a"$`));
      expect(await objectsIn(sql, 'tenant_a')).toContain('wallets');
      expect(await objectsIn(sql, 'public')).toEqual([]);
    });
    for (const schema of ['Vault', 'a-b', 'x; DROP TABLE wallets', 'pg_vault', '', 'a'.repeat(64)])
      await expect(postgresPersistence({ connectionString: 'postgres://nobody@127.0.0.1:1/none', schema })).rejects.toThrow(/schema:/);
    const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
    await expect(postgresPersistence({ pool, schema: 'vault' } as never)).rejects.toThrow(/schema.*search_path/);
    await pool.end();
  });
});
