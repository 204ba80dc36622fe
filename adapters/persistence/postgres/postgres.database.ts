import pg from 'pg';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { SchemaMigration } from '../sql/schema-version.js';
import { checkSchema, migrate } from './postgres.migrator.js';
import { DEFAULT_WAITING_PER_CONNECTION } from './postgres.pool-bounds.js';
import { isSchemaName, SCHEMA_NAME_RULE } from './postgres.schema-name.js';

/** How to reach the shared database, and how long anything may wait on it. */
export interface PostgresConfig {
  /** `postgres://user:password@host:port/database?sslmode=...`; the password never appears in messages. */
  readonly url?: string;
  /**
   * A pool the application already has, used instead of opening one from `url` (poolSize and the
   * timeouts then are the pool's own). The application owns it: `close()` leaves it open.
   */
  readonly pool?: pg.Pool;
  /** Connections this process keeps at most (each instance has its own pool). */
  readonly poolSize: number;
  /** Bound on opening a connection and on waiting for a free one from the pool. */
  readonly connectTimeoutMs: number;
  /**
   * Requests that may wait for a free connection while every one is in use; one more is refused at once
   * (DATABASE_UNAVAILABLE, 503 with Retry-After) instead of joining a queue that grows without limit.
   * Default: DEFAULT_WAITING_PER_CONNECTION × the pool's size.
   */
  readonly maxWaiting?: number;
  /** Bound on every statement: the server cancels it (statement_timeout) and the client stops waiting. */
  readonly queryTimeoutMs: number;
  /** Told about connections that die while idle in the pool (the next query reconnects). */
  readonly onIdleError?: (error: Error) => void;
  /**
   * The schema holding the vault's tables, created if missing (see isSchemaName); absent: the connection's
   * current schema (the first of its search_path that exists, usually `public`). Only with `url`: an
   * application's pool has the search_path its owner gave it.
   */
  readonly schema?: string;
}

/**
 * A PostgreSQL pool shared by every adapter of one process. Every call is bounded (connect, wait for a
 * pool slot, statement), and every failure to reach the database becomes DATABASE_UNAVAILABLE naming the
 * database: no request waits forever, and a database that comes back is used again without a restart
 * (broken connections are dropped from the pool, new ones opened on demand).
 */
export class PostgresDatabase {
  readonly pool: pg.Pool;
  /** `database "name" on host:port[, schema "s"]`: what messages say, never the URL (it may carry a password). */
  readonly label: string;
  readonly maxWaiting: number;

  constructor(readonly config: PostgresConfig) {
    if (config.schema !== undefined && (config.pool || !isSchemaName(config.schema))) {
      throw new TypeError(config.pool ? 'schema: give your own pool its search_path instead' : `schema: ${SCHEMA_NAME_RULE}`);
    }
    // The schema is named too: the CLI says which store it opened, and one without the servers' schema is another store.
    this.label = config.pool ? describePool(config.pool) : describeDatabase(config.url ?? '') + (config.schema === undefined ? '' : `, schema "${config.schema}"`);
    this.pool = config.pool ?? new pg.Pool({
      // Every connection made from these settings (the pool's, the migration's, the listener's) starts in
      // the schema: unqualified names in every statement, and the trigger function, resolve there.
      connectionString: config.schema === undefined ? config.url : withSearchPath(config.url ?? '', config.schema),
      max: config.poolSize,
      connectionTimeoutMillis: config.connectTimeoutMs,
      query_timeout: config.queryTimeoutMs,
      statement_timeout: config.queryTimeoutMs,
      // A transaction left open by a dead request must not hold row locks for long.
      idle_in_transaction_session_timeout: Math.max(config.queryTimeoutMs * 2, 10_000),
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      application_name: 'wallet-vault',
    });
    // Without a listener, a connection that dies while idle in the pool would crash the process.
    this.pool.on('error', (error) => config.onIdleError?.(error));
    this.maxWaiting = config.maxWaiting ?? DEFAULT_WAITING_PER_CONNECTION * (this.pool.options.max ?? config.poolSize);
  }

