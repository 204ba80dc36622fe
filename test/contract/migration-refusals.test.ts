import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresDatabase } from '../../adapters/persistence/postgres/postgres.database.js';
import { SCHEMA_VERSION as POSTGRES_VERSION } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { SCHEMA_VERSION as SQLITE_VERSION } from '../../adapters/persistence/sqlite/sqlite.migration-steps.js';
import { createTestDatabase, POSTGRES_AVAILABLE, testPostgresConfig, type TestDatabase } from '../support/postgres.js';
import { loadPostgresSchema, loadSqliteSchema, shippedSchema } from '../support/shipped-schemas.js';
import { startTestServer } from '../support/test-server.js';

/** A database of one dialect for one case: migrated by this build (or loaded from a shipped schema), changed by plain SQL, then started on. */
interface Target {
  /** The server's settings for it. */
  readonly env: Record<string, string>;
  readonly dataDir: string;
  /** Plain SQL on it, as an operator's sqlite3 or psql. */
  sql<R>(statement: string): Promise<R[]>;
  /** Opens it as the CLI's operator commands do (`migrate: false`): checks only. */
  check(): Promise<void>;
  cleanup(): Promise<void>;
}

interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  readonly available: boolean;
  readonly version: number;
  /** A database this build migrated, or (`from`) one loaded from a shipped schema. */
  target(from?: string): Promise<Target>;
}

const sqlite: Dialect = {
  name: 'sqlite',
  available: true,
  version: SQLITE_VERSION,
  async target(from) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-refusal-'));
    const file = path.join(dataDir, 'vault.db');
    if (from === undefined) openSqliteDatabase({ path: file }).close();
    else loadSqliteSchema(shippedSchema(from), file);
    return {
      env: {},
      dataDir,
      sql: async <R,>(statement: string) => {
        const db = new Database(file);
        try {
          return /^\s*SELECT/i.test(statement) ? (db.prepare(statement).all() as R[]) : (db.exec(statement), []);
        } finally {
          db.close();
        }
      },
      check: async () => {
        openSqliteDatabase({ path: file, migrate: false }).close();
      },
      cleanup: () => rm(dataDir, { recursive: true, force: true }),
    };
  },
};

/** One database for the file's PostgreSQL cases, a schema each. */
let shared: TestDatabase | undefined;
let schemas = 0;
const postgres: Dialect = {
  name: 'postgres',
  available: POSTGRES_AVAILABLE,
  version: POSTGRES_VERSION,
  async target(from) {
    shared ??= await createTestDatabase();
    const url = shared.url;
    const schema = `refusal_${++schemas}`;
    if (from === undefined) await (await openPostgresDatabase(testPostgresConfig(url, { schema }))).close();
    else await loadPostgresSchema(shippedSchema(from), url, schema);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-refusal-'));
    return {
      env: { VAULT_DATABASE_URL: url, VAULT_DATABASE_SCHEMA: schema },
      dataDir,
      sql: async <R,>(statement: string) => {
        const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
        await client.connect();
        try {
          return (await client.query(statement)).rows as R[];
        } finally {
          await client.end();
        }
      },
      check: async () => (await openPostgresDatabase(testPostgresConfig(url, { schema }), { migrate: false })).close(),
      cleanup: () => rm(dataDir, { recursive: true, force: true }),
    };
  },
};
afterAll(() => shared?.drop());

/** What starting a server on it answers: the refusal's message (the start must fail). */
async function refusedAtStart(t: Target): Promise<string> {
  const started = await startTestServer({ dataDir: t.dataDir, env: t.env }).then(
    async (s) => {
      await s.stop({ keepData: true });
      return null;
    },
    (error: unknown) => error as Error & { code?: string },
  );
  expect(started, 'the server started').not.toBeNull();
  expect(started!.code).toBe('DATABASE_UNAVAILABLE');
  return started!.message;
}

const records = (t: Target) => t.sql<{ version: number; name: string | null; checksum: string | null }>('SELECT version, name, checksum FROM wallet_vault_migrations ORDER BY version');

