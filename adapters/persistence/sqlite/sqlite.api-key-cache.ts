import type { Statement } from 'better-sqlite3';
import type { ApiKeyRecord } from '../../../src/domain/vault.js';
import type { SqliteDatabase } from './sqlite.database.js';

const MAX_ENTRIES = 10_000;

/**
 * API key records answered from memory while nothing else has written the database: every lookup first
 * reads `PRAGMA data_version`, which moves whenever another connection (the CLI revoking a key, another
 * worker, another instance) commits, and a moved version empties the cache. So a key revoked anywhere is
 * refused on the next request, with no TTL. This connection's own commits do not move the version, so
 * every write of an API key through this connection empties the cache itself (`forget`); the cache is one
 * per connection, shared by every repository built on it. Unknown ids are never cached, and the version
 * is read before the record, so a record read after a concurrent commit is dropped on the next lookup.
 */
export class SqliteApiKeyCache {
  private readonly records = new Map<string, ApiKeyRecord>();
  private readonly dataVersion: Statement;
  private version: number | undefined;

  constructor(db: SqliteDatabase) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** The record by id, from memory while the database is unchanged by others, else from `load`. */
  find(id: string, load: (id: string) => ApiKeyRecord | null): ApiKeyRecord | null {
    const version = this.dataVersion.get() as number;
    if (version !== this.version) {
      this.records.clear();
      this.version = version;
    }
    const hit = this.records.get(id);
    if (hit) return hit;
    const record = load(id);
    if (record) {
      if (this.records.size >= MAX_ENTRIES) this.records.clear();
      this.records.set(id, record);
    }
    return record;
  }

  /** After this connection wrote an API key: its own commits do not move data_version. */
  forget(): void {
    this.records.clear();
  }
}

const caches = new WeakMap<SqliteDatabase, SqliteApiKeyCache>();

/** The connection's one API key cache. */
export function apiKeyCacheOf(db: SqliteDatabase): SqliteApiKeyCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new SqliteApiKeyCache(db);
    caches.set(db, cache);
  }
  return cache;
}
