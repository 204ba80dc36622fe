import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { KeyStore } from '../../src/ports/key-store.port.js';
import { SYSTEM } from '../../src/application/audit/audit-actor.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import { KeyStoreSettingsError, type KeyStoreOpenContext, type KeyStoreRetryReason } from '../keystore/key-store-module.js';
import { MASTER_KEY_FILE, resolveMasterKey } from '../keystore/local-file/master-key.js';
import { MasterKeyHolder } from '../keystore/local-file/master-key-holder.js';
import { verifyMasterKey } from '../keystore/local-file/master-key-check.js';
import { readCurrentSplit } from '../keystore/local-file/current-split.js';
import { ShamirUnseal } from '../keystore/local-file/shamir-unseal.js';
import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { existsSync } from 'node:fs';
import { ReadinessFailure } from './readiness.js';
import { SealedKeyStore } from './sealed-key-store.js';
import { TOKENS } from './tokens.js';
import { REGISTERED_KEY_STORES } from '../keystore/registered-key-stores.js';
import { MissingDriverError } from '../optional-driver.js';
import { webhookSigningKey } from '../webhooks/webhook-signing-key.js';
import { ConfigError, KEYSTORES, type AppConfig } from './config.js';
import { createVault, type Vault } from './create-vault.js';
import type { Logger } from './logger.js';
import { recordSchemaMigration } from './maintenance-audit.js';
import type { VaultOptions } from './vault-options.js';
import { detectVersion } from './version.js';

/** How the standalone server and the CLI differ in what they open. */
export interface FromConfigOptions {
  readonly logger?: Logger;
  /** Open the configured key stores too (default true); the operator commands on vaults, policies and audit do not. */
  readonly keyStores?: boolean;
  /** Wraps each key store once opened (the server times them for Prometheus). */
  readonly decorateKeyStore?: (store: KeyStore) => KeyStore;
  /** Told each time a remote key store retries a request (the server counts wallet_vault_keystore_retries_total). */
  readonly keyStoreRetried?: (store: string, reason: KeyStoreRetryReason) => void;
  readonly clock?: VaultOptions['clock'];
  readonly jobs?: VaultOptions['jobs'];
  readonly jobMetrics?: VaultOptions['jobMetrics'];
  /** Told of each refused authentication besides the audit summary (the server's metrics). */
  readonly authRefused?: VaultOptions['authRefused'];
  readonly webhookMetrics?: VaultOptions['webhookMetrics'];
  /** Told of votes a release found without a valid signature (the server's metrics). */
  readonly invalidVotes?: VaultOptions['invalidVotes'];
  readonly simulationMetrics?: VaultOptions['simulationMetrics'];
  /** Told of the audit sinks' state and of writes refused for want of one (the server's metrics). */
  readonly auditStreamMetrics?: NonNullable<VaultOptions['auditStream']>['metrics'];
  /**
   * Apply the migrations the database lacks, creating it when missing (default true: the server). False:
   * the CLI's operator commands, which only check and refuse a database that is not at this build's
   * schema version, naming `wallet-vault migrate` (only `serve` and `migrate` create or change tables).
   */
  readonly migrate?: boolean;
  /**
   * Options given in code (`createVault({ configFile, … })`): each replaces what the configuration says.
   * With `persistence` or `keyStores` given, the configured database or key stores are not opened.
   */
  readonly overrides?: Partial<VaultOptions>;
}

/**
 * The vault the environment describes: the standalone server, the cluster primary and the CLI build it
 * here, through the same factories and `createVault` an embedding application uses. The drivers of
 * stores that are not configured are never loaded.
 */
