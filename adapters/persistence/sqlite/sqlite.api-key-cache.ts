import type { Statement } from 'better-sqlite3';
import type { ApiKeyRecord } from '../../../src/domain/vault.js';
import type { ApiKeyCache } from '../sql/sql-database.js';
import { toDatabaseError, type SqliteDatabase } from './sqlite.database.js';

const MAX_ENTRIES = 10_000;

/**
 * API key records answered from memory while nothing else has written the database: every lookup first
 * reads `PRAGMA data_version`, which moves whenever another connection (the CLI revoking a key, another
 * worker, another instance) commits, and a moved version empties the cache. So a key revoked anywhere is
 * refused on the next request, with no TTL. This connection's own commits do not move the version, so
 * every write of an API key through this connection empties the cache itself (`forget`); the cache is one
 * per connection (sqliteSql). Unknown ids are never cached, the version is read before the record (a
 * record read after a concurrent commit is dropped on the next lookup), and a record whose read overlapped
 * a `forget` is not kept.
 */
export class SqliteApiKeyCache implements ApiKeyCache {
  private readonly records = new Map<string, ApiKeyRecord>();
  private readonly dataVersion: Statement;
  private version: number | undefined;
  private forgotten = 0;

  constructor(db: SqliteDatabase) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  find(id: string, load: (id: string) => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null> {
    let version: number;
    try {
      version = this.dataVersion.get() as number;
    } catch (error) {
      return Promise.reject(toDatabaseError(error));
    }
    if (version !== this.version) {
      this.records.clear();
      this.version = version;
    }
    const hit = this.records.get(id);
    return hit ? Promise.resolve(hit) : this.read(id, load);
  }

  private async read(id: string, load: (id: string) => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null> {
    const forgotten = this.forgotten;
    const record = await load(id);
    if (record && forgotten === this.forgotten) {
      if (this.records.size >= MAX_ENTRIES) this.records.clear();
      this.records.set(id, record);
    }
    return record;
  }

  /** After this connection wrote an API key: its own commits do not move data_version. */
  forget(): void {
    this.records.clear();
    this.forgotten++;
  }
}
