import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { openPostgresDatabase } from '../../adapters/persistence/postgres/postgres.database.js';
import { PostgresJobLock } from '../../adapters/persistence/postgres/postgres.job-lock.js';
import { postgresSql } from '../../adapters/persistence/postgres/postgres.sql.js';
import type { SqlDatabase } from '../../adapters/persistence/sql/sql-database.js';
import { InProcessJobLock } from '../../adapters/persistence/sqlite/in-process.job-lock.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';
import type { JobLock } from '../../src/ports/job-lock.port.js';
import { openTestDatabase, POSTGRES_AVAILABLE, testPostgresConfig } from './postgres.js';

/**
 * Every SQL dialect the port contract suites run over, as test/support/backends.ts is every target the
 * HTTP suites run over: one file per port (test/contract/ports/) loops over this table, so a port's
 * suite is wired once and a new dialect is one entry here. What a dialect does its own way (two
 * processes on one database, its job lock) is answered by the entry, never by the port's file.
 */
export interface OpenedDatabase {
  /** The seam over the fresh, migrated database: every `Sql*` port is built on it. */
  readonly sql: SqlDatabase;
  /**
   * Another process's connection to the same database (SQLite: a second connection on the file, as a
   * worker or the CLI has; PostgreSQL: a second pool, as another instance has). Closed by cleanup.
   */
  other(): Promise<SqlDatabase>;
  /**
   * A second writer whose transactions the contract interleaves with the first's in one test: PostgreSQL,
   * a second pool; SQLite, the same connection again, since two connections of one thread cannot share
   * the write lock (the second's BEGIN IMMEDIATE blocks the thread the first needs to commit), and the
   * processes that share a file in service each have their own thread, where BEGIN IMMEDIATE serialises them.
   */
  interleaved(): Promise<SqlDatabase>;
  /** The dialect's job lock over this database. */
  readonly jobLock: JobLock;
  /** Closes every connection and removes the database. */
  cleanup(): Promise<void>;
}

export interface SqlDialect {
  /** In every suite's name: `sqlite`, `postgres`, `postgres, schema "vault"`. */
  readonly name: string;
  /** PostgreSQL needs the machine's server (test/support/postgres.ts says on the console when it is missing). */
  readonly available: boolean;
  /** What `interleaved()` is, for the names of the suites that use it. */
  readonly interleavedIs: string;
  /** What the job lock is. */
  readonly jobLockIs: string;
  /** A fresh, migrated database of its own. */
  open(): Promise<OpenedDatabase>;
  /**
   * For a suite that wants `tables` empty at each test: a factory to call in each test's fixture. A fresh
   * database where that is cheap (a SQLite file), else one database for the block, emptied per test
   * (creating a PostgreSQL database per test would be slow). Call it inside a describe block: it may
   * register that block's hooks.
   */
  emptiedPerTest(tables: readonly string[]): () => Promise<OpenedDatabase>;
}

const sqlite: SqlDialect = {
  name: 'sqlite',
  available: true,
  interleavedIs: 'one connection twice',
  jobLockIs: 'in-process',
  async open() {
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-sqlite-'));
    const file = path.join(dir, 'vault.db');
    const db = openSqliteDatabase({ path: file });
    const others: ReturnType<typeof openSqliteDatabase>[] = [];
    const sql = sqliteSql(db);
    return {
      sql,
      other: async () => {
        const second = openSqliteDatabase({ path: file });
        others.push(second);
        return sqliteSql(second);
      },
      interleaved: async () => sql,
      jobLock: new InProcessJobLock(),
      cleanup: async () => {
        for (const c of [...others, db]) c.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  emptiedPerTest() {
    return () => sqlite.open();
  },
};

/** PostgreSQL in the connection's current schema (public), or in `schema`, where every statement, the trigger function and the migrations table must resolve. */
function postgres(schema: string | undefined): SqlDialect {
  const dialect: SqlDialect = {
    name: schema ? `postgres, schema "${schema}"` : 'postgres',
    available: POSTGRES_AVAILABLE,
    interleavedIs: 'two pools on one database',
    jobLockIs: 'advisory lock',
    async open() {
      const { db, test, cleanup } = await openTestDatabase({ schema });
      const pools: Awaited<ReturnType<typeof openPostgresDatabase>>[] = [];
      const pool = async () => {
        const second = await openPostgresDatabase(testPostgresConfig(test.url, { schema }));
        pools.push(second);
        return postgresSql(second);
      };
      return {
        sql: postgresSql(db),
        other: pool,
        interleaved: pool,
        jobLock: new PostgresJobLock(db),
        cleanup: async () => {
          for (const p of pools) await p.close();
          await cleanup();
        },
      };
    },
    emptiedPerTest(tables) {
      let shared: OpenedDatabase | undefined;
      beforeAll(async () => {
        shared = await dialect.open();
      });
      afterAll(() => shared?.cleanup());
      return async () => {
        await shared!.sql.run(`TRUNCATE ${tables.join(', ')}`);
        return { ...shared!, cleanup: async () => undefined };
      };
    },
  };
  return dialect;
}

/** Every dialect, in the order the suites run them. */
export const SQL_DIALECTS: readonly SqlDialect[] = [sqlite, postgres(undefined), postgres('vault')];

/** `body` once per dialect, in a block named after it; skipped (and said so) where its server is missing. */
export function describeEachDialect(body: (dialect: SqlDialect) => void): void {
  for (const d of SQL_DIALECTS) describe.skipIf(!d.available)(`over ${d.name}`, () => body(d));
}

/** A fixture's cleanup for the in-memory twins, which hold nothing outside the process. */
export const nothingToClean = async (): Promise<void> => undefined;
