import { z } from 'zod';

/**
 * The `pkcs11` key store's options, written once: the factory checks them with this schema, their type is
 * its type, and `serve`'s variables (module.ts) take each field's rule from it. Imports only zod, so the
 * module can read it without loading pkcs11js.
 */
export const pkcs11OptionsSchema = z.strictObject({
  /** Path of the PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so */
  modulePath: z.string().min(1),
  /** Label of the token holding the keys (at most 32 characters). */
  tokenLabel: z.string().min(1).max(32, 'must be at most 32 characters (a PKCS#11 token label)'),
  /** The user PIN of that token. */
  pin: z.string().min(1),
  /** Sessions kept open (default: the store's own). */
  sessions: z.int().min(1).optional(),
});

/** Options of the `pkcs11` key store (an HSM, or SoftHSM2). */
export type Pkcs11KeyStoreOptions = Readonly<z.input<typeof pkcs11OptionsSchema>>;

/** What `serve` opens it with (VAULT_PKCS11_MODULE, VAULT_PKCS11_TOKEN, VAULT_PKCS11_PIN; docs/keystores.md#pkcs11). */
export type Pkcs11Settings = Pick<Pkcs11KeyStoreOptions, 'modulePath' | 'tokenLabel' | 'pin'>;
