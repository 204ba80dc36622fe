import { ManageVaults } from '../../src/application/manage-vaults.use-case.js';
import { loadConfig } from '../main/config.js';
import { buildContainer } from '../main/container.js';
import { openPersistence } from '../main/stores.js';
import { detectVersion } from '../main/version.js';

/**
 * Operator commands act on the configured store directly (also while a server runs on it: SQLite in WAL
 * mode with a busy timeout serialises the writers). They never open a key store.
 */
export async function withManageVaults<T>(action: (manage: ManageVaults) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const persistence = openPersistence(config);
  try {
    const container = buildContainer({ config, version: config.version ?? detectVersion(), ...persistence });
    return await action(container.get(ManageVaults));
  } finally {
    await persistence.close();
  }
}
