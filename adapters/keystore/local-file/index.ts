import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireNativeBindingsFor } from '../../native-bindings.js';
import { LocalFileKeyStore } from './local-file.key-store.js';
import { localFileOptionsSchema, type LocalFileKeyStoreOptions } from './options.js';

export type { LocalFileKeyStoreOptions } from './options.js';

/** The `local` key store (`wallet-vault/keystores/local-file`). */
export function localFileKeyStore(options: LocalFileKeyStoreOptions): KeyStore {
  const o = parseFactoryOptions('localFileKeyStore', localFileOptionsSchema, options);
  requireNativeBindingsFor('localFileKeyStore', o.allowJavaScriptFallback);
  const masterKey = o.masterKey ? Buffer.from(o.masterKey) : Buffer.from(o.masterKeyHex!, 'hex');
  return new LocalFileKeyStore({
    keysDir: o.keysDir,
    masterKey,
    // A mismatch names the option this application passed, not the standalone server's VAULT_MASTER_KEY.
    masterKeySource: { kind: 'option', option: o.masterKey ? 'masterKey' : 'masterKeyHex' },
    cacheSize: o.cacheSize,
    cacheTtlMs: o.cacheTtlMs,
    signingThread: o.signingThread,
  });
}
