import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Container } from 'inversify';
import { ManageVaults } from '../../src/application/manage-vaults.use-case.js';
import { loadConfig, type AppConfig } from '../main/config.js';
import type { Vault } from '../main/create-vault.js';
import { createLogger } from '../main/logger.js';
import { vaultFromConfig, type FromConfigOptions } from '../main/vault-from-config.js';
import { CliRefusal, note } from './output.js';
import { plainTextLog } from './plain-log.js';

/**
 * Only `serve` and `migrate` are meant to create or change tables (docs/decisions: `wallet-vault migrate`);
 * every operator command opens the database without migrating and refuses one that is missing, empty
 * or at another schema version. `create` is the one exception kept for now: `vaults create` still
 * creates and migrates the store it starts, as it did before `migrate` existed.
 */
export interface StoreUse {
  readonly create?: boolean;
}

/**
 * Operator commands act on the configured store directly, also while servers run on it (SQLite in WAL
 * mode with a busy timeout serialises the writers; PostgreSQL is shared by design). They never open a
 * key store.
 */
export async function withManageVaults<T>(action: (manage: ManageVaults) => Promise<T>, use: StoreUse = {}): Promise<T> {
  return withPersistence((container) => action(container.get(ManageVaults)), use);
}

/**
 * The vault's container over the configured store only (audit, policies, vaults): no key store is
 * opened, no job runs.
 */
export async function withPersistence<T>(action: (container: Container) => Promise<T>, use: StoreUse = {}): Promise<T> {
  return withVault(loadConfig(), use, { keyStores: false }, action);
}

/** For the commands that work on keys: the configured stores are opened too (and closed after). */
export async function withKeyStores<T>(action: (container: Container) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // The stores' warnings (master key in a file, ...) are plain lines on stderr, not JSON log lines.
  return withVault(config, {}, { logger: createLogger(config.logLevel, plainTextLog()), jobs: false }, action);
}

/**
 * Opens the configured vault and says on stderr which database it opened, so a command run from the
 * wrong directory, or without the servers' VAULT_DATABASE_SCHEMA, cannot quietly act on a store no
 * server reads. A database that is not there yet, or not at this build's schema version, is refused
 * (naming `wallet-vault migrate` and where it looked) rather than created or migrated, except where the
 * command is meant to start a store.
 */
async function withVault<T>(config: AppConfig, use: StoreUse, options: FromConfigOptions, action: (container: Container) => Promise<T>): Promise<T> {
  if (!config.database && !use.create) {
    const file = path.join(config.dataDir, 'vault.db');
    if (!existsSync(file)) {
      const where = existsSync(config.dataDir) ? `data directory ${config.dataDir} holds no vault.db` : `data directory ${config.dataDir} does not exist`;
      throw new CliRefusal(
        `${where}; pass --data-dir (or set VAULT_DATA_DIR) to the server's data directory, or create the database there with \`wallet-vault migrate\``,
        'STORE_NOT_FOUND',
      );
    }
  }
  const vault: Vault = await vaultFromConfig(config, { ...options, migrate: use.create === true });
  try {
    note(`using ${vault.database}`);
    return await action(vault.container);
  } finally {
    await vault.close();
  }
}
