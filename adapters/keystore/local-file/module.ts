import path from 'node:path';
import { KeyStoreSettingsError, type KeyStoreModule } from '../key-store-module.js';
import { localFileFields, type LocalFileSettings } from './options.js';

export type { LocalFileSettings } from './options.js';

/**
 * The `local` key store as the configuration sees it. The one special store, in two ways:
 * - it is always configured (`settings` never answers undefined): it serves the wallets it holds
 *   whatever VAULT_KEYSTORE says, and it is the default;
 * - it keeps its files in the vault's data directory, which it does not own (VAULT_DATA_DIR is the
 *   configuration's: the SQLite file lives there too), so it opens only with `context.dataDir`.
 * The master key it resolves is also where the audit checkpoint key comes from: the composition root
 * reads it again from the same place (adapters/main/vault-from-config.ts), once this store has opened.
 */
export const localFileModule: KeyStoreModule<LocalFileSettings> = {
  name: 'local',
  docsAnchor: 'local-default',
  environment: {
    VAULT_MASTER_KEY: localFileFields.masterKeyHex,
  },
  settings(env) {
    return { masterKeyHex: typeof env.VAULT_MASTER_KEY === 'string' ? env.VAULT_MASTER_KEY : undefined };
  },
  async open(settings, context) {
    const { dataDir, logger } = context;
    if (dataDir === undefined) throw new TypeError('the local key store opens only in a data directory (KeyStoreOpenContext.dataDir)');
    // Loaded here, not at the top: the configuration imports this module, and `--help` should not sign.
    const [{ LocalFileKeyStore }, { MASTER_KEY_FILE, MasterKeyError, resolveMasterKey }] = await Promise.all([
      import('./local-file.key-store.js'),
      import('./master-key.js'),
    ]);
    if (context.sealedMasterKey) {
      // Sealed: no key to read or check; the unseal checks the one the shares reconstruct.
      const store = new LocalFileKeyStore({
        keysDir: path.join(dataDir, 'keys'),
        masterKey: context.sealedMasterKey,
        masterKeySource: { kind: 'shares' },
        signingThread: context.signingThread,
      });
      await store.checkMasterKey().catch(async (error: unknown) => {
        await store.close();
        throw error;
      });
      return store;
    }
    const master = await resolveMasterKey({ dataDir, masterKeyHex: settings.masterKeyHex }).catch((error: unknown) => {
      throw error instanceof MasterKeyError ? new KeyStoreSettingsError('VAULT_MASTER_KEY', error.message, { named: true }) : error;
    });
    const masterKeyFile = path.join(dataDir, MASTER_KEY_FILE);
    if (master.source === 'file') {
      logger?.warn(
        { masterKeyFile, created: master.createdNow },
        'VAULT_MASTER_KEY is not set: the master key sits in a file beside the data it protects; in production put the 64-hex content of master.key into VAULT_MASTER_KEY from a secret manager, then delete the file (docs/operations.md)',
      );
    } else if (master.fileAlsoPresent) {
      logger?.warn({ masterKeyFile }, 'VAULT_MASTER_KEY holds the key of master.key, which still sits beside the data: delete the file');
    }
    const store = new LocalFileKeyStore({
      keysDir: path.join(dataDir, 'keys'),
      masterKey: master.key,
      masterKeySource: master.source === 'env' ? { kind: 'env' } : { kind: 'file', path: masterKeyFile },
      signingThread: context.signingThread,
    });
    // A wrong key stops the start here as a configuration error naming its source, instead of failing
    // every sign for the wallets it did not wrap.
    const problem = await store.checkMasterKey().catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
    if (problem) {
      await store.close();
      throw new KeyStoreSettingsError('VAULT_MASTER_KEY', problem, { named: true });
    }
    return store;
  },
};
