import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Container } from 'inversify';
import { ManageVaults } from '../../src/application/manage-vaults.use-case.js';
import { loadConfig, type AppConfig } from '../main/config.js';
import { buildContainer } from '../main/container.js';
import { createLogger } from '../main/logger.js';
import { openKeyStores, openPersistence, type OpenedPersistence } from '../main/stores.js';
import { detectVersion } from '../main/version.js';
import { CliRefusal, note } from './output.js';
import { plainTextLog } from './plain-log.js';

/** Only `vaults create` may start a new store; every other command needs one that exists. */
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

/** The container over the configured store only (audit, policies, vaults): no key store is opened. */
export async function withPersistence<T>(action: (container: Container) => Promise<T>, use: StoreUse = {}): Promise<T> {
  const { config, persistence } = await openStore(use);
  try {
    return await action(buildContainer({ config, version: config.version ?? detectVersion(), ...persistence }));
  } finally {
    await persistence.close();
  }
}

/** For the commands that work on keys: the configured stores are opened too (and closed after). */
export async function withKeyStores<T>(action: (container: Container) => Promise<T>): Promise<T> {
  const { config, persistence } = await openStore({});
  try {
    // The stores' warnings (master key in a file, ...) are plain lines on stderr, not JSON log lines.
    const keyStores = await openKeyStores(config, createLogger(config.logLevel, plainTextLog()));
    try {
      return await action(buildContainer({ config, version: config.version ?? detectVersion(), ...persistence, keyStores }));
    } finally {
      await Promise.all(keyStores.map((s) => s.close()));
    }
  } finally {
    await persistence.close();
  }
}

/**
 * Opens the configured database and says on stderr which one, so a command run from the wrong
 * directory cannot quietly act on a store no server reads. SQLite that is not there yet is refused
 * rather than created, except where the command is meant to start a store.
 */
async function openStore(use: StoreUse): Promise<{ config: AppConfig; persistence: OpenedPersistence }> {
  const config = loadConfig();
  if (!config.database && !use.create) {
    const file = path.join(config.dataDir, 'vault.db');
    if (!existsSync(file)) {
      const where = existsSync(config.dataDir) ? `data directory ${config.dataDir} holds no vault.db` : `data directory ${config.dataDir} does not exist`;
      throw new CliRefusal(`${where}; pass --data-dir (or set VAULT_DATA_DIR) to the server's data directory`, 'STORE_NOT_FOUND');
    }
  }
  const persistence = await openPersistence(config);
  note(`using ${persistence.description}`);
  return { config, persistence };
}