export async function vaultFromConfig(config: AppConfig, o: FromConfigOptions = {}): Promise<Vault> {
  // Read before anything is opened: a bad file stops the start with nothing to close.
  const webhookKey = o.keyStores === false ? undefined : readWebhookKey(config);
  const overrides = o.overrides ?? {};
  // Migrated as a step of its own, as `wallet-vault migrate` does, so that what it applied is known and
  // recorded below (the persistence then finds its schema up to date). A persistence given in code is the
  // application's to migrate.
  const migration = o.migrate === false || overrides.persistence !== undefined ? undefined : await migrateStore(config);
  const persistence = overrides.persistence ?? (await openPersistence(config, o.logger, o.migrate !== false));
  let keyStores: KeyStore[] = [];
  let masterKey: Buffer | undefined;
  // VAULT_SEAL=shamir: the key the unseal fills; every store is wrapped so nothing signs before it.
  const sealed = config.seal && o.keyStores !== false && overrides.keyStores === undefined ? new MasterKeyHolder() : undefined;
  try {
    if (sealed && (await persistence.repository.bindingUpgradePending()) && (await persistence.repository.listUnbound({ afterId: null, limit: 1 })).length > 0) {
      // The upgrade binds each wallet with its key once (bindEarlierWallets): sealed, it would bind none and
      // leave every wallet of the earlier release refused until an operator binds it.
      throw new ConfigError(
        'VAULT_SEAL=shamir: the wallets of an earlier release are not bound to their keys yet, and binding them needs the master key; start once without VAULT_SEAL (with the master key), then seal (docs/operations.md, "Wallet bindings")',
      );
    }
    if (overrides.keyStores !== undefined) keyStores = [...overrides.keyStores];
    else if (o.keyStores !== false) ({ stores: keyStores, masterKey } = await openKeyStores(config, o.logger, o.keyStoreRetried, sealed));
    // Skipped, said once: the checkpoint key derives from the master key, which a sealed start does not have
    // (and an unseal does not bring back the schedule: a checkpoint signed by a key only custodians hold
    // together would need them at every restart). The chain itself is written and verifiable as ever.
    if (sealed && config.auditCheckpointIntervalMs > 0 && o.keyStores !== false) {
      o.logger?.info({ seal: 'shamir' }, 'audit checkpoints skipped: VAULT_SEAL=shamir (their key derives from the master key); the audit chain is written and verified as ever');
    }
  } catch (error) {
    await persistence.close();
    throw error;
  }
  const vault = await createVault({
    defaultKeyStore: overrides.keyStores !== undefined ? overrides.defaultKeyStore : keyStores.length > 0 ? config.keyStore : undefined,
    authSecret: config.authSecret,
    governancePins: config.governancePins,
    ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
    ...(config.oidc === undefined ? {} : { oidc: config.oidc }),
    consoleChallenges: config.consoleChallenges,
    rpcUrls: config.rpcUrls,
    rpcAllowHttp: config.rpcAllowHttp,
    chains: config.addedChains,
    outboundTimeoutMs: config.outboundTimeoutMs,
    version: config.version ?? detectVersion(),
    clock: o.clock,
    jobs: o.keyStores === false ? false : (o.jobs ?? { intervalMs: config.purgeIntervalMs }),
    logger: o.logger,
    jobMetrics: o.jobMetrics,
    authRefused: o.authRefused,
    invalidVotes: o.invalidVotes,
    // Delivered where the jobs run; the operator commands (no key stores) neither deliver nor read the key.
    webhooks: o.keyStores === false ? false : { signingKey: webhookKey, pollIntervalMs: config.webhookPollMs },
    webhookMetrics: o.webhookMetrics,
    // Streamed where the vault serves; the operator commands stream nothing (the serving instance sends their records).
    ...(o.keyStores === false || config.auditStream === undefined ? {} : { auditStream: { ...config.auditStream, ...(o.auditStreamMetrics ? { metrics: o.auditStreamMetrics } : {}) } }),
    // Signed with a key derived from the master key, which never enters the database (docs/security.md).
    auditCheckpoints: masterKey && config.auditCheckpointIntervalMs > 0 ? { key: masterKey, intervalMs: config.auditCheckpointIntervalMs } : false,
    simulationMetrics: o.simulationMetrics,
    authRefusedSummaryIntervalMs: config.authRefusedSummaryMs,
    // The operator commands on vaults, policies and audit open no key store and never sign or hash a
    // digest: they run where the bindings fell back. Everything that opens key stores is refused there.
    allowJavaScriptFallback: o.keyStores === false,
    ...overrides,
    persistence,
    keyStores: (o.decorateKeyStore ? keyStores.map(o.decorateKeyStore) : keyStores).map((s) => (sealed ? new SealedKeyStore(s, sealed) : s)),
  });
  if (sealed && config.seal) withSeal(vault, config, sealed, config.seal.unsealTimeoutMs);
  if (migration) {
    try {
      await recordSchemaMigration(vault.container, SYSTEM, migration);
    } catch (error) {
      await vault.close();
      throw error;
    }
    // Said where the operator who started the server looks first, besides the audit record.
    if (migration.repaired?.length) o.logger?.warn({ repaired: migration.repaired }, 'repaired the database schema an earlier build left different (audit: schema.migrated)');
  }
  return vault;
}

