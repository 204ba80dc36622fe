import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresDatabase } from '../../adapters/persistence/postgres/postgres.database.js';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { migrationChecksum, type Migration } from '../../adapters/persistence/sql/migration-history.js';
import type { SchemaMigration } from '../../adapters/persistence/sql/schema-version.js';
import { checkSchema, migrate } from '../../adapters/persistence/sqlite/sqlite.migrator.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../adapters/persistence/sqlite/sqlite.migration-steps.js';
import { createTestDatabase, POSTGRES_AVAILABLE, testPostgresConfig, type TestDatabase } from '../support/postgres.js';

/** test/fixtures/shipped-schemas/lists.json: every list a build of main shipped, by its migrations' checksums, and their SQL. */
interface ShippedLists {
  readonly sql: Readonly<Record<string, string>>;
  readonly builds: readonly { commit: string; last: string; records: string; migrations: readonly string[] }[];
}
const LISTS = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../fixtures/shipped-schemas/lists.json'), 'utf8')) as Record<'sqlite' | 'postgres', ShippedLists>;

/** A database that a sequence of builds migrated, each running the entries of its list past the version it found. */
interface History {
  readonly builds: readonly string[];
  readonly version: number;
  readonly ran: readonly string[];
  readonly records: string;
}

/**
 * Every state a sequence of builds can leave (a database made by one, then migrated by any later ones
 * with longer lists), once each: two sequences that ran the same migrations to the same version leave
 * the same schema. The dumps of shipped-schemas.test.ts are some of these; here are all of them.
 */
function histories(lists: ShippedLists): History[] {
  const found = new Map<string, History>();
  const visit = (at: number, h: History) => {
    const key = `${h.records} ${h.version} ${[...new Set(h.ran)].sort().join(',')}`;
    if (found.has(key)) return;
    found.set(key, h);
    for (const [i, b] of lists.builds.entries()) {
      if (i <= at || b.migrations.length <= h.version || b.records !== h.records) continue;
      visit(i, { builds: [...h.builds, b.commit], version: b.migrations.length, ran: [...h.ran, ...b.migrations.slice(h.version)], records: h.records });
    }
  };
  lists.builds.forEach((b, i) => visit(i, { builds: [b.commit], version: b.migrations.length, ran: b.migrations, records: b.records }));
  return [...found.values()];
}

/** Whether exactly today's first N migrations ran: else the upgrade repairs what the builds left. */
const ranTodays = (h: History, today: readonly Migration[]) => h.ran.length === h.version && h.ran.every((c, i) => c === migrationChecksum(today[i]!.sql));
const named = (h: History) => `${h.builds.join(' then ')} (schema ${h.version})`;

/** What this build's migrate must answer for a history: today's version, and repairs exactly when the history departs from today's list. */
function expectUpgraded(h: History, today: readonly Migration[], done: SchemaMigration | undefined): void {
  expect(done).toMatchObject({ from: h.version, to: today.length });
  if (ranTodays(h, today)) expect(done).not.toHaveProperty('repaired');
  else expect(done!.repaired!.length).toBeGreaterThan(0);
}

// Issue 47: any database a first-parent build of main left, however many later builds migrated it since,
// is brought to this build's schema (migrate checks it against what the migrations make) with nothing lost.
describe('every sequence of shipped builds, then this build', () => {
  describe('sqlite', () => {
    it.each(histories(LISTS.sqlite).map((h) => [named(h), h] as const))('%s', (_, h) => {
      const db = new Database(':memory:');
      try {
        for (const checksum of h.ran) db.exec(LISTS.sqlite.sql[checksum]!);
        // The versions as the last build recorded them.
        db.pragma(`user_version = ${h.version}`);
        expectUpgraded(h, SQLITE_MIGRATIONS, migrate(db));
        expect(checkSchema(db)).toEqual({ from: SQLITE_MIGRATIONS.length, to: SQLITE_MIGRATIONS.length });
      } finally {
        db.close();
      }
    });
  });

  describe.skipIf(!POSTGRES_AVAILABLE)('postgres (one database, a schema per history)', () => {
    let test: TestDatabase;
    beforeAll(async () => {
      test = await createTestDatabase();
    });
    afterAll(() => test?.drop());
    const all = histories(LISTS.postgres);
    it.each(all.map((h, i) => [named(h), h, i] as const))('%s', async (_, h, i) => {
      const schema = `history_${i}`;
      const client = new pg.Client({ connectionString: test.url, options: `-c search_path=${schema}` });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA ${schema}`);
        await client.query(`CREATE TABLE ${h.records} (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())`);
        for (const checksum of h.ran) await client.query(LISTS.postgres.sql[checksum]!);
        await client.query(`INSERT INTO ${h.records} (version) SELECT generate_series(1, $1::int)`, [h.version]);
      } finally {
        await client.end();
      }
      let done: SchemaMigration | undefined;
      const db = await openPostgresDatabase(testPostgresConfig(test.url, { schema, poolSize: 1 }), { onSchema: (v) => (done = v) });
      await db.close();
      expectUpgraded(h, POSTGRES_MIGRATIONS, done);
    });
  });
});