// Issue 47: `serve` (and `migrate`, which runs the same code) refuses, naming the migration and saying
// what to do, a database whose migrations are not a prefix of this build's, and one whose tables are not
// what this build's migrations make; the CLI's other commands (which only check) refuse the same. Nothing
// is changed by a refusal.
for (const d of [sqlite, postgres]) {
  describe.skipIf(!d.available)(`refused at start over ${d.name}`, { timeout: 60_000 }, () => {
    let t: Target;
    beforeAll(async () => {
      t = await d.target();
    });
    afterAll(() => t?.cleanup());

    it('a shipped migration whose SQL changed since it was applied', async () => {
      const original = (await records(t))[11]!.checksum;
      await t.sql(`UPDATE wallet_vault_migrations SET checksum = '${'0'.repeat(64)}' WHERE version = 12`);
      const before = await records(t);
      const message = await refusedAtStart(t);
      expect(message).toMatch(/applied migration 12 "signed-votes" with other SQL than this build's \(checksum 000000000000…, this build's [0-9a-f]{12}…\): a shipped migration was changed; run the build that migrated it, or restore the backup taken before that build ran\. This build changed nothing$/);
      await expect(t.check()).rejects.toThrow(/migration 12 "signed-votes" with other SQL/);
      expect(await records(t)).toEqual(before);
      await t.sql(`UPDATE wallet_vault_migrations SET checksum = '${original}' WHERE version = 12`);
    });

    it('an applied migration this build does not know, in place of one of its own', async () => {
      await t.sql("UPDATE wallet_vault_migrations SET name = 'approvers-console-v2' WHERE version = 14");
      const message = await refusedAtStart(t);
      expect(message).toMatch(/applied migration 14 "approvers-console-v2", which this build does not have \(its 14 is "approvers-console"\): another build migrated it; run the build that migrated it/);
      await expect(t.check()).rejects.toThrow(/"approvers-console-v2"/);
      await t.sql("UPDATE wallet_vault_migrations SET name = 'approvers-console' WHERE version = 14");
    });

    it('a migration past this build (a newer build migrated it: no downgrade)', async () => {
      const applied = d.name === 'sqlite' ? ', applied' : '';
      await t.sql(`INSERT INTO wallet_vault_migrations (version, name, checksum${applied}) VALUES (${d.version + 1}, 'from-a-newer-build', '${'1'.repeat(64)}'${applied ? ', 0' : ''})`);
      if (d.name === 'sqlite') await t.sql(`PRAGMA user_version = ${d.version + 1}`);
      const message = await refusedAtStart(t);
      expect(message).toContain(`has schema version ${d.version + 1}, newer than this build knows (${d.version}); run the newer wallet-vault (its migration ${d.version + 1} is "from-a-newer-build")`);
      await t.sql(`DELETE FROM wallet_vault_migrations WHERE version = ${d.version + 1}`);
      if (d.name === 'sqlite') await t.sql(`PRAGMA user_version = ${d.version}`);
    });

    it('a column missing from the tables, named, instead of an opaque error on every request', async () => {
      await t.sql('ALTER TABLE approval_votes DROP COLUMN signature');
      const message = await refusedAtStart(t);
      expect(message).toMatch(/ does not hold the schema this build expects: column approval_votes\.signature is missing \(this build's: (TEXT|text)\)\. If `wallet-vault migrate` of this build did not bring it, restore the backup/);
      await expect(t.check()).rejects.toThrow(/column approval_votes\.signature is missing/);
    });
  });

  describe.skipIf(!d.available)(`a database of a build before named migrations, over ${d.name}`, { timeout: 60_000 }, () => {
    it('with a difference no earlier build left: refused naming it, nothing changed', async () => {
      const t = await d.target(`${d.name}/14-1f897a0`);
      try {
        await t.sql('ALTER TABLE wallets DROP COLUMN name');
        const message = await refusedAtStart(t);
        expect(message).toMatch(/was migrated by a build before named migrations, and its schema differs from this build's in ways no earlier build of wallet-vault left: column wallets\.name is missing/);
        const bookkeeping = await t.sql<{ name: string }>(
          d.name === 'sqlite' ? "SELECT name FROM sqlite_master WHERE name = 'wallet_vault_migrations'" : "SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'wallet_vault_migrations' AND column_name = 'checksum' AND table_schema = current_schema()",
        );
        expect(bookkeeping, 'the refusal recorded nothing').toEqual([]);
      } finally {
        await t.cleanup();
      }
    });

    it('the CLI (which only checks) refuses it until `wallet-vault migrate` recorded its migrations by name', async () => {
      const t = await d.target(`${d.name}/14-1f897a0`);
      try {
        // (Once a migration is appended after named migrations began, the schema is also older than this build's: said first.)
        await expect(t.check()).rejects.toThrow(/(records its migrations by number only \(a build before named migrations made it\)|older than this build's).*run `wallet-vault migrate`/);
        const server = await startTestServer({ dataDir: t.dataDir, env: t.env });
        await server.stop({ keepData: true });
        await t.check();
        expect((await records(t)).map((r) => r.name)).toEqual(expect.arrayContaining(['initial-schema', 'signed-votes', 'governance', 'approvers-console']));
      } finally {
        await t.cleanup();
      }
    });
  });
}
