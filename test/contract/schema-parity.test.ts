import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDatabase } from '../../adapters/persistence/postgres/postgres.database.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { openTestDatabase, POSTGRES_AVAILABLE } from '../support/postgres.js';

/**
 * The two dialects' schemas, after every migration on a fresh database, read from each database's own
 * catalogue and compared: every table, column, nullability, primary key and index (by its table, its
 * columns, whether it is unique and whether it is partial) is the same on SQLite and PostgreSQL, except
 * the differences listed below, each with why. The SQL port implementations (adapters/persistence/sql/)
 * are written once over both, so a column one dialect's migration forgot is a bug that only one dialect's
 * users see; this test finds it when the migration is written, not in production.
 *
 * Column types are compared by what the ports store in them, not by name: SQLite has no timestamp or
 * boolean type, so an instant is an INTEGER of milliseconds there and a timestamptz here (rows.ts maps
 * both), a flag an INTEGER there and a boolean here.
 */

/** A column as both dialects can say it: the kind of value, whether it may be null, its place in the primary key. */
interface Column {
  readonly kind: string;
  readonly nullable: boolean;
  readonly primaryKey: boolean;
}

/** An index by what it does (names of constraint indexes are each dialect's own: sqlite_autoindex_…, …_pkey, …_key). */
interface Index {
  readonly table: string;
  readonly columns: string;
  readonly unique: boolean;
  readonly partial: boolean;
}

interface Schema {
  readonly columns: Readonly<Record<string, Column>>;
  readonly indexes: readonly string[];
}

/** The kind of value each dialect's declared type holds (a type missing here is compared by its name, and fails naming it). */
const SQLITE_KINDS: Record<string, string> = { TEXT: 'text', INTEGER: 'integer', BLOB: 'bytes', REAL: 'real' };
const POSTGRES_KINDS: Record<string, string> = {
  text: 'text',
  integer: 'integer',
  bigint: 'integer',
  smallint: 'integer',
  'timestamp with time zone': 'instant',
  boolean: 'flag',
  bytea: 'bytes',
  jsonb: 'json',
  'double precision': 'real',
  numeric: 'decimal',
};

/**
 * An instant is an INTEGER of milliseconds on SQLite (no timestamp type), a flag an INTEGER 0 or 1 (no
 * boolean type): every `instant` and `flag` column of PostgreSQL is an `integer` on SQLite (rows.ts
 * reads both). Any other pair of kinds must match.
 */
const SAME_VALUES: readonly (readonly [sqlite: string, postgres: string])[] = [
  ['integer', 'instant'],
  ['integer', 'flag'],
];
const sameKind = (sqlite: string, postgres: string) => sqlite === postgres || SAME_VALUES.some(([s, p]) => s === sqlite && p === postgres);

/** The migrator's bookkeeping, not the schema the ports use (each dialect's migrator makes its own; PostgreSQL's keeps name and checksum nullable for the tables of builds before named migrations it adopts). */
const BOOKKEEPING = new Set(['wallet_vault_migrations', 'schema_migrations']);

// The reasons several lines share.
const REQUEST_RATES =
  "the per-key rate limit shared by every instance (postgres.request-rates.ts, rate-limiter-flexible's table): one SQLite file serves one host, whose limits are counted in process";
const WALLET_COUNTS =
  "each vault's wallet total kept by triggers, so SQLite counts in O(1) (a count(*) there walks the index); PostgreSQL counts with an index-only scan of wallets_by_vault";
const SHORT_HASH =
  "SQLite's migration 10 (signatures-short-hash-index): a signature is found by an index on the hash's first 8 hex digits, a b-tree a fifth the size to write per sign; PostgreSQL keeps the primary key on the whole hash";
const COVERING =
  'the same covering index: SQLite has no INCLUDE, so `expires` is its last key column';
const EXPIRY =
  "initial schema: the purge reads expired wallets in (expires, id) order; SQLite's entries end in the rowid and it sorts the batch, PostgreSQL's index carries id";
const KEY_STORE =
  "PostgreSQL's initial schema only: they serve the key stores' upkeep (keys rewrap, the orphan sweep: a store's wallets by id, a key reference's wallet), operator runs that SQLite answers by scanning wallets; a SQLite migration adding them would remove these two lines";

/**
 * Every intended difference, exactly as the comparison below words it, with why. A difference not listed
 * fails the test (add a migration to the dialect that lacks it, or list it here with its reason); a line
 * whose difference is gone fails too, so the list stays true.
 */
