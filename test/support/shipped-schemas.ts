import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

/**
 * The databases builds of main left (test/fixtures/shipped-schemas/, written once by
 * scripts/shipped-schemas.mjs): a dump per build whose migration list (or way of recording it) was new,
 * and for a build whose list departs from today's, its database after a later build migrated it.
 */
export interface ShippedSchema {
  readonly dialect: 'sqlite' | 'postgres';
  /** Under test/fixtures/shipped-schemas/: `<version>-<first commit>..<last commit>[-then-…].sql`. */
  readonly file: string;
  /** The version the last build recorded. */
  readonly version: number;
  /** How the versions are recorded: `user_version`, `schema_migrations` (PostgreSQL before a65c9b1) or `wallet_vault_migrations`. */
  readonly records: string;
  /** The builds that migrated it, oldest first: the first and last first-parent commit of main with that list. */
  readonly builds: readonly { commit: string; last: string; date: string; subject: string; version: number }[];
  /** The checksums of the migrations that ran, in order (a later build runs only those past the version it found). */
  readonly ran: readonly string[];
}

const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'shipped-schemas');
const index = JSON.parse(readFileSync(path.join(FIXTURES, 'index.json'), 'utf8')) as {
  readonly fixture: { readonly vault: string; readonly apiKeyId: string; readonly apiKeySecret: string; readonly wallet: string; readonly walletAddress: string; readonly submissionHash: string };
  readonly dumps: readonly ShippedSchema[];
};

export const SHIPPED_SCHEMAS: readonly ShippedSchema[] = index.dumps;
/** What every dump holds besides its schema: a vault, its API key (wv_<apiKeyId>_<apiKeySecret>), a wallet, a signature. */
export const SHIPPED_DATA = index.fixture;
export const shippedApiKey = `wv_${SHIPPED_DATA.apiKeyId}_${SHIPPED_DATA.apiKeySecret}`;

/** The dump whose file name starts with `prefix` (`sqlite/12-`, `postgres/12-575bb29`). */
export function shippedSchema(prefix: string): ShippedSchema {
  const found = SHIPPED_SCHEMAS.find((s) => s.file.startsWith(prefix));
  if (!found) throw new Error(`no shipped schema ${prefix}`);
  return found;
}

const dumpOf = (s: ShippedSchema) => readFileSync(path.join(FIXTURES, s.file), 'utf8');

/** A new SQLite file at `file` holding the dump. */
export function loadSqliteSchema(s: ShippedSchema, file: string): void {
  const db = new Database(file);
  try {
    db.exec(dumpOf(s));
  } finally {
    db.close();
  }
}

/**
 * The dump loaded into schema `schema` (created) of the database at `url`: the dumps name their objects
 * `public.…`, which is renamed, so many dumps can share one database (a database per dump costs a
 * CREATE and a DROP DATABASE each). Before a65c9b1 the vault had no schema option but used the
 * connection's current schema, so a database of those builds in a schema other than public is one
 * an operator could have.
 */
export async function loadPostgresSchema(s: ShippedSchema, url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${client.escapeIdentifier(schema)}`);
    await client.query(dumpOf(s).replaceAll('public.', `${client.escapeIdentifier(schema)}.`));
  } finally {
    await client.end();
  }
}
