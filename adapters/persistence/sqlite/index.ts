import { z } from 'zod';
import type { Persistence } from '../../../src/ports/persistence.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { InProcessJobLock } from './in-process.job-lock.js';
import { SqliteAuditLog } from './sqlite.audit-log.js';
import { closeCommitQueueOf } from './sqlite.commit-queue.js';
import { openSqliteDatabase } from './sqlite.database.js';
import { SqliteKeyQuarantine } from './sqlite.key-quarantine.js';
import { SqlitePolicyRepository } from './sqlite.policy-repository.js';
import { SqliteReplayGuard } from './sqlite.replay-guard.js';
import { SqliteSignatureLog } from './sqlite.signature-log.js';
import { SqliteWalletRepository } from './sqlite.wallet-repository.js';

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
}

const schema = z.strictObject({ path: z.string().min(1), sharedNonces: z.boolean().optional() });

/** Opens (and migrates) the SQLite database (`wallet-vault/persistence/sqlite`). */
export async function sqlitePersistence(options: SqlitePersistenceOptions): Promise<Persistence> {
  const o = parseFactoryOptions('sqlitePersistence', schema, options);
  const db = openSqliteDatabase({ path: o.path });
  const auditLog = new SqliteAuditLog(db);
  return {
    repository: new SqliteWalletRepository(db),
    signatureLog: new SqliteSignatureLog(db, auditLog),
    replayGuard: o.sharedNonces === false ? undefined : (now) => new SqliteReplayGuard(db, now),
    description: `SQLite ${o.path}`,
    auditLog,
    policies: new SqlitePolicyRepository(db),
    jobLock: new InProcessJobLock(),
    keyQuarantine: new SqliteKeyQuarantine(db),
    close: async () => {
      await closeCommitQueueOf(db);
      db.close();
    },
  };
}