const INTENDED: Readonly<Record<string, string>> = {
  'column request_rates.expire is only in PostgreSQL': REQUEST_RATES,
  'column request_rates.key is only in PostgreSQL': REQUEST_RATES,
  'column request_rates.points is only in PostgreSQL': REQUEST_RATES,
  'unique index on request_rates (key) is only in PostgreSQL': REQUEST_RATES,
  'column wallet_counts.generation is only in SQLite': WALLET_COUNTS,
  'column wallet_counts.rows is only in SQLite': WALLET_COUNTS,
  'column wallet_counts.vault_id is only in SQLite': WALLET_COUNTS,
  'unique index on wallet_counts (vault_id) is only in SQLite': WALLET_COUNTS,
  'partial index on wallets (vault_id, expires) is only in SQLite':
    "wallet_counts' total counts expired wallets not yet purged; SQLite subtracts them through this index (PostgreSQL counts visible rows from wallets_by_vault)",
  'column sign_value_counts.amount holds text in SQLite, decimal in PostgreSQL':
    "an amount in base units reaches 2^256: PostgreSQL holds it as numeric(78, 0), SQLite (whose INTEGER has 64 bits) as its decimal text; the sign counter reads both as a bigint",
  "column signatures.submission_hash is not in SQLite's primary key, in PostgreSQL's": SHORT_HASH,
  'index on signatures (<expression>) is only in SQLite': SHORT_HASH,
  'unique index on signatures (submission_hash) is only in PostgreSQL': SHORT_HASH,
  'index on wallets (vault_id, created, id, expires) is only in SQLite': COVERING,
  'index on wallets (vault_id, created, id) include (expires) is only in PostgreSQL': COVERING,
  'index on api_keys (vault_id, created) is only in SQLite':
    "initial schema: SQLite's index entries end in the rowid, so a vault's keys in (created, id) order are sorted in memory (a vault holds a few keys); PostgreSQL's index carries id",
  'index on api_keys (vault_id, created, id) is only in PostgreSQL': 'see the SQLite index on api_keys (vault_id, created)',
  'partial index on wallets (expires) is only in SQLite': EXPIRY,
  'partial index on wallets (expires, id) is only in PostgreSQL': EXPIRY,
  'index on wallets (key_store, id) is only in PostgreSQL': KEY_STORE,
  'index on wallets (key_store, key_ref) is only in PostgreSQL': KEY_STORE,
};

const describeIndex = (i: Index) => `${i.unique ? 'unique ' : ''}${i.partial ? 'partial ' : ''}index on ${i.table} (${i.columns})`;

