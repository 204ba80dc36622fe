import { z } from 'zod';
import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireNativeBindingsFor } from '../../native-bindings.js';
import { LocalFileKeyStore } from './local-file.key-store.js';

/** Options of the `local` key store: encrypted key files in a directory, wrapped by a 256-bit master key. */
export type LocalFileKeyStoreOptions = {
  /** Directory of the key files (created 0700 when missing). */
  readonly keysDir: string;
  /** Unwrapped keys kept in memory at most (default: the store's own). */
  readonly cacheSize?: number;
  readonly cacheTtlMs?: number;
  /** Sign on a thread of its own, off the event loop (default: where the machine has more than one CPU). */
  readonly signingThread?: boolean;
  /**
   * Sign even where the native secp256k1 or keccak binding did not load (default false: the factory
   * throws NativeBindingError). The fallback signs with elliptic, which is not constant-time, so timing
   * can leak the keys: for a development machine without a C/C++ toolchain only.
   */
  readonly allowJavaScriptFallback?: boolean;
} & (
  | { /** 32 bytes. */ readonly masterKey: Uint8Array; readonly masterKeyHex?: never }
  | { /** 64 hex characters. */ readonly masterKeyHex: string; readonly masterKey?: never }
);

const schema = z
  .strictObject({
    keysDir: z.string().min(1),
    masterKey: z.instanceof(Uint8Array).refine((k) => k.length === 32, 'must be 32 bytes').optional(),
    masterKeyHex: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit key)').optional(),
    cacheSize: z.int().min(0).optional(),
    cacheTtlMs: z.int().min(0).optional(),
    signingThread: z.boolean().optional(),
    allowJavaScriptFallback: z.boolean().optional(),
  })
  .refine((o) => (o.masterKey === undefined) !== (o.masterKeyHex === undefined), {
    message: 'give exactly one of masterKey and masterKeyHex',
    path: ['masterKey'],
  });

/** The `local` key store (`wallet-vault/keystores/local-file`). */
export function localFileKeyStore(options: LocalFileKeyStoreOptions): KeyStore {
  const o = parseFactoryOptions('localFileKeyStore', schema, options);
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
