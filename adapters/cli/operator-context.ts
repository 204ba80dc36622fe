import type { Container } from 'inversify';
import { ManageVaults } from '../../src/application/manage-vaults.use-case.js';
import { loadConfig } from '../main/config.js';
import { buildContainer } from '../main/container.js';
import { createLogger } from '../main/logger.js';
import { openKeyStores, openPersistence } from '../main/stores.js';
import { detectVersion } from '../main/version.js';

/**
 * Operator commands act on the configured store directly, also while servers run on it (SQLite in WAL
 * mode with a busy timeout serialises the writers; PostgreSQL is shared by design). They never open a
 * key store.
 */
export async function withManageVaults<T>(action: (manage: ManageVaults) => Promise<T>): Promise<T> {
  return withPersistence((container) => action(container.get(ManageVaults)));
}

/** The container over the configured store only (audit, policies, vaults): no key store is opened. */
export async function withPersistence<T>(action: (container: Container) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const persistence = await openPersistence(config);
  try {
    return await action(buildContainer({ config, version: config.version ?? detectVersion(), ...persistence }));
  } finally {
    await persistence.close();
  }
}

/** For the commands that work on keys: the configured stores are opened too (and closed after). */
export async function withKeyStores<T>(action: (container: Container) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const persistence = await openPersistence(config);
  try {
    const keyStores = await openKeyStores(config, createLogger(config.logLevel, 2));
    try {
      return await action(buildContainer({ config, version: config.version ?? detectVersion(), ...persistence, keyStores }));
    } finally {
      await Promise.all(keyStores.map((s) => s.close()));
    }
  } finally {
    await persistence.close();
  }
}
