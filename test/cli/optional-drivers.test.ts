import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { hidePackages, type HiddenPackages } from '../support/hidden-packages.js';
import { POSTGRES_AVAILABLE, createTestDatabase, type TestDatabase } from '../support/postgres.js';

/** The CLI where an optional driver is not installed (better-sqlite3 and pg are optional peer dependencies). */
describe('wallet-vault without a database driver', () => {
  let dir: string;
  let noSqlite: HiddenPackages;
  let noPg: HiddenPackages;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-drivers-'));
    noSqlite = await hidePackages(['better-sqlite3']);
    noPg = await hidePackages(['pg']);
  });
  afterAll(async () => {
    await noSqlite.remove();
    await noPg.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('serve on SQLite without better-sqlite3 stops as a configuration error naming the package and the command that installs it', async () => {
    const r = await runCli(['serve'], { VAULT_DATA_DIR: path.join(dir, 'sqlite'), PORT: '0', NODE_OPTIONS: noSqlite.nodeOptions });
    expect(r.stderr).toContain('wallet-vault/persistence/sqlite needs the package better-sqlite3, which is not installed: npm install better-sqlite3');
    expect(r.stderr).toContain('VAULT_DATABASE_URL is not set');
    expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
    expect(r.code).toBe(2);
  });

  it('serve on PostgreSQL without pg stops the same way (a configuration error, not an unexpected one)', async () => {
    const r = await runCli(['serve'], {
      VAULT_DATA_DIR: path.join(dir, 'pg'),
      VAULT_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      PORT: '0',
      NODE_OPTIONS: noPg.nodeOptions,
    });
    expect(r.stderr).toContain('wallet-vault/persistence/postgres needs the package pg, which is not installed: npm install pg');
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.code).toBe(2);
  });

  describe.skipIf(!POSTGRES_AVAILABLE)('on PostgreSQL', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(async () => {
      await db?.drop();
    });

    it('needs no better-sqlite3: an operator command opens the database and answers', async () => {
      const env = { VAULT_DATA_DIR: path.join(dir, 'pg-only'), VAULT_DATABASE_URL: db.url, NODE_OPTIONS: noSqlite.nodeOptions };
      expect((await runCli(['migrate'], env)).stderr).not.toMatch(/better-sqlite3|error/i);
      const created = await runCli(['vaults', 'create', '--name', 'postgres-only', '--json'], env);
      expect(created.stderr).not.toMatch(/better-sqlite3|error/i);
      expect(created.code).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ name: 'postgres-only' });
    });
  });
});
