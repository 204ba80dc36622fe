import { ManageVaults } from '../../src/application/manage-vaults.use-case.js';
import { loadConfig } from '../main/config.js';
import type { Container } from 'inversify';
import { createLogger } from '../main/logger.js';
import { vaultFromConfig } from '../main/vault-from-config.js';

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
  const vault = await vaultFromConfig(loadConfig(), { keyStores: false });
  try {
    return await action(vault.container);
  } finally {
    await vault.close();
  }
}

/** For the commands that work on keys: the configured stores are opened too (and closed after). */
export async function withKeyStores<T>(action: (container: Container) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const vault = await vaultFromConfig(config, { logger: createLogger(config.logLevel, 2), jobs: false });
  try {
    return await action(vault.container);
  } finally {
    await vault.close();
  }
}
