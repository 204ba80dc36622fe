import path from 'node:path';
import { checkpointKeyFrom, type CheckpointKey } from '../../src/domain/audit-checkpoint.js';
import { MASTER_KEY_FILE, MasterKeyError, readMasterKeyFile, resolveMasterKey } from '../keystore/local-file/master-key.js';
import { ConfigError, type AppConfig } from './config.js';

/**
 * The audit checkpoint key of this configuration, derived from the master key the server uses
 * (VAULT_MASTER_KEY, else `<dataDir>/master.key`), which stays outside the database. Read only: unlike a
 * start, it never creates a master key.
 */
export async function checkpointKeyOf(config: AppConfig): Promise<CheckpointKey> {
  const file = path.join(config.dataDir, MASTER_KEY_FILE);
  try {
    const exists = config.masterKeyHex !== undefined || (await readMasterKeyFile(file)) !== null;
    if (!exists) throw new ConfigError(`no master key (VAULT_MASTER_KEY is not set and ${file} does not exist): the audit checkpoint key is derived from it`);
    // The same checks as a start (a VAULT_MASTER_KEY that disagrees with master.key is refused).
    const { key } = await resolveMasterKey({ dataDir: config.dataDir, masterKeyHex: config.masterKeyHex });
    return checkpointKeyFrom(key);
  } catch (error) {
    throw error instanceof MasterKeyError ? new ConfigError(error.message) : error;
  }
}
