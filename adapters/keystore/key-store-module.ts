import type { z } from 'zod';
import type { KeyStore } from '../../src/ports/key-store.port.js';

/**
 * A setting of a key store that cannot be used; the configuration reports it as ConfigError naming
 * `variable` (a key store never imports the composition root, so it throws this instead). Thrown by
 * `settings`, or by `open` for a setting found wrong only there (the local store's master key that does
 * not open its key files); either way the start stops with `message` as its configuration error.
 */
export class KeyStoreSettingsError extends Error {
  /**
   * The message is `<variable>: <message>`; with `{ named: true }` it is `message` as given, for a sentence
   * that names the variable itself (`VAULT_MASTER_KEY and /data/master.key hold different keys…`).
   */
  constructor(
    readonly variable: string,
    message: string,
    options: { readonly named?: boolean } = {},
  ) {
    super(options.named === true ? message : `${variable}: ${message}`);
    this.name = 'KeyStoreSettingsError';
  }
}

/**
 * For `settings`: the variables a configured store cannot do without; the first of `names` absent from
 * `environment` is refused as `<NAME>: required for the <store> key store`.
 */
export function requireVariables(environment: Readonly<Record<string, unknown>>, names: readonly string[], store: string): void {
  const missing = names.find((name) => environment[name] === undefined);
  if (missing !== undefined) throw new KeyStoreSettingsError(missing, `required for the ${store} key store`);
}

/** Where a store writes what the operator should know at start (the service's logger; pino's `warn(fields, message)`). */
export interface KeyStoreLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Why a remote store retried a request: the service's quota (HTTP 429, throttling) or a brief failure (5xx, a timeout, a reset connection). */
export type KeyStoreRetryReason = 'throttled' | 'unavailable';

/** What the composition gives every store it opens. */
export interface KeyStoreOpenContext {
  /** VAULT_OUTBOUND_TIMEOUT_MS: the bound on one request to a remote store. */
  readonly requestTimeoutMs: number;
  /** VAULT_SIGNING_THREAD, for stores that sign in process. */
  readonly signingThread?: boolean;
  /**
   * Called each time a remote store retries a request the service refused for quota (HTTP 429) or
   * briefly failed; the composition counts it in `wallet_vault_keystore_retries_total{store,reason}`.
   */
  readonly retried?: (store: string, reason: KeyStoreRetryReason) => void;
  /**
   * The data directory (VAULT_DATA_DIR, absolute; created 0700 before any store opens), for a store that
   * keeps files there: the local store's key files and master key.
   */
  readonly dataDir?: string;
  /** For warnings at start (a master key kept beside the data it protects). */
  readonly logger?: KeyStoreLogger;
  /**
   * VAULT_SEAL=shamir: the local store takes its master key from this holder, empty at start and filled
   * by the unseal; it reads neither VAULT_MASTER_KEY nor master.key.
   */
  readonly sealedMasterKey?: HeldMasterKey;
}

/**
 * A master key the process holds in memory only (the local store's MasterKeyHolder): empty while sealed.
 * Declared here as a shape, so this contract of every store depends on no store's folder.
 */
export interface HeldMasterKey {
  readonly sealed: boolean;
  /** The key, or VAULT_SEALED while none is held. */
  key(): Buffer;
  /** `listener` runs each time the key is dropped (the seal). */
  onDrop(listener: () => void): void;
}

/**
 * A key store as the configuration and the composition root see it: one folder under
 * adapters/keystore/ exports one of these (`<folder>/module.ts`), and the list in
 * adapters/keystore/registered-key-stores.ts names it. Config parsing, `serve`, `createVault`, the CLI
 * and the docs loop over that list; nothing else names a store.
 */
export interface KeyStoreModule<Settings = unknown> {
  /** The `VAULT_KEYSTORE` value and `KeyStore.name` (`aws-kms`). */
  readonly name: string;
  /**
   * The environment variables this store reads, with their checks. Merged into the configuration's
   * schema (a name must belong to one store); a value that fails its check is a ConfigError naming it.
   */
  readonly environment: z.ZodRawShape;
  /**
   * This store's settings from the checked environment (only this store's names, unset ones absent), or
   * undefined when it is not configured. `selected`: VAULT_KEYSTORE names this store (a store also opens
   * when one of its own variables is set, so its wallets keep signing after VAULT_KEYSTORE moves on).
   * Throws KeyStoreSettingsError naming the variable that is missing or wrong.
   */
  settings(environment: Readonly<Record<string, unknown>>, selected: boolean): Settings | undefined;
  /** Opens the store; imports its SDK (an optional peer) only here. */
  open(settings: Settings, context: KeyStoreOpenContext): Promise<KeyStore>;
  /** The store's section in docs/keystores.md (its heading's anchor), for `--help` and error messages. */
  readonly docsAnchor: string;
}
