import pg from 'pg';
import type { ApiKeyRecord } from '../../../src/domain/vault.js';
import type { ApiKeyCache } from '../sql/sql-database.js';
import type { PostgresDatabase } from './postgres.database.js';

/**
 * The channel every change to api_keys is announced on, by the table's trigger (migration 4), whoever made
 * it: the key's id, or '' for all keys (TRUNCATE).
 */
export const API_KEY_CHANNEL = 'wallet_vault_api_keys';
const MAX_ENTRIES = 10_000;
const RETRY_LISTEN_MS = 1_000;
/** The longest a record is answered from memory before it is read again. */
export const API_KEY_CACHE_TTL_MS = 1_000;

export interface PostgresApiKeyCacheOptions {
  /** Longest a record is answered from memory (ms, default 1000): the net under the push. */
  readonly ttlMs?: number;
  /** Monotonic milliseconds, for the lifetime (default `performance.now`). */
  readonly now?: () => number;
}

interface Entry {
  readonly record: ApiKeyRecord;
  /** When its read started: its lifetime counts from before the database answered. */
  readonly readAt: number;
}

/**
 * API key records answered from memory, kept exact by the database's push and bounded by a short
 * lifetime. A dedicated connection LISTENs on API_KEY_CHANNEL; a trigger on api_keys NOTIFYs every
 * insert, update, delete and truncate, by any path (this service, the CLI, plain SQL, a restore), and
 * PostgreSQL delivers it to every listening instance as the transaction commits, so each drops the key
 * and reads it again on its next request. What the trigger cannot see (a change made with triggers
 * off, as `session_replication_role = replica` or `pg_restore --disable-triggers` do) is caught by the
 * lifetime: a record is read again at most `ttlMs` after it was read, once per key per second on the
 * sign path by default, never per request. Records are answered from memory only while the listener
 * is connected and listening: before it is, after it fails, and until it listens again (the cache is
 * emptied then, since notifications may have been missed), every lookup reads the database, and fails
 * when the database does. A lookup that raced a notification (read before the change committed,
 * answered after) is not cached. Unknown ids are never cached. A listener connection that dies
 * silently (no error, no close) while the database stays reachable is ended by TCP keepalive; the
 * lifetime bounds what it misses meanwhile.
 */
export class PostgresApiKeyCache implements ApiKeyCache {
  private readonly records = new Map<string, Entry>();
  /** Reads in flight while listening, shared by the lookups of the same key. */
  private readonly reading = new Map<string, Promise<ApiKeyRecord | null>>();
  private listener: pg.Client | undefined;
  private listening = false;
  private connecting = false;
  private lastAttempt = -Infinity;
  /** Moves on every notification and every change of the listener: a lookup that saw it move is not cached. */
  private generation = 0;
  private closed = false;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: PostgresDatabase,
    options: PostgresApiKeyCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? API_KEY_CACHE_TTL_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * The record by id: from memory while the listener listens, else (and on a miss) from `load`. While it
   * listens, lookups of a key that is being read share that read (a key used by many requests at once
   * is read once a lifetime, not once per request); a notification ends the sharing, so a lookup that
   * starts after a change never gets a read that started before it.
   */
  find(id: string, load: (id: string) => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null> {
    if (!this.listening) {
      this.listen();
      return this.read(id, load);
    }
    const hit = this.records.get(id);
    if (hit && this.now() - hit.readAt < this.ttlMs) return Promise.resolve(hit.record);
    const shared = this.reading.get(id);
    if (shared) return shared;
    const reading = this.read(id, load).finally(() => {
      if (this.reading.get(id) === reading) this.reading.delete(id);
    });
    this.reading.set(id, reading);
    return reading;
  }

  private async read(id: string, load: (id: string) => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null> {
    const [generation, listening, readAt] = [this.generation, this.listening, this.now()];
    const record = await load(id);
    if (record && listening && this.listening && generation === this.generation) {
      if (this.records.size >= MAX_ENTRIES) this.records.clear();
      this.records.set(id, { record, readAt });
    } else if (!record) {
      this.records.delete(id);
    }
    return record;
  }

  /**
   * Drops the key `id` (all keys without it), and keeps no read in flight now. Called after an API key
   * was written through this instance: its NOTIFY reaches the listener only some time after the write
   * returned, and the next request must not be answered from the record before it. Writes by another
   * instance or by SQL still wait for the push.
   */
  forget(id?: string): void {
    this.generation++;
    this.reading.clear();
    if (id) this.records.delete(id);
    else this.records.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopAnswering();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /** Starts listening in the background (at most one attempt at a time, one per second). */
  private listen(): void {
    if (this.connecting || this.closed || Date.now() - this.lastAttempt < RETRY_LISTEN_MS) return;
    this.connecting = true;
    this.lastAttempt = Date.now();
    // A connection of its own, made with the pool's settings (also for a pool the application passed in),
    // outside the pool: it stays LISTENing for the instance's life.
    const client = new pg.Client({
      ...(this.db.pool.options as pg.ClientConfig),
      connectionTimeoutMillis: this.db.config.connectTimeoutMs,
      keepAlive: true,
      application_name: 'wallet-vault-listener',
    });
    const lost = () => {
      if (this.listener === client) this.listener = undefined;
      this.stopAnswering();
      client.end().catch(() => undefined);
    };
    client.on('notification', (n) => this.forget(n.payload)); // no key: TRUNCATE, every key
    client.on('error', lost);
    client.on('end', lost);
    void client
      .connect()
      .then(() => client.query(`LISTEN ${API_KEY_CHANNEL}`))
      .then(() => {
        if (this.closed) return void client.end().catch(() => undefined);
        this.listener = client;
        this.forget(); // whatever was revoked while nobody listened is read again
        this.listening = true;
      })
      .catch(lost)
      .finally(() => (this.connecting = false));
  }

  private stopAnswering(): void {
    this.listening = false;
    this.forget();
  }
}
