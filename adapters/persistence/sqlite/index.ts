import { z } from 'zod';
import type { Persistence } from '../../../src/ports/persistence.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireDriver } from '../../optional-driver.js';
import { sqlPersistence } from '../sql/sql-persistence.js';
import type { DumpDialect } from '../sql/sql.database-dump.js';
import { SQLITE_EXPECTED_SCHEMA } from './sqlite.expected-schema.js';

// better-sqlite3 is an optional peer dependency like pg: a PostgreSQL-only application does not install
// (and compile) it. Checked before the modules that load it, so its absence names the package to install.
await requireDriver('better-sqlite3', 'persistence/sqlite');
const [{ InProcessJobLock }, { closeCommitQueueOf }, { openSqliteDatabase }, { sqliteSql }] = await Promise.all([
  import('./in-process.job-lock.js'),
  import('./sqlite.commit-queue.js'),
  import('./sqlite.database.js'),
  import('./sqlite.sql.js'),
]);

/** Options of the embedded SQLite database. */
export interface SqlitePersistenceOptions {
  /** The database file (WAL mode, synchronous=FULL); its directory is created 0700 when missing. */
  readonly path: string;
  /**
   * Keep `X-Vault-Auth-Signature` nonces in the database (default true), so a captured request is
   * refused after a restart, by another worker and by a second process on the same file. False keeps
   * them in this process's memory: a restart forgets them.
   */
  readonly sharedNonces?: boolean;
  /**
   * True (default): create the file when missing and apply the migrations its schema lacks, as a server
   * does at start. False: check only, for tools that must not create or change tables: a missing file
   * (not created) or a schema that is not this build's is refused with DATABASE_UNAVAILABLE naming
   * `wallet-vault migrate` and the file.
   */
  readonly migrate?: boolean;
}

const schema = z.strictObject({ path: z.string().min(1), sharedNonces: z.boolean().optional(), migrate: z.boolean().optional() });

/**
 * Opens (and, unless `migrate: false`, creates and migrates) the SQLite database
 * (`wallet-vault/persistence/sqlite`; needs the optional package better-sqlite3).
 */
export async function sqlitePersistence(options: SqlitePersistenceOptions): Promise<Persistence> {
  const o = parseFactoryOptions('sqlitePersistence', schema, options);
  const db = openSqliteDatabase({ path: o.path, migrate: o.migrate });
  return sqlPersistence(sqliteSql(db), {
    description: `SQLite ${o.path}`,
    sharedNonces: o.sharedNonces !== false,
    jobLock: new InProcessJobLock(),
    dump: SQLITE_DUMP,
    close: async () => {
      await closeCommitQueueOf(db);
      db.close();
    },
  });
}

/**
 * SQLite's tables in a backup: values as stored (an instant is already its milliseconds); wallet_counts
 * is kept by the wallets' triggers, so a restore rebuilds it as it inserts the wallets. One write
 * transaction reads every table, so the copy is one state of the database.
 */
const SQLITE_DUMP: DumpDialect = {
  name: 'sqlite',
  schema: SQLITE_EXPECTED_SCHEMA,
  derived: ['wallet_counts'],
  exportValue: (_type, value) => {
    if (value === null || value === undefined) return null;
    if (typeof value === 'number' || typeof value === 'string') return value;
    if (typeof value === 'bigint') return Number(value);
    throw new Error(`a value of type ${typeof value} cannot be copied`);
  },
  importValue: (_type, value) => value,
};