function readSqlite(db: SqliteDatabase): Schema {
  const rows = db
    .prepare(
      `SELECT m.name AS tbl, p.name, p.type, p."notnull" AS not_null, p.pk
         FROM sqlite_master m JOIN pragma_table_xinfo(m.name) p
        WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
        ORDER BY m.name, p.cid`,
    )
    .all() as { tbl: string; name: string; type: string; not_null: number; pk: number }[];
  const columns: Record<string, Column> = {};
  const keys = new Map<string, { name: string; type: string }[]>();
  for (const r of rows) {
    if (BOOKKEEPING.has(r.tbl)) continue;
    if (r.pk > 0) keys.set(r.tbl, [...(keys.get(r.tbl) ?? []), r]);
    // A type this test does not map keeps its own name, so the comparison below names it.
    const kind = SQLITE_KINDS[r.type.toUpperCase()] ?? `type ${r.type}`;
    // A PRIMARY KEY column is NOT NULL in PostgreSQL by definition; SQLite allows NULL in a non-INTEGER one unless declared.
    columns[`${r.tbl}.${r.name}`] = { kind, nullable: r.not_null === 0 && r.pk === 0, primaryKey: r.pk > 0 };
  }
  const indexes = db
    .prepare(
      `SELECT m.name AS tbl, l.name, l."unique" AS is_unique, l.origin, l.partial,
              (SELECT group_concat(coalesce(i.name, '<expression>'), ', ') FROM (SELECT i.name FROM pragma_index_info(l.name) i ORDER BY i.seqno) i) AS cols
         FROM sqlite_master m JOIN pragma_index_list(m.name) l
        WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
    )
    .all() as { tbl: string; name: string; is_unique: number; origin: string; partial: number; cols: string | null }[];
  const described = indexes.filter((i) => !BOOKKEEPING.has(i.tbl)).map((i) => describeIndex({ table: i.tbl, columns: i.cols ?? '', unique: i.is_unique === 1, partial: i.partial === 1 }));
  // A lone INTEGER PRIMARY KEY is the rowid: the table's own b-tree, unique, with no index of its own in the catalogue.
  for (const [table, key] of keys) {
    if (key.length === 1 && key[0]!.type.toUpperCase() === 'INTEGER') described.push(describeIndex({ table, columns: key[0]!.name, unique: true, partial: false }));
  }
  return { columns, indexes: described.sort() };
}

async function readPostgres(db: PostgresDatabase): Promise<Schema> {
  const { rows } = await db.query<{ tbl: string; name: string; type: string; notnull: boolean; pk: boolean }>(
    `SELECT c.relname AS tbl, a.attname AS name, format_type(a.atttypid, NULL) AS type, a.attnotnull AS notnull,
            EXISTS (SELECT 1 FROM pg_index x WHERE x.indrelid = c.oid AND x.indisprimary AND a.attnum = ANY (x.indkey)) AS pk
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
      ORDER BY c.relname, a.attnum`,
  );
  const columns: Record<string, Column> = {};
  for (const r of rows) {
    if (BOOKKEEPING.has(r.tbl)) continue;
    const kind = POSTGRES_KINDS[r.type] ?? `type ${r.type}`;
    columns[`${r.tbl}.${r.name}`] = { kind, nullable: !r.notnull, primaryKey: r.pk };
  }
  const indexes = await db.query<{ tbl: string; is_unique: boolean; partial: boolean; cols: string; included: string | null }>(
    `SELECT t.relname AS tbl, x.indisunique AS is_unique, x.indpred IS NOT NULL AS partial,
            (SELECT string_agg(pg_get_indexdef(x.indexrelid, k, true), ', ' ORDER BY k) FROM generate_series(1, x.indnkeyatts) k) AS cols,
            (SELECT string_agg(pg_get_indexdef(x.indexrelid, k, true), ', ' ORDER BY k) FROM generate_series(x.indnkeyatts + 1, x.indnatts) k) AS included
       FROM pg_index x
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = current_schema()`,
  );
  return {
    columns,
    indexes: indexes.rows
      .filter((i) => !BOOKKEEPING.has(i.tbl))
      .map((i) => describeIndex({ table: i.tbl, columns: i.included === null ? i.cols : `${i.cols}) include (${i.included}`, unique: i.is_unique, partial: i.partial }))
      .sort(),
  };
}

describe.skipIf(!POSTGRES_AVAILABLE)('the SQLite and PostgreSQL schemas after every migration', () => {
  let sqlite: Schema;
  let postgres: Schema;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-parity-'));
    const file = openSqliteDatabase({ path: path.join(dir, 'vault.db') });
    sqlite = readSqlite(file);
    file.close();
    await rm(dir, { recursive: true, force: true });
    const opened = await openTestDatabase();
    cleanup = opened.cleanup;
    postgres = await readPostgres(opened.db);
  });
  afterAll(() => cleanup?.());

  /** Every difference between the two, worded as INTENDED's keys. */
  function differences(): string[] {
    const found: string[] = [];
    const names = new Set([...Object.keys(sqlite.columns), ...Object.keys(postgres.columns)]);
    for (const name of [...names].sort()) {
      const s = sqlite.columns[name];
      const p = postgres.columns[name];
      if (s === undefined) found.push(`column ${name} is only in PostgreSQL`);
      else if (p === undefined) found.push(`column ${name} is only in SQLite`);
      else {
        if (!sameKind(s.kind, p.kind)) found.push(`column ${name} holds ${s.kind} in SQLite, ${p.kind} in PostgreSQL`);
        if (s.nullable !== p.nullable) found.push(`column ${name} is ${s.nullable ? '' : 'NOT '}NULL in SQLite, ${p.nullable ? '' : 'NOT '}NULL in PostgreSQL`);
        if (s.primaryKey !== p.primaryKey) found.push(`column ${name} is ${s.primaryKey ? '' : 'not '}in SQLite's primary key, ${p.primaryKey ? '' : 'not '}in PostgreSQL's`);
      }
    }
    const inSqlite = new Set(sqlite.indexes);
    const inPostgres = new Set(postgres.indexes);
    found.push(...sqlite.indexes.filter((i) => !inPostgres.has(i)).map((i) => `${i} is only in SQLite`));
    found.push(...postgres.indexes.filter((i) => !inSqlite.has(i)).map((i) => `${i} is only in PostgreSQL`));
    return found;
  }

  it('have the same tables, columns (kind, nullability, primary key) and indexes (table, columns, unique, partial), but for the listed differences', () => {
    expect(differences().filter((d) => !(d in INTENDED))).toEqual([]);
  });

  it('list no intended difference that is not there any more', () => {
    const found = new Set(differences());
    expect(Object.keys(INTENDED).filter((d) => !found.has(d))).toEqual([]);
  });

  it('are read from the catalogue: a table, a column and an index of each are seen', () => {
    for (const schema of [sqlite, postgres]) {
      expect(schema.columns['wallets.address']).toEqual({ kind: 'text', nullable: false, primaryKey: false });
      expect(schema.indexes).toContain('unique index on wallets (address)');
      expect(schema.indexes).toContain('partial index on approvals (expires)');
    }
  });
});
