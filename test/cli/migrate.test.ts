import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION as POSTGRES_VERSION } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { SCHEMA_VERSION as SQLITE_VERSION } from '../../adapters/persistence/sqlite/sqlite.migration-steps.js';
import { migrateStore, runCli, type CliResult } from '../support/cli.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';

/** No store from the test runner's own environment leaks in. */
const NO_STORE = { VAULT_DATA_DIR: '', VAULT_DATABASE_URL: '', VAULT_DATABASE_SCHEMA: '' };
const jsonError = (r: CliResult) => JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { error: string; code: string };

/** The file as a build of schema `version` left it: an older one lacks the later migrations' records, a newer one (a number past ours) has one this build does not know. */
function setUserVersion(file: string, version: number): void {
  const db = new Database(file);
  db.prepare('DELETE FROM wallet_vault_migrations WHERE version > ?').run(version);
  db.pragma(`user_version = ${version}`);
  db.close();
}

// Issue 39, item 3: only `serve` and `migrate` create or change tables; a read-only command on a
// database without the vault's tables, or at an older version, refuses naming `migrate` and where it looked.
describe('wallet-vault migrate, and the commands that do not migrate', { timeout: 120_000 }, () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'wallet-vault-migrate-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('SQLite: a command on an empty data directory exits 1 naming migrate and creates no file; migrate creates it, twice is a no-op', async () => {
    const dataDir = path.join(root, 'sqlite');
    await mkdir(dataDir);
    const env = { ...NO_STORE, VAULT_DATA_DIR: dataDir };
    for (const args of [['vaults', 'list'], ['vaults', 'create', '--name', 'early'], ['api-keys', 'list', '--vault', 'v'], ['audit', 'verify'], ['webhooks', 'list', '--vault', 'v']]) {
      const r = await runCli([...args, '--json'], env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(jsonError(r).error).toContain(dataDir);
      expect(jsonError(r).error).toContain('`wallet-vault migrate`');
    }
    expect(await readdir(dataDir)).toEqual([]);

    expect(await migrateStore(env)).toEqual({ database: path.join(dataDir, 'vault.db'), from: 0, to: SQLITE_VERSION });
    expect(await migrateStore(env)).toEqual({ database: path.join(dataDir, 'vault.db'), from: SQLITE_VERSION, to: SQLITE_VERSION });
    const human = await runCli(['migrate'], env);
    expect(human.stdout).toBe(`${path.join(dataDir, 'vault.db')} is at schema version ${SQLITE_VERSION}: nothing to do\n`);
    const listed = await runCli(['vaults', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it('SQLite: an older schema version is refused naming both versions, not migrated; migrate brings it up; a newer one is refused', async () => {
    const dataDir = path.join(root, 'older');
    const env = { ...NO_STORE, VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    const file = path.join(dataDir, 'vault.db');
    // The schema as the release before the last migration left it: without the columns that migration adds.
    const before = new Database(file);
    before.exec('ALTER TABLE approvals DROP COLUMN blocked_by; ALTER TABLE approvals DROP COLUMN blocked_code; ALTER TABLE approvals DROP COLUMN blocked_message; ALTER TABLE approvals DROP COLUMN blocked_at;');
    before.close();
    setUserVersion(file, SQLITE_VERSION - 1);
    const refused = await runCli(['vaults', 'list', '--json'], env);
    expect(refused.code).toBe(1);
    expect(jsonError(refused).error).toContain(`${file} has schema version ${SQLITE_VERSION - 1}, older than this build's ${SQLITE_VERSION}: if it is the right database, run \`wallet-vault migrate\``);
    const still = new Database(file, { readonly: true });
    expect(still.pragma('user_version', { simple: true }), 'the refusal changed nothing').toBe(SQLITE_VERSION - 1);
    still.close();

    expect(await migrateStore(env)).toEqual({ database: file, from: SQLITE_VERSION - 1, to: SQLITE_VERSION });
    expect((await runCli(['vaults', 'list'], env)).code).toBe(0);

    setUserVersion(file, SQLITE_VERSION + 1);
    const newer = await runCli(['migrate', '--json'], env);
    expect(newer.code).toBe(1);
    expect(jsonError(newer).error).toContain(`newer than this build knows (${SQLITE_VERSION}); run the newer wallet-vault`);
  });

  it('SQLite: a data directory that does not exist is not created', async () => {
    const dataDir = path.join(root, 'nowhere');
    const r = await runCli(['vaults', 'list'], { ...NO_STORE, VAULT_DATA_DIR: dataDir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('`wallet-vault migrate`');
    expect(existsSync(dataDir)).toBe(false);
  });

  it.skipIf(!POSTGRES_AVAILABLE)('PostgreSQL: a command on a schema without the tables exits 1 naming the schema and creates nothing; then migrate, then it works', async () => {
    let db: TestDatabase | undefined;
    const admin = async <T>(sql: string, values: unknown[] = []) => {
      const client = new pg.Client({ connectionString: db!.url });
      await client.connect();
      try {
        return (await client.query<T & pg.QueryResultRow>(sql, values)).rows;
      } finally {
        await client.end();
      }
    };
    const created = async () =>
      admin<{ n: number }>("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')");
    try {
      db = await createTestDatabase();
      const forgotten = { ...NO_STORE, VAULT_DATABASE_URL: db.url };
      const env = { ...forgotten, VAULT_DATABASE_SCHEMA: 'vault' };

      // The forgotten VAULT_DATABASE_SCHEMA of the issue: a read-only command, the default schema.
      const inPublic = await runCli(['vaults', 'list', '--json'], forgotten);
      expect(inPublic.code).toBe(1);
      expect(jsonError(inPublic).error).toMatch(new RegExp(`^PostgreSQL database "${db.name}" on 127\\.0\\.0\\.1:5432, schema "public" \\(the search_path's.*VAULT_DATABASE_SCHEMA\\) holds no wallet-vault tables: .*\`wallet-vault migrate\``));
      const missing = await runCli(['vaults', 'list', '--json'], env);
      expect(missing.code).toBe(1);
      expect(jsonError(missing).error).toContain(`PostgreSQL database "${db.name}" on 127.0.0.1:5432: schema "vault" does not exist: if it is the right database, run \`wallet-vault migrate\``);
      expect(await created()).toEqual([{ n: 0 }]);
      expect(await admin("SELECT nspname FROM pg_namespace WHERE nspname = 'vault'")).toEqual([]);

      const database = `PostgreSQL database "${db.name}" on 127.0.0.1:5432`;
      expect(await migrateStore(env)).toEqual({ database, schema: 'vault', from: 0, to: POSTGRES_VERSION });
      expect(await migrateStore(env)).toEqual({ database, schema: 'vault', from: POSTGRES_VERSION, to: POSTGRES_VERSION });
      expect(await admin<{ n: number }>("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'")).toEqual([{ n: 0 }]);
      const listed = await runCli(['vaults', 'list', '--json'], env);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([]);

      // An older version: refused, not migrated.
      await admin('DELETE FROM vault.wallet_vault_migrations WHERE version = $1', [POSTGRES_VERSION]);
      const older = await runCli(['vaults', 'list', '--json'], env);
      expect(older.code).toBe(1);
      expect(jsonError(older).error).toContain(`schema "vault" has schema version ${POSTGRES_VERSION - 1}, older than this build's ${POSTGRES_VERSION}: if it is the right database, run \`wallet-vault migrate\``);
      expect(await admin('SELECT max(version) AS v FROM vault.wallet_vault_migrations')).toEqual([{ v: POSTGRES_VERSION - 1 }]);
      expect(await migrateStore(env)).toEqual({ database, schema: 'vault', from: POSTGRES_VERSION - 1, to: POSTGRES_VERSION });
      expect((await runCli(['vaults', 'list'], env)).code).toBe(0);
    } finally {
      await db?.drop();
    }
  });
});

describe('the persistence factories: migrate: false checks only', () => {
  it('sqlitePersistence refuses a missing file without creating it or its directory; the default creates and migrates it', async () => {
    const { sqlitePersistence } = await import('../../adapters/persistence/sqlite/index.js');
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-migrate-lib-'));
    try {
      const file = path.join(dir, 'sub', 'vault.db');
      await expect(sqlitePersistence({ path: file, migrate: false })).rejects.toMatchObject({
        code: 'DATABASE_UNAVAILABLE',
        message: expect.stringContaining(`SQLite ${file} does not exist: if it is the right database, run \`wallet-vault migrate\``),
      });
      expect(existsSync(path.join(dir, 'sub'))).toBe(false);
      await (await sqlitePersistence({ path: file })).close();
      await (await sqlitePersistence({ path: file, migrate: false })).close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
