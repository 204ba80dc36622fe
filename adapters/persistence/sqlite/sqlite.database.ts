import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import { notMigrated, type SchemaMigration } from '../sql/schema-version.js';
import { checkSchema, migrate } from './sqlite.migrator.js';
import { SCHEMA_VERSION } from './sqlite.migration-steps.js';

export type SqliteDatabase = Database.Database;

/** How openSqliteDatabase treats the schema. */
export interface SqliteOpenOptions {
  readonly path: string;
  /**
   * True (default): create the file (and its directory, 0700) when missing and apply the migrations it
   * lacks. False: check only: a missing file is refused without creating it or its directory, and so is
   * a schema that is not exactly this build's (DATABASE_UNAVAILABLE naming `wallet-vault migrate`).
   */
  readonly migrate?: boolean;
  /** Told the schema versions before and after (equal when nothing was applied, and always with `migrate: false`). */
  readonly onSchema?: (versions: SchemaMigration) => void;
}

/**
 * Opens the database file at `path` in WAL mode with synchronous=FULL, so a commit is on disk before it
 * returns: every acknowledged write survives a crash or power loss. busy_timeout lets the CLI and a
 * running server share the file.
 */
export function openSqliteDatabase(config: SqliteOpenOptions): SqliteDatabase {
  const migrating = config.migrate !== false;
  if (migrating) mkdirSync(path.dirname(config.path), { recursive: true, mode: 0o700 });
  else if (!existsSync(config.path)) throw notMigrated(`SQLite ${config.path}`, 'missing', SCHEMA_VERSION);
  // fileMustExist: checking must not create the file between the test above and the open.
  const db = new Database(config.path, { fileMustExist: !migrating });
  try {
    db.pragma('busy_timeout = 5000');
    // Checked before the other pragmas: journal_mode = WAL rewrites the header of a file that is not the vault's.
    const checked = migrating ? undefined : checkSchema(db);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    const versions = checked ?? migrate(db);
    config.onSchema?.(versions);
  } catch (error) {
    db.close();
    throw error;
  }
  for (const file of [config.path, `${config.path}-wal`, `${config.path}-shm`]) {
    if (existsSync(file)) chmodSync(file, 0o600);
  }
  return db;
}

/** SQLite failures become DATABASE_UNAVAILABLE; constraint hits and anything else (bugs) pass unchanged. */
export function toDatabaseError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_') && !code.startsWith('SQLITE_CONSTRAINT')) {
    return new DomainError(ErrorCode.DATABASE_UNAVAILABLE, `database unavailable (${code})`, { cause: error });
  }
  return error;
}

/** better-sqlite3 is synchronous; the ports stay async so networked databases fit the same shape. */
export function runSql<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(toDatabaseError(error));
  }
}