  /**
   * Refuses a request that would have to queue behind maxWaiting others for a connection. pg-pool's own
   * queue has no bound: under an overload it grows until every request in it hits the connect timeout.
   */
  private admit(): void {
    const pool = this.pool;
    const full = pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? this.config.poolSize);
    if (full && pool.waitingCount >= this.maxWaiting) {
      throw new DomainError(
        ErrorCode.DATABASE_UNAVAILABLE,
        `${this.label} is unavailable (busy: all ${pool.totalCount} connections in use and ${pool.waitingCount} requests waiting for one)`,
      );
    }
  }

  /**
   * One statement on any pooled connection; a connection that failed is discarded, not reused. `name`:
   * prepared once per connection under that name (a statement run on every request, parsed and planned once).
   */
  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult<R>> {
    this.admit();
    try {
      return await (name === undefined ? this.pool.query<R>(text, values) : this.pool.query<R>({ name, text, values }));
    } catch (error) {
      throw this.toError(error);
    }
  }

  /** Runs `work` in one transaction (READ COMMITTED); commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const value = await work(client);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * Lends one connection for several statements. A connection that fails while lent (its socket dies
   * between two statements) is destroyed on release instead of going back to the pool.
   */
  async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    this.admit();
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.toError(error);
    }
    let broken: Error | undefined;
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      return await work(client);
    } catch (error) {
      broken ??= isConnectionFailure(error) ? (error as Error) : undefined;
      throw this.toError(error);
    } finally {
      client.removeListener('error', onError);
      client.release(broken ?? false);
    }
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  private readonly closing: (() => Promise<void>)[] = [];

  /** Runs `release` first when the database closes: what holds a connection of its own (the API key listener). */
  whenClosing(release: () => Promise<void>): void {
    this.closing.push(release);
  }

  /** Closes what `whenClosing` named, then every pooled connection. Idempotent. */
  async close(): Promise<void> {
    await Promise.all(this.closing.splice(0).map((release) => release().catch(() => undefined)));
    if (this.config.pool) return; // the application's pool: it ends it
    if (!this.pool.ended && !this.pool.ending) await this.pool.end();
  }

  /** Connection failures and timeouts become DATABASE_UNAVAILABLE; constraint hits and bugs pass unchanged. */
  toError(error: unknown): unknown {
    if (error instanceof DomainError || !isConnectionFailure(error)) return error;
    return new DomainError(ErrorCode.DATABASE_UNAVAILABLE, `${this.label} is unavailable (${reason(error)})`, { cause: error });
  }
}

/** How openPostgresDatabase treats the schema. */
export interface PostgresOpenOptions {
  /**
   * True (default): create the configured schema when missing and apply the migrations it lacks. False:
   * check only: a missing schema, one without the vault's migrations table, or an older or newer version
   * is refused (DATABASE_UNAVAILABLE naming `wallet-vault migrate`, the database and the schema), and
   * nothing is created.
   */
  readonly migrate?: boolean;
  /** Told the schema the tables are in and its versions before and after (equal when nothing was applied). */
  readonly onSchema?: (versions: SchemaMigration & { readonly schema: string }) => void;
}

/**
 * Opens the pool and brings the schema up to date (or, with `migrate: false`, checks it) before anything
 * else runs. Refuses, with a message naming the database, when it cannot be reached within the connect
 * timeout.
 */
export async function openPostgresDatabase(config: PostgresConfig, options: PostgresOpenOptions = {}): Promise<PostgresDatabase> {
  const db = new PostgresDatabase(config);
  try {
    // Bounded apart from statements: it includes waiting for another instance that migrates.
    const versions = options.migrate === false ? await checkSchema(db) : await migrate(db, Math.max(60_000, config.queryTimeoutMs));
    options.onSchema?.(versions);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw db.toError(error);
  }
  return db;
}

// SQLSTATE classes that mean "the database cannot serve now", as opposed to "this statement is wrong":
// 08 connection, 28 authorisation, 3D no such database, 53 resources, 57 operator intervention
// (shutdown, statement timeout), 58 system error; 55P03 lock not available; 40001/40P01 lost races.
const UNAVAILABLE_CLASSES = new Set(['08', '28', '3D', '53', '57', '58']);
const UNAVAILABLE_CODES = new Set(['55P03', '40001', '40P01']);

/** Whether an error means the database could not be reached or did not answer in time. */
function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof pg.DatabaseError) {
    const code = error.code ?? '';
    return UNAVAILABLE_CLASSES.has(code.slice(0, 2)) || UNAVAILABLE_CODES.has(code);
  }
  // Node socket errors (ECONNREFUSED, ECONNRESET, ETIMEDOUT, ENOTFOUND, EPIPE ...) and pg's own
  // connection messages: terminated, connection timeout, query read timeout, pool ended.
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  return /connection|timeout|terminated|pool/i.test(error.message);
}

function reason(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' && e.message ? e.message : 'no answer';
  return typeof e.code === 'string' && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

/**
 * The URL with `-c search_path=<schema>` added to its `options` parameter (after any the operator put
 * there, so it wins). Only the query string is rewritten: pg lets the URL's parameters override the
 * client's own `options` setting, and the rest of the URL (credentials, host forms) stays byte for byte.
 * The schema is a plain identifier (isSchemaName): nothing to escape.
 */
function withSearchPath(url: string, schema: string): string {
  const at = url.indexOf('?');
  const params = new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
  params.set('options', [params.get('options'), `-c search_path=${schema}`].filter(Boolean).join(' '));
  return `${at < 0 ? url : url.slice(0, at)}?${params.toString()}`;
}

/** The label of an application's pool, from the settings it was made with (never its password). */
function describePool(pool: pg.Pool): string {
  const o = pool.options as pg.PoolConfig;
  if (o.connectionString) return describeDatabase(o.connectionString);
  return `PostgreSQL database "${o.database ?? o.user ?? 'postgres'}" on ${o.host ?? 'localhost'}:${o.port ?? 5432}`;
}

/** `database "vault" on db.internal:5432`, from a URL whose password must not be repeated. */
export function describeDatabase(url: string): string {
  try {
    const u = new URL(url);
    const name = decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || 'postgres';
    const host = u.hostname || u.searchParams.get('host') || 'localhost';
    return `PostgreSQL database "${name}" on ${host}:${u.port || '5432'}`;
  } catch {
    return 'PostgreSQL database';
  }
}
