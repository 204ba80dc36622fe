import type pg from 'pg';
import { z } from 'zod';
import type { Persistence } from '../../../src/ports/persistence.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireDriver } from '../../optional-driver.js';
import { sqlPersistence } from '../sql/sql-persistence.js';
import type { DumpDialect } from '../sql/sql.database-dump.js';
import { POSTGRES_EXPECTED_SCHEMA } from './postgres.expected-schema.js';
import { isSchemaName, SCHEMA_NAME_RULE } from './postgres.schema-name.js';

await requireDriver('pg', 'persistence/postgres');
const [{ openPostgresDatabase }, { PostgresJobLock }, { postgresSql }, { postgresRequestRates }] = await Promise.all([
  import('./postgres.database.js'),
  import('./postgres.job-lock.js'),
  import('./postgres.sql.js'),
  import('./postgres.request-rates.js'),
]);

interface Bounds {
  /** Bound on statements (ms, default 10 000); with your own `pool`, only migrations use it. */
  readonly queryTimeoutMs?: number;
  /** Told about pooled connections that die while idle (the next query reconnects). */
  readonly onIdleError?: (error: Error) => void;
  /** Requests that may wait for a connection while all are in use; past it DATABASE_UNAVAILABLE at once (default 4 × the pool's size). */
  readonly maxWaiting?: number;
  /**
   * True (default): create the schema when missing and apply the migrations it lacks, as a server does
   * at start (one instance at a time, under an advisory lock). False: check only, for tools that must not
   * create or change tables: a missing schema, one without the vault's tables or at another version is
   * refused with DATABASE_UNAVAILABLE naming `wallet-vault migrate`, the database and the schema.
   */
  readonly migrate?: boolean;
}

/** Options of the shared PostgreSQL database: a connection string, or a pool you already have. */
export type PostgresPersistenceOptions = Bounds &
  (
    | {
        /** `postgres://user:password@host:port/database`; never in messages. */
        readonly connectionString: string;
        /** Connections kept at most (default 10). */
        readonly poolSize?: number;
        /** Bound on opening a connection or waiting for a free one (ms, default 5000). */
        readonly connectTimeoutMs?: number;
        /**
         * The schema for the vault's tables, created if missing: a plain lower-case identifier. Default:
         * the connection's current schema (the first of its search_path that exists, usually `public`).
         */
        readonly schema?: string;
        readonly pool?: never;
      }
    | {
        /** Used as is; you end it (close() leaves it open). Its connections' search_path picks the schema. */
        readonly pool: pg.Pool;
        readonly connectionString?: never;
        readonly schema?: never;
      }
  );

const bounds = {
  queryTimeoutMs: z.int().min(100).max(600_000).optional(),
  maxWaiting: z.int().min(0).max(1_000_000).optional(),
  onIdleError: z.custom<(error: Error) => void>((f) => typeof f === 'function', 'must be a function').optional(),
  migrate: z.boolean().optional(),
};
const optionsSchema = z.union([
  z.strictObject({
    ...bounds,
    pool: z.custom<pg.Pool>((p) => typeof (p as { connect?: unknown })?.connect === 'function' && 'options' in (p as object), 'must be a pg.Pool'),
    // Named so the refusal says what to do: the vault cannot change the search_path of a pool it does not own.
    schema: z.unknown().optional(),
  }).refine((o) => o.schema === undefined, { path: ['schema'], message: "with your own pool, set it as the pool's search_path (options: '-c search_path=...')" }),
  z.strictObject({
    ...bounds,
    connectionString: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
    poolSize: z.int().min(1).max(1000).optional(),
    connectTimeoutMs: z.int().min(100).max(600_000).optional(),
    schema: z.string().refine(isSchemaName, SCHEMA_NAME_RULE).optional(),
  }),
]);

/**
 * Opens the PostgreSQL database and brings its schema up to date unless `migrate: false` (`wallet-vault/persistence/postgres`;
 * needs the optional package pg). Several instances may share it: nonces and background jobs are
 * coordinated through it. Rejects with DATABASE_UNAVAILABLE naming the database when it cannot be reached.
 */
export async function postgresPersistence(options: PostgresPersistenceOptions): Promise<Persistence> {
  const o = parseFactoryOptions('postgresPersistence', optionsSchema, options);
  const db = await openPostgresDatabase({
    url: 'connectionString' in o ? o.connectionString : undefined,
    pool: 'pool' in o ? o.pool : undefined,
    poolSize: 'poolSize' in o ? (o.poolSize ?? 10) : 10,
    connectTimeoutMs: 'connectTimeoutMs' in o ? (o.connectTimeoutMs ?? 5000) : 5000,
    maxWaiting: o.maxWaiting,
    queryTimeoutMs: o.queryTimeoutMs ?? 10_000,
    onIdleError: o.onIdleError,
    schema: 'connectionString' in o ? o.schema : undefined,
  }, { migrate: o.migrate });
  // The API key cache is the seam's (postgresSql: its listener ends with db.close()).
  return sqlPersistence(postgresSql(db), {
    description: db.label,
    requestRates: postgresRequestRates(db),
    sharedNonces: true,
    jobLock: new PostgresJobLock(db),
    dump: POSTGRES_DUMP,
    close: () => db.close(),
  });
}

const isInstant = (type: string) => type.startsWith('timestamp');

/**
 * PostgreSQL's tables in a backup: an instant as its milliseconds (a Date back in), bigint as a number
 * (sequence numbers and counters, far below 2^53), numeric as its decimal text. The export reads every
 * table in one REPEATABLE READ transaction: one snapshot, however many instances write meanwhile.
 * request_rates holds counts of the current minute only: not copied.
 */
const POSTGRES_DUMP: DumpDialect = {
  name: 'postgres',
  schema: POSTGRES_EXPECTED_SCHEMA,
  derived: ['request_rates'],
  snapshot: 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ',
  exportValue: (type, value) => {
    if (value === null || value === undefined) return null;
    if (value instanceof Date) return value.getTime();
    if (type.startsWith('bigint') || type.startsWith('integer')) return Number(value);
    if (typeof value === 'number' || typeof value === 'string') return value;
    throw new Error(`a value of type ${typeof value} cannot be copied`);
  },
  importValue: (type, value) => (value !== null && isInstant(type) ? new Date(Number(value)) : value),
};
