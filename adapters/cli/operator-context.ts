import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Container } from 'inversify';
import { ManageVaults } from '../../src/application/vaults/manage-vaults.use-case.js';
import { loadConfig, type AppConfig } from '../main/config.js';
import type { Vault } from '../main/create-vault.js';
import { createLogger } from '../main/logger.js';
import { vaultFromConfig, type FromConfigOptions } from '../main/vault-from-config.js';
import { CliRefusal, note } from './output.js';
import { plainTextLog } from './plain-log.js';

/**
 * Operator commands act on the configured store directly, also while servers run on it (SQLite in WAL
 * mode with a busy timeout serialises the writers; PostgreSQL is shared by design). They never open a
 * key store.
 */
export async function withManageVaults<T>(action: (manage: ManageVaults) => Promise<T>): Promise<T> {
  return withPersistence((container) => action(container.get(ManageVaults)));
}

/**
 * The vault's container over the configured store only (audit, policies, vaults): no key store is
 * opened, no job runs.
 */
export async function withPersistence<T>(action: (container: Container) => Promise<T>): Promise<T> {
  return withVault(loadConfig(), { keyStores: false }, action);
}

/** For the commands that work on keys: the configured stores are opened too (and closed after). */
export async function withKeyStores<T>(action: (container: Container) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // The stores' warnings (master key in a file, ...) are plain lines on stderr, not JSON log lines.
  return withVault(config, { logger: createLogger(config.logLevel, plainTextLog()), jobs: false }, action);
}

/**
 * Opens the configured vault and says on stderr which database it opened, so a command run from the
 * wrong directory, or without the servers' VAULT_DATABASE_SCHEMA, cannot quietly act on a store no
 * server reads. A database that is not there yet, or not at this build's schema version, is refused
 * (naming `wallet-vault migrate` and where it looked) rather than created or migrated: only `serve` and
 * `migrate` create or change tables (a command run with a forgotten VAULT_DATABASE_SCHEMA must not
 * migrate a second set of tables into another schema).
 */
async function withVault<T>(config: AppConfig, options: FromConfigOptions, action: (container: Container) => Promise<T>): Promise<T> {
  if (!config.database) {
    const file = path.join(config.dataDir, 'vault.db');
    if (!existsSync(file)) {
      const where = existsSync(config.dataDir) ? `data directory ${config.dataDir} holds no vault.db` : `data directory ${config.dataDir} does not exist`;
      throw new CliRefusal(
        `${where}; pass --data-dir (or set VAULT_DATA_DIR) to the server's data directory, or create the database there with \`wallet-vault migrate\``,
        'STORE_NOT_FOUND',
      );
    }
  }
  const vault: Vault = await vaultFromConfig(config, { ...options, migrate: false });
  try {
    note(`using ${vault.database}`);
    return await action(vault.container);
  } finally {
    await vault.close();
  }
}