/** The PEM text of VAULT_WEBHOOK_SIGNING_KEY's file, checked to be an Ed25519 private key; undefined when unset. */
function readWebhookKey(config: AppConfig): string | undefined {
  const file = config.webhookSigningKeyFile;
  if (file === undefined) return undefined;
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`VAULT_WEBHOOK_SIGNING_KEY: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    webhookSigningKey(pem);
  } catch (error) {
    throw new ConfigError(`VAULT_WEBHOOK_SIGNING_KEY: ${file} is ${(error as Error).message}`);
  }
  return pem;
}

/** The data directory holds keys and the database: only its owner may enter it. */
function ensureDataDir(config: AppConfig): void {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
}

/**
 * PostgreSQL when VAULT_DATABASE_URL is set (migrated, or with `migrate` false checked, before this
 * resolves; an unreachable database rejects with DATABASE_UNAVAILABLE naming it), else SQLite in the
 * data directory (neither it nor the file is created when only checking).
 */
async function openPersistence(config: AppConfig, logger: Logger | undefined, migrate: boolean): Promise<Persistence> {
  if (config.database) {
    const { postgresPersistence } = await import('../persistence/postgres/index.js');
    let label = 'the database';
    const persistence = await postgresPersistence({
      connectionString: config.database.url,
      poolSize: config.database.poolSize,
      connectTimeoutMs: config.database.connectTimeoutMs,
      maxWaiting: config.database.maxWaiting,
      queryTimeoutMs: config.database.queryTimeoutMs,
      schema: config.database.schema,
      migrate,
      onIdleError: (error) => logger?.warn({ err: error.message, database: label }, 'an idle database connection failed; it will be replaced'),
    });
    label = persistence.description;
    return persistence;
  }
  if (migrate) ensureDataDir(config);
  const { sqlitePersistence } = await loadSqlite();
  // Nonces in the file whatever VAULT_WORKERS is: a replay is refused after a restart and by any process.
  return sqlitePersistence({ path: sqliteFile(config), sharedNonces: true, migrate });
}

/**
 * Loaded when used, as pg is: a PostgreSQL-only installation has no better-sqlite3. Without it the
 * start stops with a configuration error naming the package, the command that installs it, and why
 * SQLite was chosen.
 */
async function loadSqlite(): Promise<typeof import('../persistence/sqlite/index.js')> {
  return import('../persistence/sqlite/index.js').catch((error: unknown) => {
    throw error instanceof MissingDriverError ? new ConfigError(`${error.message} (VAULT_DATABASE_URL is not set, so the vault uses SQLite)`) : error;
  });
}

/** The embedded database: `vault.db` in the data directory. */
export function sqliteFile(config: AppConfig): string {
  return path.join(config.dataDir, 'vault.db');
}

/** What `wallet-vault migrate` did: the database (the SQLite file, or the PostgreSQL database), its schema, the versions before and after. */
export interface StoreMigration {
  readonly database: string;
  /** PostgreSQL only: the schema the tables are in (VAULT_DATABASE_SCHEMA, else the connection's current one). */
  readonly schema?: string;
  readonly from: number;
  readonly to: number;
  /** What was repaired of a schema an earlier build left out (one line each); absent when nothing was. */
  readonly repaired?: readonly string[];
}

/**
 * Applies the migrations the configured database lacks (creating the SQLite file, or the PostgreSQL
 * schema, when missing) and closes it: what `serve` does at start, as a step of its own. A database a
 * newer build migrated is refused, as at start.
 */
export async function migrateStore(config: AppConfig): Promise<StoreMigration> {
  if (config.database) {
    await import('../persistence/postgres/index.js'); // names pg when it is not installed
    const { describeDatabase, openPostgresDatabase } = await import('../persistence/postgres/postgres.database.js');
    const { url, connectTimeoutMs, queryTimeoutMs, schema } = config.database;
    let done: StoreMigration | undefined;
    const db = await openPostgresDatabase(
      { url, poolSize: 1, connectTimeoutMs, queryTimeoutMs, schema },
      { onSchema: ({ schema: inSchema, ...v }) => (done = { database: describeDatabase(url), schema: inSchema, ...v }) },
    );
    await db.close();
    return done!;
  }
  ensureDataDir(config);
  await loadSqlite();
  const { openSqliteDatabase } = await import('../persistence/sqlite/sqlite.database.js');
  const file = sqliteFile(config);
  let done: StoreMigration | undefined;
  openSqliteDatabase({ path: file, onSchema: (v) => (done = { database: file, ...v }) }).close();
  return done!;
}

/**
 * Every configured store (config.keyStoreSettings: local always, as it serves the wallets it holds even
 * when new wallets go elsewhere, plus each store whose settings are present), opened by its module in
 * the order they are registered. createVault pings each, so bad credentials stop the start with the
 * store's own message. A store that refuses a setting only when opening stops the start as a
 * configuration error; whatever had opened is closed.
 */
async function openKeyStores(
  config: AppConfig,
  logger: Logger | undefined,
  retried: FromConfigOptions['keyStoreRetried'],
  sealed: MasterKeyHolder | undefined,
): Promise<{ stores: KeyStore[]; masterKey: Buffer | undefined }> {
  ensureDataDir(config);
  const masterKeyFile = path.join(config.dataDir, MASTER_KEY_FILE);
  if (sealed && existsSync(masterKeyFile)) {
    // Its presence is checked, never its content: with the key beside the data the seal would protect nothing.
    throw new ConfigError(
      `VAULT_SEAL=shamir, but ${masterKeyFile} exists: the seal keeps the master key off the disk. Once its shares are written (wallet-vault master-key split) and checked, delete the file (docs/keystores.md#sealed-start)`,
    );
  }
  if (config.database && config.keyStore === 'local') {
    logger?.warn(
      { keysDir: path.join(config.dataDir, 'keys') },
      `VAULT_DATABASE_URL with VAULT_KEYSTORE=local: every instance on this database must share this key directory and VAULT_MASTER_KEY, or an instance cannot sign for wallets created on another; prefer ${orList(KEYSTORES.filter((name) => name !== 'local'))} for several instances`,
    );
  }
  const context: KeyStoreOpenContext = {
    requestTimeoutMs: config.outboundTimeoutMs,
    signingThread: config.signingThread,
    dataDir: config.dataDir,
    ...(logger ? { logger } : {}),
    ...(retried ? { retried } : {}),
    ...(sealed ? { sealedMasterKey: sealed } : {}),
  };
  const stores: KeyStore[] = [];
  try {
    for (const store of REGISTERED_KEY_STORES) {
      if (config.keyStoreSettings.has(store.name)) stores.push(await store.open(config.keyStoreSettings.get(store.name), context));
    }
    // The audit checkpoints are signed with a key derived from the master key (docs/security.md): the one
    // the local store resolved a moment ago, read again from the same place (VAULT_MASTER_KEY or master.key).
    // Sealed, there is no key to derive it from at start: no checkpoints are signed (docs/keystores.md#sealed-start).
    const masterKey = sealed ? undefined : config.keyStoreSettings.has('local') ? (await resolveMasterKey({ dataDir: config.dataDir, masterKeyHex: config.masterKeyHex })).key : undefined;
    return { stores, masterKey };
  } catch (error) {
    await Promise.allSettled(stores.map((store) => store.close()));
    throw error instanceof KeyStoreSettingsError ? new ConfigError(error.message) : error;
  }
}

