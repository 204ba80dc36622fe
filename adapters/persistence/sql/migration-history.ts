import { createHash } from 'node:crypto';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import { newerThanBuild } from './schema-version.js';

/**
 * One schema change: a name that says what it does, never reused, and its SQL. A migration is known by
 * both: the database records the name and the checksum of the SQL it ran, so an edited, missing,
 * reordered or foreign migration is seen instead of being skipped because its number was taken.
 */
export interface Migration {
  readonly name: string;
  readonly sql: string;
}

/** sha256 of the SQL exactly as run (comments and spacing included: a shipped migration is never edited). */
export const migrationChecksum = (sql: string): string => createHash('sha256').update(sql, 'utf8').digest('hex');

/** The migration at `version` (1-based) as the database recorded it; name and checksum null: a build before named migrations recorded its number only. */
export interface AppliedMigration {
  readonly version: number;
  readonly name: string | null;
  readonly checksum: string | null;
}

/** What the recorded history holds against this build's list, once it is known to be a prefix of it. */
export interface VerifiedHistory {
  /** The highest version recorded (0: a new database). */
  readonly version: number;
  /**
   * Versions recorded by number only (after the named ones): a database from before named migrations,
   * adopted by mapping each number to this build's migration of that number (LegacyLayouts say what
   * earlier builds left under those numbers, and how it is repaired).
   */
  readonly unnamed: number;
}

const short = (checksum: string) => checksum.slice(0, 12);

/**
 * Checks that what the database applied is a prefix of `build`, by name and checksum: refuses (naming
 * the migration and what to do) one whose SQL changed, one this build does not know, one out of order,
 * a gap, and a database a newer build migrated. `where` names the database in the messages.
 */
export function verifyHistory(where: string, build: readonly Migration[], applied: readonly AppliedMigration[]): VerifiedHistory {
  const byVersion = new Map(applied.map((m) => [m.version, m]));
  const version = applied.reduce((max, m) => Math.max(max, m.version), 0);
  let named = 0;
  for (let v = 1; v <= version; v++) {
    const recorded = byVersion.get(v);
    if (recorded === undefined) {
      throw refused(where, `records migrations up to ${version} but not migration ${v}`, 'restore the backup taken before the last upgrade');
    }
    const ours = build[v - 1];
    if (recorded.name === null) continue;
    if (v > named + 1) {
      throw refused(where, `records migration ${v} "${recorded.name}" by name after migration ${named + 1} by number only`, 'restore the backup taken before the last upgrade');
    }
    named = v;
    if (ours === undefined) continue; // newer than this build: refused below, naming the first it does not know
    if (recorded.name !== ours.name) {
      const elsewhere = build.findIndex((m) => m.name === recorded.name);
      throw refused(
        where,
        elsewhere >= 0
          ? `applied "${recorded.name}" as migration ${v}, which is migration ${elsewhere + 1} in this build ("${ours.name}" is its ${v})`
          : `applied migration ${v} "${recorded.name}", which this build does not have (its ${v} is "${ours.name}"): another build migrated it`,
        'run the build that migrated it, or restore the backup taken before that build ran',
      );
    }
    const checksum = migrationChecksum(ours.sql);
    if (recorded.checksum !== checksum) {
      throw refused(
        where,
        `applied migration ${v} "${ours.name}" with other SQL than this build's (checksum ${short(recorded.checksum ?? '')}…, this build's ${short(checksum)}…): a shipped migration was changed`,
        'run the build that migrated it, or restore the backup taken before that build ran',
      );
    }
  }
  if (version > build.length) {
    const first = byVersion.get(build.length + 1)?.name;
    const error = newerThanBuild(where, version, build.length);
    throw first ? new DomainError(error.code, `${error.message} (its migration ${build.length + 1} is "${first}")`) : error;
  }
  return { version, unnamed: version - named };
}

function refused(where: string, what: string, todo: string): DomainError {
  return new DomainError(ErrorCode.DATABASE_UNAVAILABLE, `${where} ${what}; ${todo}. This build changed nothing`);
}

/** The rows to record for versions `from + 1` … `to` of `build` (their names and checksums). */
export const namedRecords = (build: readonly Migration[], from: number, to: number): { version: number; name: string; checksum: string }[] =>
  build.slice(from, to).map((m, i) => ({ version: from + i + 1, name: m.name, checksum: migrationChecksum(m.sql) }));

/**
 * The statement of migration `name` that starts with `start` (through its closing `;`, or `END;` for a
 * trigger), for a repair that re-runs one statement a database lacks. Throws when it is not there, so a
 * repair can never silently run something else.
 */
export function statementOf(build: readonly Migration[], name: string, start: string): string {
  const sql = build.find((m) => m.name === name)?.sql ?? '';
  const at = sql.indexOf(start);
  if (at < 0) throw new Error(`migration "${name}" has no statement starting "${start}"`);
  const end = /^CREATE TRIGGER/.test(start) ? sql.indexOf('END;', at) + 'END;'.length : sql.indexOf(';', at) + 1;
  if (end <= at) throw new Error(`migration "${name}": the statement starting "${start}" does not end`);
  return sql.slice(at, end);
}
