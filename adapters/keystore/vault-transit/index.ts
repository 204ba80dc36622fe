import type NodeVault from 'node-vault';
import { z } from 'zod';
import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireNativeBindingsFor } from '../../native-bindings.js';
import { requireDriver } from '../../optional-driver.js';

await requireDriver('node-vault', 'keystores/vault-transit');
const { VaultTransitKeyStore } = await import('./vault-transit.key-store.js');

interface TransitKeyOptions {
  /** The Transit secrets engine's mount (default `transit`). */
  readonly mount?: string;
  /** The Transit key that wraps every wallet key. */
  readonly keyName: string;
  /** Keep unwrapped keys in memory this long (ms, default 0: one decrypt per signature). */
  readonly cacheTtlMs?: number;
  readonly cacheSize?: number;
  /**
   * Sign on a thread of its own, off the event loop, as the `local` store does (default: where the
   * machine has more than one CPU). `serve`'s VAULT_SIGNING_THREAD sets it.
   */
  readonly signingThread?: boolean;
  /**
   * Talk to Vault over http:// (default false: an http:// address, or a client whose endpoint is one, is
   * refused). The token and every wallet key Vault unwraps would cross the network in clear: for a
   * loopback or otherwise trusted network only. `serve`'s VAULT_TRANSIT_ALLOW_HTTP=true sets it.
   */
  readonly allowHttp?: boolean;
  /**
   * Sign even where the native secp256k1 or keccak binding did not load (default false: the factory
   * throws NativeBindingError). The unwrapped keys are signed with here, and the fallback (elliptic) is
   * not constant-time, so timing can leak them: for a development machine without a toolchain only.
   */
  readonly allowJavaScriptFallback?: boolean;
}

/** Options of the `vault-transit` key store: an address and token, or a node-vault client you already have. */
export type VaultTransitKeyStoreOptions = TransitKeyOptions &
  (
    | { readonly address: string; readonly token: string; /** ms, default 5000 */ readonly requestTimeoutMs?: number; readonly client?: never }
    | { /** Used as is (its endpoint, token and timeouts). */ readonly client: NodeVault.client; readonly address?: never; readonly token?: never }
  );

const key = {
  mount: z.string().regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'must be a mount path such as transit').optional(),
  keyName: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'must be a Transit key name'),
  cacheTtlMs: z.int().min(0).optional(),
  cacheSize: z.int().min(0).optional(),
  signingThread: z.boolean().optional(),
  allowHttp: z.boolean().optional(),
  allowJavaScriptFallback: z.boolean().optional(),
};
const schema = z.union([
  z.strictObject({ ...key, client: z.custom<NodeVault.client>((c) => typeof (c as { write?: unknown })?.write === 'function', 'must be a node-vault client') }),
  z.strictObject({ ...key, address: z.url({ protocol: /^https?$/ }), token: z.string().min(1), requestTimeoutMs: z.int().min(1).optional() }),
]);

/** The `vault-transit` key store (`wallet-vault/keystores/vault-transit`; needs the optional package node-vault). */
export function vaultTransitKeyStore(options: VaultTransitKeyStoreOptions): KeyStore {
  const o = parseFactoryOptions('vaultTransitKeyStore', schema, options);
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
