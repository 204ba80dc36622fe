import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireNativeBindingsFor } from '../../native-bindings.js';
import { requireDriver } from '../../optional-driver.js';
import { vaultTransitOptionsSchema, type VaultTransitKeyStoreOptions } from './options.js';

export type { VaultTransitKeyStoreOptions } from './options.js';

await requireDriver('node-vault', 'keystores/vault-transit');
const { VaultTransitKeyStore } = await import('./vault-transit.key-store.js');

/** The `vault-transit` key store (`wallet-vault/keystores/vault-transit`; needs the optional package node-vault). */
export function vaultTransitKeyStore(options: VaultTransitKeyStoreOptions): KeyStore {
  const o = parseFactoryOptions('vaultTransitKeyStore', vaultTransitOptionsSchema, options);
  const address = 'client' in o ? (o.client as { endpoint?: unknown }).endpoint : o.address;
  if (typeof address === 'string' && /^http:/i.test(address) && o.allowHttp !== true) {
    throw new TypeError(
      `invalid vaultTransitKeyStore options:\n  ${'client' in o ? 'client.endpoint' : 'address'}: http:// would send the Vault token and every wallet key Vault unwraps in clear; ` +
        'use https://, or pass allowHttp: true for a loopback or otherwise trusted network',
    );
  }
  requireNativeBindingsFor('vaultTransitKeyStore', o.allowJavaScriptFallback);
  return new VaultTransitKeyStore(o);
}
