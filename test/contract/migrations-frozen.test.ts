import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { POSTGRES_EXPECTED_SCHEMA } from '../../adapters/persistence/postgres/postgres.expected-schema.js';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { postgresShapeOf } from '../../adapters/persistence/postgres/postgres.schema-shape.js';
import type { Migration } from '../../adapters/persistence/sql/migration-history.js';
import { departureFromManifest, frozenManifest, type MigrationsManifest } from '../../adapters/persistence/sql/migrations-manifest.js';
import { SQLITE_EXPECTED_SCHEMA } from '../../adapters/persistence/sqlite/sqlite.expected-schema.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../adapters/persistence/sqlite/sqlite.migration-steps.js';
import { sqliteShapeOf } from '../../adapters/persistence/sqlite/sqlite.schema-shape.js';
import { createTestDatabase, POSTGRES_AVAILABLE } from '../support/postgres.js';

const MANIFEST = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../adapters/persistence/migrations.manifest.json'), 'utf8')) as MigrationsManifest;
const LISTS = { sqlite: SQLITE_MIGRATIONS, postgres: POSTGRES_MIGRATIONS };
const FREEZE = 'run `npm run migrations:freeze` and commit what it writes';

// Issue 47: a shipped migration changed under the same number is what broke the databases of 575bb29.
// The manifest freezes every migration's name and checksum; appending is the only change it allows.
describe('shipped migrations are frozen (adapters/persistence/migrations.manifest.json)', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`${dialect}: no frozen migration changed, moved, was renamed or removed`, () => {
      expect(departureFromManifest(dialect, MANIFEST[dialect], LISTS[dialect])).toBeNull();
    });

    it(`${dialect}: every migration is in the manifest (one appended since: ${FREEZE})`, () => {
      expect(LISTS[dialect].slice(MANIFEST[dialect].length).map((m) => m.name), FREEZE).toEqual([]);
    });

    it(`${dialect}: names are unique, lower-case words joined by hyphens`, () => {
      const names = LISTS[dialect].map((m) => m.name);
      expect(new Set(names).size).toBe(names.length);
      for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    });
  }

  // What the test above says when someone edits, reorders or removes a shipped migration.
  const edited = (list: readonly Migration[], at: number, change: (m: Migration) => Migration) => list.map((m, i) => (i === at ? change(m) : m));
  it('names a migration whose SQL changed, one moved (the renumbering of 56ed77a), one renamed and one removed', () => {
    // The first 14, frozen since named migrations began: what a later append does not change.
    const list = SQLITE_MIGRATIONS.slice(0, 14);
    const frozen = MANIFEST.sqlite.slice(0, 14);
    expect(departureFromManifest('sqlite', frozen, edited(list, 11, (m) => ({ ...m, sql: `${m.sql}\n   ALTER TABLE api_keys ADD COLUMN x TEXT;` })))).toMatch(
      /^sqlite migration 12 "signed-votes" changed \(checksum [0-9a-f]{64}, frozen [0-9a-f]{64}\): a shipped migration is never edited/,
    );
    const swapped = [...list.slice(0, 11), list[12]!, list[11]!, ...list.slice(13)];
    expect(departureFromManifest('sqlite', frozen, swapped)).toBe('sqlite migration "signed-votes" moved from 12 to 13: shipped migrations are never reordered; add new ones at the end');
    expect(departureFromManifest('sqlite', frozen, edited(list, 13, (m) => ({ ...m, name: 'console' })))).toMatch(/^sqlite migration 14 is "console", the manifest's is "approvers-console"/);
    expect(departureFromManifest('sqlite', frozen, list.slice(0, -1))).toMatch(/^sqlite migration 14 "approvers-console" is no longer in the list/);
  });

  it('the freeze appends a new migration, and refuses a changed one naming it', () => {
    const frozen = { sqlite: SQLITE_MIGRATIONS.slice(0, MANIFEST.sqlite.length), postgres: POSTGRES_MIGRATIONS.slice(0, MANIFEST.postgres.length) };
    const appended = [...frozen.postgres, { name: 'a-trial-append', sql: 'ALTER TABLE wallets ADD COLUMN trial text;' }];
    const next = frozenManifest(MANIFEST, { sqlite: frozen.sqlite, postgres: appended });
    expect(next.postgres.slice(0, -1)).toEqual(MANIFEST.postgres);
    expect(next.postgres.at(-1)).toEqual({ version: MANIFEST.postgres.length + 1, name: 'a-trial-append', checksum: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(() => frozenManifest(MANIFEST, { sqlite: frozen.sqlite, postgres: edited(appended, 0, (m) => ({ ...m, sql: m.sql.replace('accounts', 'acounts') })) })).toThrow(
      /postgres migration 1 "initial-schema" changed/,
    );
  });
});

// The start-up check compares a database with the schema the build expects; that schema is generated
// from the migrations, and must be what they make today.
describe('the expected schema is what the migrations make', () => {
  it(`sqlite (else ${FREEZE})`, () => {
    expect(sqliteShapeOf(SQLITE_MIGRATIONS), FREEZE).toEqual(SQLITE_EXPECTED_SCHEMA);
  });

  it.skipIf(!POSTGRES_AVAILABLE)(`postgres (else ${FREEZE})`, async () => {
    const test = await createTestDatabase();
    const client = new pg.Client({ connectionString: test.url });
    await client.connect();
    try {
      expect(await postgresShapeOf(client, POSTGRES_MIGRATIONS), FREEZE).toEqual(POSTGRES_EXPECTED_SCHEMA);
    } finally {
      await client.end();
      await test.drop();
    }
  });
});
