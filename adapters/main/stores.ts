import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { JobLock } from '../../src/ports/job-lock.port.js';
import type { KeyStore } from '../../src/ports/key-store.port.js';
import type { ReplayGuard } from '../../src/ports/replay-guard.port.js';
import type { PolicyRepository } from '../../src/ports/policy-repository.port.js';
import type { SignatureLog } from '../../src/ports/signature-log.port.js';
import type { WalletRepository } from '../../src/ports/wallet-repository.port.js';
import { AwsKmsKeyStore } from '../keystore/aws-kms/aws-kms.key-store.js';
import { LocalFileKeyStore } from '../keystore/local-file/local-file.key-store.js';
import { Pkcs11KeyStore } from '../keystore/pkcs11/pkcs11.key-store.js';
import { VaultTransitKeyStore } from '../keystore/vault-transit/vault-transit.key-store.js';
import { resolveMasterKey } from '../keystore/local-file/master-key.js';
import { openPostgresDatabase } from '../persistence/postgres/postgres.database.js';
import { PostgresAuditLog } from '../persistence/postgres/postgres.audit-log.js';
import { PostgresJobLock } from '../persistence/postgres/postgres.job-lock.js';
import { PostgresPolicyRepository } from '../persistence/postgres/postgres.policy-repository.js';
import { PostgresReplayGuard } from '../persistence/postgres/postgres.replay-guard.js';
import { PostgresSignatureLog } from '../persistence/postgres/postgres.signature-log.js';
import { PostgresWalletRepository } from '../persistence/postgres/postgres.wallet-repository.js';
import { InProcessJobLock } from '../persistence/sqlite/in-process.job-lock.js';
import { SqliteAuditLog } from '../persistence/sqlite/sqlite.audit-log.js';
import { openSqliteDatabase } from '../persistence/sqlite/sqlite.database.js';
import { SqlitePolicyRepository } from '../persistence/sqlite/sqlite.policy-repository.js';
import { SqliteReplayGuard } from '../persistence/sqlite/sqlite.replay-guard.js';
import { SqliteSignatureLog } from '../persistence/sqlite/sqlite.signature-log.js';
import { SqliteWalletRepository } from '../persistence/sqlite/sqlite.wallet-repository.js';
import type { AppConfig } from './config.js';
import type { Logger } from './logger.js';

export interface OpenedPersistence {
  readonly repository: WalletRepository;
  readonly signatureLog: SignatureLog;
  /**
   * A guard kept in the database, made with the container's clock: shared by every process on it
   * (several instances on PostgreSQL, several workers or a second server on SQLite) and surviving a
   * restart, so a captured request is refused everywhere until its signature expires. Absent only for
   * stores of tests, which then keep nonces in memory.
   */
  readonly replayGuard?: (now: () => number) => ReplayGuard;
  /** `SQLite <path>` or `PostgreSQL database "name" on host:port`, for the start log (never a password). */
  readonly description: string;
  readonly auditLog: AuditLog;
  readonly policies: PolicyRepository;
  readonly jobLock: JobLock;
  close(): Promise<void>;
}

/** The data directory holds keys and the database: only its owner may enter it. */
export function ensureDataDir(config: AppConfig): void {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
}

/**
 * PostgreSQL when VAULT_DATABASE_URL is set (migrated before this resolves; an unreachable database
 * rejects with DATABASE_UNAVAILABLE naming it), else SQLite in the data directory.
 */
export async function openPersistence(config: AppConfig, logger?: Logger): Promise<OpenedPersistence> {
  if (config.database) {
    const db = await openPostgresDatabase({
      ...config.database,
      onIdleError: (error) => logger?.warn({ err: error.message, database: db.label }, 'an idle database connection failed; it will be replaced'),
    });
    return {
      repository: new PostgresWalletRepository(db),
      signatureLog: new PostgresSignatureLog(db),
      replayGuard: (now) => new PostgresReplayGuard(db, now),
      auditLog: new PostgresAuditLog(db),
      policies: new PostgresPolicyRepository(db),
      jobLock: new PostgresJobLock(db),
      description: db.label,
      close: () => db.close(),
    };
  }
  ensureDataDir(config);
  const file = path.join(config.dataDir, 'vault.db');
  const db = openSqliteDatabase({ path: file });
  return {
    repository: new SqliteWalletRepository(db),
    signatureLog: new SqliteSignatureLog(db),
    replayGuard: (now) => new SqliteReplayGuard(db, now),
    description: `SQLite ${file}`,
    auditLog: new SqliteAuditLog(db),
    policies: new SqlitePolicyRepository(db),
    jobLock: new InProcessJobLock(),
    close: async () => {
      db.close();
    },
  };
}

/**
 * Every configured store: local always (it serves the wallets it holds even when new wallets go
 * elsewhere), plus each store whose settings are present. Each must answer before the server starts, so
 * bad credentials stop the start with the store's own message.
 */
export async function openKeyStores(config: AppConfig, logger: Logger): Promise<KeyStore[]> {
  const stores = [await openLocalKeyStore(config, logger)];
  if (config.pkcs11) stores.push(new Pkcs11KeyStore(config.pkcs11));
  const requestTimeoutMs = config.outboundTimeoutMs;
  if (config.awsKms) stores.push(new AwsKmsKeyStore({ ...config.awsKms, requestTimeoutMs }));
  if (config.vaultTransit) stores.push(new VaultTransitKeyStore({ ...config.vaultTransit, requestTimeoutMs }));
  try {
    await Promise.all(stores.map((s) => s.ping()));
  } catch (error) {
    await Promise.all(stores.map((s) => s.close()));
    throw error;
  }
  return stores;
}

async function openLocalKeyStore(config: AppConfig, logger: Logger): Promise<KeyStore> {
  ensureDataDir(config);
  if (config.database && config.keyStore === 'local') {
    logger.warn(
      { keysDir: path.join(config.dataDir, 'keys') },
      'VAULT_DATABASE_URL with VAULT_KEYSTORE=local: every instance on this database must share this key directory and VAULT_MASTER_KEY, or an instance cannot sign for wallets created on another; prefer pkcs11, aws-kms or vault-transit for several instances',
    );
  }
  const master = await resolveMasterKey({ dataDir: config.dataDir, masterKeyHex: config.masterKeyHex });
  if (master.source === 'file') {
    logger.warn(
      { masterKeyFile: path.join(config.dataDir, 'master.key'), created: master.createdNow },
      'VAULT_MASTER_KEY is not set: the master key sits in a file beside the data it protects; set VAULT_MASTER_KEY from a secret manager in production',
    );
  }
  return new LocalFileKeyStore({ keysDir: path.join(config.dataDir, 'keys'), masterKey: master.key });
}
