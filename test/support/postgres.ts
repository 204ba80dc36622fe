import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgresDatabase, type PostgresConfig, type PostgresDatabase } from '../../adapters/persistence/postgres/postgres.database.js';

/** The machine's PostgreSQL server (trust auth for `postgres`); override with VAULT_TEST_POSTGRES_URL. */
export const POSTGRES_ADMIN_URL = process.env.VAULT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function probe(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const POSTGRES_AVAILABLE = await probe();
if (!POSTGRES_AVAILABLE) console.warn(`SKIPPED: PostgreSQL tests were not run: no server answers at ${POSTGRES_ADMIN_URL.replace(/:[^:@/]*@/, ':***@')}`);

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface TestDatabase {
  readonly name: string;
  /** URL of the fresh database (same server and user as the admin URL). */
  readonly url: string;
  /** The URL with another host and port (a proxy in front of the server). */
  urlVia(host: string, port: number): string;
  /** Drops the database, disconnecting whoever is still on it. */
  drop(): Promise<void>;
}

/** A new empty database with a random name; the caller drops it when done. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `wallet_vault_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    urlVia: (host, port) => {
      const via = new URL(url);
      via.hostname = host;
      via.port = String(port);
      return via.toString();
    },
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Pool settings small enough for several test files at once on a server with 100 connections. */
export const testPostgresConfig = (url: string, overrides: Partial<PostgresConfig> = {}): PostgresConfig => ({
  url,
  poolSize: 4,
  connectTimeoutMs: 5000,
  queryTimeoutMs: 10_000,
  ...overrides,
});

/** A fresh database, migrated and opened; closing it also drops it. */
export async function openTestDatabase(overrides: Partial<PostgresConfig> = {}): Promise<{ db: PostgresDatabase; test: TestDatabase; cleanup(): Promise<void> }> {
  const test = await createTestDatabase();
  const db = await openPostgresDatabase(testPostgresConfig(test.url, overrides));
  return {
    db,
    test,
    cleanup: async () => {
      await db.close();
      await test.drop();
    },
  };
}

/** Closes backends of a database from the server side, as a failover or an operator would. */
export async function terminateConnections(name: string): Promise<number> {
  return admin(async (c) => {
    const { rowCount } = await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
    return rowCount ?? 0;
  });
}
