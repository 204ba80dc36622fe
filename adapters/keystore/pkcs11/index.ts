import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireDriver } from '../../optional-driver.js';
import { pkcs11OptionsSchema, type Pkcs11KeyStoreOptions } from './options.js';

export type { Pkcs11KeyStoreOptions } from './options.js';

await requireDriver('pkcs11js', 'keystores/pkcs11');
const { Pkcs11KeyStore } = await import('./pkcs11.key-store.js');

/** The `pkcs11` key store (`wallet-vault/keystores/pkcs11`; needs the optional package pkcs11js). */
export function pkcs11KeyStore(options: Pkcs11KeyStoreOptions): KeyStore {
  return new Pkcs11KeyStore(parseFactoryOptions('pkcs11KeyStore', pkcs11OptionsSchema, options));
}
