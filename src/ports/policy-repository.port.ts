import type { PolicyDocument } from '../domain/policy/policy-document.js';
import type { SignPolicy } from '../domain/sign-policy.js';

/**
 * What a vault's policy is stored as: the one policy document (`version: 2`), or the allow-lists of a
 * release before it, which are read as the document they migrate to (documentFromLegacy) until the
 * vault's policy is next applied as a document.
 */
export type StoredPolicy = PolicyDocument | SignPolicy;

export const isPolicyDocument = (policy: StoredPolicy): policy is PolicyDocument => (policy as PolicyDocument).version === 2;

/** The sign policy of each vault (at most one; none means Sign calls are allowed and nothing else). */
export interface PolicyRepository {
  /** The vault's policy, or null when it has none. */
  find(vaultId: string): Promise<StoredPolicy | null>;
  /** Replaces the vault's policy durably; null removes it. */
  save(vaultId: string, policy: StoredPolicy | null, now: Date): Promise<void>;
}
