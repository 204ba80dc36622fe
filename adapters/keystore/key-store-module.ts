import type { z } from 'zod';
import type { KeyStore } from '../../src/ports/key-store.port.js';

/**
 * A setting of a key store that cannot be used; the configuration reports it as ConfigError naming
 * `variable` (a key store never imports the composition root, so it throws this instead).
 */
export class KeyStoreSettingsError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'KeyStoreSettingsError';
  }
}

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
  readonly retried?: (store: string, reason: 'throttled' | 'unavailable') => void;
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