/**
 * The vault sealed: its unseal (`vault.seal`, which the HTTP layer drives) and a readiness that says
 * sealed (503 VAULT_SEALED) before it asks the dependencies, so a load balancer sends no signs to an
 * instance that would refuse them all.
 */
function withSeal(vault: Vault, config: AppConfig, holder: MasterKeyHolder, timeoutMs: number): void {
  const keysDir = path.join(config.dataDir, 'keys');
  const seal = new ShamirUnseal({
    holder,
    verify: (key) => verifyMasterKey(keysDir, key, { kind: 'shares' }),
    currentSplit: async () => (await readCurrentSplit(keysDir))?.split ?? null,
    auditLog: vault.container.get<AuditLog>(TOKENS.AUDIT_LOG),
    clock: vault.container.get<Clock>(TOKENS.CLOCK),
    timeoutMs,
  });
  const readiness = vault.readiness;
  Object.assign(vault, {
    seal,
    readiness: async () => {
      if (holder.sealed) {
        const why = 'sealed (VAULT_SEAL=shamir): custodians unseal it with their master key shares (POST /api/v1/sys/unseal)';
        throw new ReadinessFailure(ErrorCode.VAULT_SEALED, 'sealed', why);
      }
      await readiness();
    },
  });
}

/** `a, b or c`. */
function orList(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
