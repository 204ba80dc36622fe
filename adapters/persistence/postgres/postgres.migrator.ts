import pg from 'pg';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import { describeRepair, planRepairs } from '../sql/legacy-layouts.js';
import { namedRecords, verifyHistory, type AppliedMigration } from '../sql/migration-history.js';
import { schemaDifferences, schemaMismatch } from '../sql/schema-shape.js';
import { notMigrated, type SchemaMigration } from '../sql/schema-version.js';
import { POSTGRES_EXPECTED_SCHEMA } from './postgres.expected-schema.js';
import { postgresLegacyLayouts } from './postgres.legacy-layouts.js';
import { MIGRATIONS } from './postgres.migration-steps.js';
import { readPostgresShape, type CatalogueReader } from './postgres.schema-shape.js';

/**
 * What migrating needs of the database (postgres.database.ts's PostgresDatabase is one): declared here, so
 * the migrator imports nothing of the module that opens the database and the two do not import each other.
 */
export interface MigrationTarget {
  readonly pool: pg.Pool;
  /** What messages name the database by, never its URL. */
  readonly label: string;
  readonly config: { readonly connectTimeoutMs: number; readonly schema?: string };
}

/**
 * Where the applied versions are recorded, in the vault's schema: named after the package, so a
 * `schema_migrations` of another tool sharing the schema (golang-migrate, Rails, Flyway-likes ...) is
 * never read or written.
 */
export const MIGRATIONS_TABLE = 'wallet_vault_migrations';
/** Where releases before the schema option recorded them; read once to upgrade, then left alone. */
const PREVIOUS_MIGRATIONS_TABLE = 'schema_migrations';

/** The tables and indexes each migration creates (its names the schema must not already hold), by version - 1. */
const CREATED_BY = MIGRATIONS.map(({ sql }) => [...sql.matchAll(/CREATE (?:UNIQUE |UNLOGGED )?(?:TABLE|INDEX) (\w+)/g)].map((m) => m[1]!));

/** Columns of `wallets` as migration 1 made it: the mark of a table that is ours, not a namesake's. */
const OUR_WALLET_COLUMNS = ['id', 'account_id', 'vault_id', 'name', 'address', 'key_store', 'key_ref', 'created', 'updated', 'expires', 'version'];

// Any constant unique to this application; other applications sharing the server use other keys.
const MIGRATION_LOCK_KEY = 0x77616c6c6574n; // "wallet"

/**
 * Applies the missing migrations on a dedicated connection holding a session advisory lock, so when
 * many instances start at once exactly one migrates and the others wait, then find nothing to do. Each
 * migration commits together with its row (name and checksum): a crash leaves the schema at a known
 * version. Refuses (changing nothing) a database whose recorded migrations are not a prefix of this
 * list, one a newer build migrated, and a schema where names the vault would create are already taken
 * by something it did not make (it never writes to what is not its own). A database from before named
 * migrations (versions only) is adopted in one transaction: each number taken as this build's migration
 * of that number, the rest applied, what an earlier build left differently (postgresLegacyLayouts)
 * repaired. Last, the schema is checked to be this build's.
 */
export async function migrate(db: MigrationTarget, timeoutMs: number): Promise<SchemaMigration & { readonly schema: string }> {
  const client = new pg.Client({
    // The pool's settings (an application's pool, or ours with the schema's search_path): the same
    // server, credentials and schema, on a connection of its own.
    ...(db.pool.options as pg.ClientConfig),
    connectionTimeoutMillis: db.config.connectTimeoutMs,
    query_timeout: timeoutMs,
    statement_timeout: timeoutMs,
    application_name: 'wallet-vault migrate',
  });
  client.on('error', () => undefined); // the pending query reports it
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    const schema = await enterSchema(client, db);
    const table = `${client.escapeIdentifier(schema)}.${MIGRATIONS_TABLE}`;
    const insert = `INSERT INTO ${table} (version, name, checksum) VALUES ($1, $2, $3)`;
    let history = { version: 0, unnamed: 0 };
    let repaired: string[] = [];
    // One transaction from reading the history to recording it by name: a refusal changes nothing, a
    // number-only history is adopted (and repaired) whole or not at all.
    await inTransaction(client, async () => {
      await adoptSchema(client, db, schema, table);
      history = verifyHistory(db.label, MIGRATIONS, await appliedMigrations(client, table));
      if (history.unnamed === 0) return;
      for (let v = history.version; v < MIGRATIONS.length; v++) await client.query(MIGRATIONS[v]!.sql);
      const planned = planRepairs(db.label, postgresLegacyLayouts(MIGRATIONS), schemaDifferences(POSTGRES_EXPECTED_SCHEMA, await readPostgresShape(client, schema)));
      for (const repair of planned) await client.query(repair.sql);
      repaired = planned.map(describeRepair);
      for (const r of namedRecords(MIGRATIONS, history.version - history.unnamed, MIGRATIONS.length)) {
        if (r.version <= history.version) await client.query(`UPDATE ${table} SET name = $2, checksum = $3 WHERE version = $1`, [r.version, r.name, r.checksum]);
        else await client.query(insert, [r.version, r.name, r.checksum]);
      }
    });
    const from = history.version;
    if (history.unnamed === 0) {
      for (const r of namedRecords(MIGRATIONS, from, MIGRATIONS.length)) {
        await inTransaction(client, async () => {
          await client.query(MIGRATIONS[r.version - 1]!.sql);
          await client.query(insert, [r.version, r.name, r.checksum]);
        });
      }
    }
    await assertExpectedSchema(client, schema, db.label);
    return { from, to: MIGRATIONS.length, schema, ...(repaired.length > 0 ? { repaired } : {}) };
  } finally {
    // Ending the session releases the advisory lock even if unlocking was never reached.
    await client.end().catch(() => undefined);
  }
}

