import type Database from 'better-sqlite3';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import { describeRepair, planRepairs } from '../sql/legacy-layouts.js';
import { namedRecords, verifyHistory, type AppliedMigration } from '../sql/migration-history.js';
import { schemaDifferences, schemaMismatch } from '../sql/schema-shape.js';
import { notMigrated, type SchemaMigration } from '../sql/schema-version.js';
import { SQLITE_EXPECTED_SCHEMA } from './sqlite.expected-schema.js';
import { sqliteLegacyLayouts } from './sqlite.legacy-layouts.js';
import { MIGRATIONS } from './sqlite.migration-steps.js';
import { MIGRATIONS_TABLE, readSqliteShape } from './sqlite.schema-shape.js';

/**
 * Brings the schema up to date in one IMMEDIATE transaction, and checks it is this build's. Refuses
 * (changing nothing) a database whose recorded migrations are not a prefix of this list, by name and
 * checksum, or that a newer build migrated. A database from before named migrations (a user_version
 * only) is adopted: each number taken as this build's migration of that number, the rest applied, and
 * what an earlier build left differently (sqliteLegacyLayouts) repaired, all in the same transaction.
 */
export function migrate(db: Database.Database): SchemaMigration {
  return db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, checksum TEXT NOT NULL, applied INTEGER NOT NULL)`);
    const history = verifyHistory(db.name, MIGRATIONS, appliedMigrations(db));
    for (let v = history.version; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]!.sql);
    const repaired = history.unnamed > 0 ? repairLegacy(db) : [];
    const insert = db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (version, name, checksum, applied) VALUES (?, ?, ?, ?)`);
    const now = Date.now();
    for (const r of namedRecords(MIGRATIONS, history.version - history.unnamed, MIGRATIONS.length)) insert.run(r.version, r.name, r.checksum, now);
    // Written only when it moves: setting it rewrites the file's header, a commit for nothing at each start.
    if (history.version !== MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
    assertExpectedSchema(db);
    return { from: history.version, to: MIGRATIONS.length, ...(repaired.length > 0 ? { repaired } : {}) };
  }).immediate();
}

/**
 * Checks, changing nothing, that the schema is exactly this build's (openSqliteDatabase's `migrate:
 * false`): its migrations recorded by name as this build's, and its tables, columns, indexes and
 * triggers as this build's migrations make them.
 */
export function checkSchema(db: Database.Database): SchemaMigration {
  const history = verifyHistory(db.name, MIGRATIONS, appliedMigrations(db));
  if (history.version < MIGRATIONS.length) throw notMigrated(`SQLite ${db.name}`, history.version, MIGRATIONS.length);
  if (history.unnamed > 0) throw notMigrated(`SQLite ${db.name}`, 'unnamed', MIGRATIONS.length);
  assertExpectedSchema(db);
  return { from: history.version, to: history.version };
}

/**
 * The migrations recorded by name, then (up to PRAGMA user_version) those recorded by number only, by a
 * build before named migrations. A user_version below the named ones was set by hand: refused.
 */
function appliedMigrations(db: Database.Database): AppliedMigration[] {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE) !== undefined;
  const named = hasTable ? (db.prepare(`SELECT version, name, checksum FROM ${MIGRATIONS_TABLE} ORDER BY version`).all() as AppliedMigration[]) : [];
  const counted = db.pragma('user_version', { simple: true }) as number;
  const last = named.at(-1)?.version ?? 0;
  if (counted < last) {
    throw new DomainError(
      ErrorCode.DATABASE_UNAVAILABLE,
      `${db.name} records ${last} migrations by name but PRAGMA user_version is ${counted}: restore the backup taken before the last upgrade. This build changed nothing`,
    );
  }
  return [...named, ...Array.from({ length: counted - last }, (_, i) => ({ version: last + i + 1, name: null, checksum: null }))];
}

/** What a build before named migrations left differently from this build's schema, repaired (sqliteLegacyLayouts); what none left is refused. */
function repairLegacy(db: Database.Database): string[] {
  const differences = schemaDifferences(SQLITE_EXPECTED_SCHEMA, readSqliteShape(db));
  const planned = planRepairs(db.name, sqliteLegacyLayouts(MIGRATIONS), differences);
  for (const repair of planned) db.exec(repair.sql);
  return planned.map(describeRepair);
}

function assertExpectedSchema(db: Database.Database): void {
  const differences = schemaDifferences(SQLITE_EXPECTED_SCHEMA, readSqliteShape(db));
  if (differences.length > 0) throw schemaMismatch(`SQLite ${db.name}`, differences);
}
