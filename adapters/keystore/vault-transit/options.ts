import type NodeVault from 'node-vault';
import { z } from 'zod';

/**
 * The `vault-transit` key store's options, written once: the factory checks them with this schema, their
 * type is its type, and `serve`'s variables (module.ts) take each field's rule from it. Imports only zod
 * (node-vault as a type), so the module can read it without loading node-vault.
 */
export const transitKeyFields = {
  /** The Transit secrets engine's mount (default `transit`). */
  mount: z.string().regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'must be a mount path such as transit').optional(),
  /** The Transit key that wraps every wallet key. */
  keyName: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'must be a Transit key name'),
  /** Keep unwrapped keys in memory this long (ms, default 0: one decrypt per signature). */
  cacheTtlMs: z.int().min(0).optional(),
  cacheSize: z.int().min(0).optional(),
  /**
   * Sign on a thread of its own, off the event loop, as the `local` store does (default: where the
   * machine has more than one CPU). `serve`'s VAULT_SIGNING_THREAD sets it.
   */
  signingThread: z.boolean().optional(),
  /**
   * Talk to Vault over http:// (default false: an http:// address, or a client whose endpoint is one, is
   * refused). The token and every wallet key Vault unwraps would cross the network in clear: for a
   * loopback or otherwise trusted network only. `serve`'s VAULT_TRANSIT_ALLOW_HTTP=true sets it.
   */
  allowHttp: z.boolean().optional(),
  /**
   * Sign even where the native secp256k1 or keccak binding did not load (default false: the factory
   * throws NativeBindingError). The unwrapped keys are signed with here, and the fallback (elliptic) is
   * not constant-time, so timing can leak them: for a development machine without a toolchain only.
   */
  allowJavaScriptFallback: z.boolean().optional(),
};

const withAddress = z.strictObject({
  ...transitKeyFields,
  address: z.url({ protocol: /^https?$/ }),
  token: z.string().min(1),
  /** ms, default 5000 */
  requestTimeoutMs: z.int().min(1).optional(),
});

const withClient = z.strictObject({
  ...transitKeyFields,
  /** Used as is (its endpoint, token and timeouts). */
  client: z.custom<NodeVault.client>((c) => typeof (c as { write?: unknown })?.write === 'function', 'must be a node-vault client'),
});

export const vaultTransitOptionsSchema = z.union([withClient, withAddress]);

/** Options of the `vault-transit` key store: an address and token, or a node-vault client you already have. */
export type VaultTransitKeyStoreOptions =
  | Readonly<z.input<typeof withAddress> & { client?: never }>
  | Readonly<z.input<typeof withClient> & { address?: never; token?: never }>;

/** What `serve` opens it with (VAULT_ADDR, VAULT_TOKEN, VAULT_TRANSIT_*; docs/keystores.md#vault-transit); `cacheTtlMs` 0 keeps no unwrapped key. */
export type VaultTransitSettings = Required<Pick<z.input<typeof withAddress>, 'address' | 'token' | 'mount' | 'keyName' | 'cacheTtlMs' | 'allowHttp'>>;
