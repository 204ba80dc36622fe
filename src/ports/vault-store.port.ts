import type { Account, Vault } from '../domain/vault.js';

/** Accounts and their vaults. Every method that writes is durable when it resolves. */
export interface VaultStore {
  /** Creates the account if it does not exist; returns it either way. */
  ensureAccount(id: string, now: Date): Promise<Account>;
  /** Inserts a vault (its account must exist). */
  insertVault(vault: Vault): Promise<void>;
  /** The vault, or null. */
  findVault(id: string): Promise<Vault | null>;
  /** All vaults, oldest first. */
  listVaults(): Promise<Vault[]>;
}
