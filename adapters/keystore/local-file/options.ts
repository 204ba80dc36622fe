import { z } from 'zod';

/**
 * The `local` key store's options, written once: the factory checks them with this schema, their type is
 * its type, and `serve`'s VAULT_MASTER_KEY (module.ts) takes `masterKeyHex`'s rule from it.
 */
export const localFileFields = {
  /** Directory of the key files (created 0700 when missing). */
  keysDir: z.string().min(1),
  /** 32 bytes (or masterKeyHex). */
  masterKey: z.instanceof(Uint8Array).refine((k) => k.length === 32, 'must be 32 bytes').optional(),
  /** 64 hex characters (or masterKey). */
  masterKeyHex: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit key)').optional(),
  /** Unwrapped keys kept in memory at most (default: the store's own). */
  cacheSize: z.int().min(0).optional(),
  cacheTtlMs: z.int().min(0).optional(),
  /** Sign on a thread of its own, off the event loop (default: where the machine has more than one CPU). */
  signingThread: z.boolean().optional(),
  /**
   * Sign even where the native secp256k1 or keccak binding did not load (default false: the factory
   * throws NativeBindingError). The fallback signs with elliptic, which is not constant-time, so timing
   * can leak the keys: for a development machine without a C/C++ toolchain only.
   */
  allowJavaScriptFallback: z.boolean().optional(),
};

export const localFileOptionsSchema = z.strictObject(localFileFields).refine((o) => (o.masterKey === undefined) !== (o.masterKeyHex === undefined), {
  message: 'give exactly one of masterKey and masterKeyHex',
  path: ['masterKey'],
});

type Fields = z.input<typeof localFileOptionsSchema>;

/** Options of the `local` key store: encrypted key files in a directory, wrapped by a 256-bit master key (exactly one of its two forms). */
export type LocalFileKeyStoreOptions = Readonly<
  Omit<Fields, 'masterKey' | 'masterKeyHex'> &
    ({ masterKey: NonNullable<Fields['masterKey']>; masterKeyHex?: never } | { masterKeyHex: NonNullable<Fields['masterKeyHex']>; masterKey?: never })
>;

/** The `local` store's settings of `serve` (docs/keystores.md#local-default): VAULT_MASTER_KEY, or undefined to use (and on first start create) `<dataDir>/master.key`. */
export interface LocalFileSettings {
  readonly masterKeyHex: Fields['masterKeyHex'];
}
