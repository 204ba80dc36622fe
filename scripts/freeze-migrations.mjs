#!/usr/bin/env node
// `npm run migrations:freeze`: after a migration was appended to
// sqlite.migration-steps.ts or postgres.migration-steps.ts, adds it (name and checksum) to
// adapters/persistence/migrations.manifest.json and writes the schema the build then expects
// (sqlite.expected-schema.ts, postgres.expected-schema.ts: what the start-up check compares a database
// with), from the migrations run on a new in-memory SQLite database and a new PostgreSQL database
// (VAULT_TEST_POSTGRES_URL, else postgres://postgres@127.0.0.1:5432/postgres, as the tests use).
// Appending is all it does to the manifest: an entry that changed, moved or went away stops it, naming
// the migration (a shipped migration is never edited; test/contract/migrations-frozen.test.ts says the same).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const persistence = (...parts) => path.join(root, 'adapters', 'persistence', ...parts);
const compiled = (module) => import(path.join(root, 'dist', 'adapters', 'persistence', module));
const MANIFEST = persistence('migrations.manifest.json');

const { MIGRATIONS: sqliteList } = await compiled('sqlite/sqlite.migration-steps.js');
const { MIGRATIONS: postgresList } = await compiled('postgres/postgres.migration-steps.js');
const { frozenManifest, expectedSchemaFileText } = await compiled('sql/migrations-manifest.js');
const { sqliteShapeOf } = await compiled('sqlite/sqlite.schema-shape.js');
const { postgresShapeOf } = await compiled('postgres/postgres.schema-shape.js');

const previous = existsSync(MANIFEST) ? JSON.parse(readFileSync(MANIFEST, 'utf8')) : { sqlite: [], postgres: [] };
let manifest;
try {
  manifest = frozenManifest(previous, { sqlite: sqliteList, postgres: postgresList });
} catch (error) {
  console.error(`freeze-migrations: ${error.message}`);
  process.exit(1);
}

const admin = process.env.VAULT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `wallet_vault_freeze_${randomBytes(4).toString('hex')}`;
const run = async (url, work) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};
await run(admin, (c) => c.query(`CREATE DATABASE ${name}`));
let postgres;
try {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  postgres = await run(url.toString(), (c) => postgresShapeOf(c, postgresList));
} finally {
  await run(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
writeFileSync(persistence('sqlite', 'sqlite.expected-schema.ts'), expectedSchemaFileText('SQLITE_EXPECTED_SCHEMA', 'SQLite', sqliteShapeOf(sqliteList)));
writeFileSync(persistence('postgres', 'postgres.expected-schema.ts'), expectedSchemaFileText('POSTGRES_EXPECTED_SCHEMA', 'PostgreSQL', postgres));
const added = (d) => manifest[d].length - previous[d].length;
console.log(`migrations.manifest.json: sqlite ${manifest.sqlite.length} migrations (${added('sqlite')} added), postgres ${manifest.postgres.length} (${added('postgres')} added); expected schemas written`);
