import type { Statement } from 'better-sqlite3';
import type { ApiKeyRecord } from '../../../src/domain/vault.js';
import { PerTurn } from '../sql/per-turn.js';
import type { ApiKeyCache, GuardedReads } from '../sql/sql-database.js';
import { toDatabaseError, type SqliteDatabase } from './sqlite.database.js';

const MAX_ENTRIES = 10_000;

/**
 * The sign path's small reads (API key records, a vault's freezes) answered from memory while nothing else
 * has written the database: every read first takes `PRAGMA data_version`, which moves whenever another
 * connection (the CLI revoking a key or freezing a vault, another worker, another instance, in this
 * process or not) commits, and a moved version empties the cache. So a key revoked or a vault frozen
 * anywhere holds on the next request, with no TTL. This connection's own commits do not move the version,
 * so every write through this connection of what a read reads empties the cache itself (`forget`); the
 * cache is one per connection (sqliteSql). The version is taken before the load (a value read after a
 * concurrent commit is dropped on the next read), a value whose load overlapped a `forget` is not kept,
 * and unknown API key ids are never kept (a key created elsewhere is found at once).
 *
 * The version is taken once per turn of the event loop, not once per read: a sign reads a key and a freeze
 * count, and the requests of one turn are served together, while a `PRAGMA data_version` step costs some
 * 4 µs (about 6 % of a sign's CPU for the two). A commit of another process is then seen by every request
 * served in a turn that starts after it (what the turn read was current when it began). A commit through
 * another connection of this process is seen at once, in the same turn: every seam counts its commits
 * (local-commits.ts) and a count that moved since the version was taken takes it again.
 */
export class SqliteGuardedReads implements GuardedReads, ApiKeyCache {
  private readonly values = new Map<string, unknown>();
  private readonly dataVersion: Statement;
  private version: number | undefined;
  private forgotten = 0;
  /** data_version, taken at most once per turn of the event loop and again after a local commit. */
  private readonly turnVersion = new PerTurn(() => this.dataVersion.get() as number);

  constructor(db: SqliteDatabase) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** Always as current as a read of its own (so `remembered` changes nothing here). */
  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    return this.cached(key, load, () => true);
  }

  find(id: string, load: (id: string) => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null> {
    return this.cached(`api-key:${id}`, () => load(id), (record) => record !== null);
  }

  private cached<T>(key: string, load: () => Promise<T>, keep: (value: T) => boolean): Promise<T> {
    let version: number;
    try {
      version = this.turnVersion.get();
    } catch (error) {
      return Promise.reject(toDatabaseError(error));
    }
    if (version !== this.version) {
      this.values.clear();
      this.version = version;
    }
    return this.values.has(key) ? Promise.resolve(this.values.get(key) as T) : this.load(key, load, keep);
  }

  private async load<T>(key: string, load: () => Promise<T>, keep: (value: T) => boolean): Promise<T> {
    const forgotten = this.forgotten;
    const value = await load();
    if (forgotten === this.forgotten && keep(value)) {
      if (this.values.size >= MAX_ENTRIES) this.values.clear();
      this.values.set(key, value);
    }
    return value;
  }

  /** After this connection wrote what a read reads: its own commits do not move data_version. */
  forget(): void {
    this.values.clear();
    this.forgotten++;
  }
}
