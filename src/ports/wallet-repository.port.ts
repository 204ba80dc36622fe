import type { ApiKeyStore } from './api-key-store.port.js';
import type { IdempotencyStore } from './idempotency-store.port.js';
import type { VaultStore } from './vault-store.port.js';
import type { WalletStore } from './wallet-store.port.js';

export type { IdempotencyRecord } from './idempotency-store.port.js';
export type { WalletPage } from './wallet-store.port.js';

/**
 * One database's stores of accounts and vaults, API keys, wallets and idempotency records, as a
 * Persistence hands them over. A use case takes the ones it uses (VaultStore, ApiKeyStore, WalletStore,
 * IdempotencyStore); an adapter implements them all.
 */
export interface WalletRepository extends VaultStore, ApiKeyStore, WalletStore, IdempotencyStore {
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  /** Closes the connection. */
  close(): Promise<void>;
}
