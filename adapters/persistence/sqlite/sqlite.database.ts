import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import { migrate } from './sqlite.migrations.js';

export type SqliteDatabase = Database.Database;

/**
 * Opens the database file at `path` (its directory created 0700 when missing) in WAL mode with
 * synchronous=FULL, so a commit is on disk before it returns: every acknowledged write survives a crash
 * or power loss. busy_timeout lets the CLI and a running server share the file.
 */
export function openSqliteDatabase(config: { readonly path: string }): SqliteDatabase {
  mkdirSync(path.dirname(config.path), { recursive: true, mode: 0o700 });
  const db = new Database(config.path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  try {
    migrate(db);
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
