import { z } from 'zod';
import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireDriver } from '../../optional-driver.js';

await requireDriver('pkcs11js', 'keystores/pkcs11');
const { Pkcs11KeyStore } = await import('./pkcs11.key-store.js');

/** Options of the `pkcs11` key store (an HSM, or SoftHSM2). */
export interface Pkcs11KeyStoreOptions {
  /** Path of the PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so */
  readonly modulePath: string;
  /** Label of the token holding the keys (at most 32 characters). */
  readonly tokenLabel: string;
  /** The user PIN of that token. */
  readonly pin: string;
  /** Sessions kept open (default: the store's own). */
  readonly sessions?: number;
}

const schema = z.strictObject({
  modulePath: z.string().min(1),
  tokenLabel: z.string().min(1).max(32, 'must be at most 32 characters (a PKCS#11 token label)'),
  pin: z.string().min(1),
  sessions: z.int().min(1).optional(),
});

/** The `pkcs11` key store (`wallet-vault/keystores/pkcs11`; needs the optional package pkcs11js). */
export function pkcs11KeyStore(options: Pkcs11KeyStoreOptions): KeyStore {
  return new Pkcs11KeyStore(parseFactoryOptions('pkcs11KeyStore', schema, options));
}
