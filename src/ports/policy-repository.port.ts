import type { SignPolicy } from '../domain/sign-policy.js';

/** The sign policy of each vault (at most one; none means every sign the scheme allows is allowed). */
export interface PolicyRepository {
  /** The vault's policy, or null when it has none. */
  find(vaultId: string): Promise<SignPolicy | null>;
  /** Replaces the vault's policy durably; null removes it. */
  save(vaultId: string, policy: SignPolicy | null, now: Date): Promise<void>;
}
