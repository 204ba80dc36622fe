import { DomainError, ErrorCode } from '../../../src/domain/errors.js';

/** The schema versions before and after migrating (equal when there was nothing to do). */
export interface SchemaMigration {
  readonly from: number;
  readonly to: number;
  /**
   * What was repaired of a schema an earlier build left incomplete or different (LegacyLayouts), one
   * line each; absent when nothing was. Recorded in the audit trail with the migration.
   */
  readonly repaired?: readonly string[];
}

/** The refusal of a database whose schema a newer build migrated: the vault never writes to a schema it does not know. */
export function newerThanBuild(where: string, current: number, known: number): DomainError {
  return new DomainError(ErrorCode.DATABASE_UNAVAILABLE, `${where} has schema version ${current}, newer than this build knows (${known}); run the newer wallet-vault`);
}

/**
 * The refusal of a database opened without migrating (`migrate: false`) whose schema is not this build's:
 * none of the vault's tables, an older version, or migrations recorded by number only. `where` names what was looked at (the SQLite file, or
 * the PostgreSQL database and schema), so a forgotten VAULT_DATABASE_SCHEMA or --data-dir shows.
 */
export function notMigrated(where: string, found: number | 'missing' | 'unnamed', wanted: number): DomainError {
  const state =
    found === 'missing'
      ? 'does not exist'
      : found === 'unnamed'
        ? 'records its migrations by number only (a build before named migrations made it), which this build records by name and checks'
        : found === 0
          ? 'holds no wallet-vault tables'
          : `has schema version ${found}, older than this build's ${wanted}`;
  return new DomainError(
    ErrorCode.DATABASE_UNAVAILABLE,
    `${where} ${state}: if it is the right database, run \`wallet-vault migrate\` with the same settings first (a server also migrates when it starts); nothing was changed`,
  );
}