/**
 * Checks, creating and changing nothing (no schema, no table, no lock), that the schema the connection
 * resolves to holds this build's tables: a missing schema, one without the migrations table (new, or
 * left by a release that recorded versions elsewhere), an older version or one recorded by number only
 * is refused naming `wallet-vault migrate` and where it looked; a newer one, or migrations that are not
 * this build's, as migrate refuses them; tables, columns or indexes other than this build's, naming them.
 */
export async function checkSchema(db: MigrationTarget & CatalogueReader): Promise<SchemaMigration & { readonly schema: string }> {
  const wanted = db.config.schema;
  const { rows } = await db.query<{ schema: string | null; found: string | null }>(
    'SELECT current_schema() AS schema, to_regclass(quote_ident(current_schema()) || $1) AS found',
    [`.${MIGRATIONS_TABLE}`],
  );
  const schema = rows[0]?.schema ?? null;
  // The label names the schema when one was configured; else the one the search_path chose is added.
  const where = (name: string) =>
    wanted === undefined ? `${db.label}, schema "${name}" (the search_path's: choose the vault's with the schema option or VAULT_DATABASE_SCHEMA)` : db.label;
  if (schema === null || (wanted !== undefined && schema !== wanted)) {
    throw notMigrated(wanted === undefined ? `${db.label}: the search_path's schema` : db.label.replace(/, schema "/, ': schema "'), 'missing', MIGRATIONS.length);
  }
  const applied = rows[0]?.found === null || rows[0]?.found === undefined ? [] : await appliedMigrations(db, `${pg.escapeIdentifier(schema)}.${MIGRATIONS_TABLE}`);
  const history = verifyHistory(db.label, MIGRATIONS, applied);
  if (history.version < MIGRATIONS.length) throw notMigrated(where(schema), history.version, MIGRATIONS.length);
  if (history.unnamed > 0) throw notMigrated(where(schema), 'unnamed', MIGRATIONS.length);
  await assertExpectedSchema(db, schema, db.label);
  return { from: history.version, to: history.version, schema };
}

/** The recorded migrations; name and checksum null where a build before named migrations (or its table, without those columns) recorded the number only. */
async function appliedMigrations(db: CatalogueReader, table: string): Promise<AppliedMigration[]> {
  const { rows } = await db.query<{ version: number; name?: string | null; checksum?: string | null }>(`SELECT * FROM ${table} ORDER BY version`);
  return rows.map((r) => ({ version: r.version, name: r.name ?? null, checksum: r.checksum ?? null }));
}

async function assertExpectedSchema(db: CatalogueReader, schema: string, label: string): Promise<void> {
  const differences = schemaDifferences(POSTGRES_EXPECTED_SCHEMA, await readPostgresShape(db, schema));
  if (differences.length > 0) throw schemaMismatch(label, differences);
}

async function inTransaction(client: pg.Client, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Creates the configured schema if it is missing (asking first: CREATE SCHEMA needs the
 * right to create schemas even when it exists) and answers the schema this session creates in.
 */
async function enterSchema(client: pg.Client, db: MigrationTarget): Promise<string> {
  const wanted = db.config.schema;
  if (wanted !== undefined && !(await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [wanted])).rowCount) {
    await client.query(`CREATE SCHEMA ${client.escapeIdentifier(wanted)}`);
  }
  const { rows } = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema');
  const schema = rows[0]?.schema;
  if (!schema || (wanted !== undefined && schema !== wanted)) {
    throw new DomainError(
      ErrorCode.DATABASE_UNAVAILABLE,
      `${db.label}: the connection's search_path names no schema that exists (${wanted ?? 'none chosen'}); choose one with the schema option or VAULT_DATABASE_SCHEMA (it is created if missing), or create the one your pool's search_path names`,
    );
  }
  return schema;
}

/**
 * Makes sure `table` (the vault's migrations table) exists. A schema without it is either new to the
 * vault, or was migrated by a release that recorded its versions in `schema_migrations`: recognised by
 * that table's shape, its versions being exactly 1..N of ours and the tables those versions create being
 * ours, its versions are copied over (in the caller's transaction, so a crash copies all or nothing).
 * Anything else that already holds a name the vault creates is refused, never written to.
 */
async function adoptSchema(client: pg.Client, db: MigrationTarget, schema: string, table: string): Promise<void> {
  const present = await relationsIn(client, schema);
  if (present.has(MIGRATIONS_TABLE)) {
    // Made by a build before named migrations: the columns they are recorded in (nullable, so that such
    // a build, started again, still inserts its version rows; it refuses this one's as newer anyway).
    const { rows } = await client.query('SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = $3', [schema, MIGRATIONS_TABLE, 'checksum']);
    if (rows.length === 0) await client.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS name text, ADD COLUMN IF NOT EXISTS checksum text`);
    return;
  }
  const previous = await previousReleaseVersion(client, schema, present);
  const claimed = new Set(CREATED_BY.slice(0, previous).flat());
  const taken = CREATED_BY.flat().find((name) => present.has(name) && !claimed.has(name));
  if (taken !== undefined) {
    throw new DomainError(
      ErrorCode.DATABASE_UNAVAILABLE,
      `${db.label}: schema "${schema}" already has a ${present.get(taken)} "${taken}" that is not one wallet-vault made; ` +
        'give the vault a schema of its own with the schema option or VAULT_DATABASE_SCHEMA (it is created if missing)',
    );
  }
  await client.query(`CREATE TABLE ${table} (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now(), name text, checksum text)`);
  if (previous > 0) {
    // The previous release's table stays as it was: rolling back to that release keeps working.
    await client.query(`INSERT INTO ${table} (version, applied) SELECT version, applied FROM ${client.escapeIdentifier(schema)}.${PREVIOUS_MIGRATIONS_TABLE}`);
  }
}

/** Tables, indexes, views ... in the schema: name to kind ("table", "index", "relation"). */
async function relationsIn(client: pg.Client, schema: string): Promise<Map<string, string>> {
  const { rows } = await client.query<{ name: string; kind: string }>(
    'SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1',
    [schema],
  );
  const kinds: Record<string, string> = { r: 'table', p: 'table', i: 'index', I: 'index' };
  return new Map(rows.map((r) => [r.name, kinds[r.kind] ?? 'relation']));
}

/**
 * N when the schema's `schema_migrations` is the one a previous release of the vault kept (columns
 * version integer and applied timestamptz, versions exactly 1..N of ours, every table they create
 * present, `wallets` with our columns); 0 when there is none or it belongs to another tool.
 */
async function previousReleaseVersion(client: pg.Client, schema: string, present: Map<string, string>): Promise<number> {
  if (present.get(PREVIOUS_MIGRATIONS_TABLE) !== 'table') return 0;
  const columnsOf = async (table: string) =>
    new Map(
      (
        await client.query<{ name: string; type: string }>(
          'SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
          [schema, table],
        )
      ).rows.map((r) => [r.name, r.type]),
    );
  const shape = await columnsOf(PREVIOUS_MIGRATIONS_TABLE);
  if (shape.size !== 2 || shape.get('version') !== 'integer' || shape.get('applied') !== 'timestamp with time zone') return 0;
  const { rows } = await client.query<{ n: number; low: number | null; high: number | null }>(
    `SELECT count(DISTINCT version)::int AS n, min(version) AS low, max(version) AS high FROM ${client.escapeIdentifier(schema)}.${PREVIOUS_MIGRATIONS_TABLE}`,
  );
  const { n, low, high } = rows[0]!;
  if (n === 0 || low !== 1 || high !== n || n > MIGRATIONS.length) return 0;
  if (!CREATED_BY.slice(0, n).flat().every((name) => present.has(name))) return 0;
  const walletColumns = await columnsOf('wallets');
  return OUR_WALLET_COLUMNS.every((c) => walletColumns.has(c)) ? n : 0;
}
