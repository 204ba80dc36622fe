import type { PolicyDocument } from '../domain/policy/policy-document.js';
import type { ChainDirectory } from '../domain/policy/sign-intent.js';
import { DomainError, ErrorCode } from '../domain/errors.js';
import type { Clock } from '../ports/clock.port.js';
import type { FreezeCount } from '../ports/governance-store.port.js';
import type { PolicyRepository } from '../ports/policy-repository.port.js';
import { documentOf, governanceUnverified, type GovernanceVerifier, type VaultPolicyState } from './governance-verifier.js';
import { ReadThroughCache } from './read-through-cache.js';

export { documentOf };

/** How long a policy read is reused: a change made elsewhere (the CLI, another instance) applies within this. */
export const POLICY_CACHE_TTL_MS = 5_000;
const MAX_VAULTS = 10_000;

/** The freeze rows of a vault, read on every signature (never cached: a freeze holds on every instance at once). */
export interface FreezeReader {
  freezes(vaultId: string): Promise<FreezeCount>;
}

/**
 * Every signature reads its vault's policy document; this keeps each read (including "no policy") for a
 * few seconds, bounded in size, as the same object (the evaluator compiles a document once per object).
 * Changes made through this process invalidate their vault at once. With a verifier, a governed vault's
 * read is its verified state (governance-verifier.ts): one that does not verify refuses every signature
 * (GOVERNANCE_UNVERIFIED). With a freeze reader, every `find` also counts the vault's freezes, uncached.
 */
export class PolicyCache {
  private readonly entries: ReadThroughCache<string, VaultPolicyState>;

  constructor(
    private readonly repository: PolicyRepository,
    private readonly clock: Clock,
    private readonly chains: ChainDirectory,
    ttlMs = POLICY_CACHE_TTL_MS,
    private readonly verifier?: GovernanceVerifier,
    private readonly freezes?: FreezeReader,
  ) {
    this.entries = new ReadThroughCache({ ttlMs, maxEntries: MAX_VAULTS });
    // A proposal put in force by any load (lazily, or by the vote completing its quorum) changes the state
    // a read begun just before it would keep for the TTL: dropped at the apply, as a change made here is.
    verifier?.onApplied((vaultId) => this.invalidate(vaultId));
  }

  /** The document every signature of the vault is decided with: verified, and the vault not frozen (else thrown). */
  async find(vaultId: string): Promise<PolicyDocument | null> {
    const state = await this.state(vaultId);
    if (state.problem !== null) throw governanceUnverified(vaultId, state.problem);
    if (this.freezes !== undefined) {
      const count = await this.freezes.freezes(vaultId);
      // A governed vault lifts a freeze only by a signed state; an ungoverned one by `unfreeze` (rows marked lifted).
      const lifted = state.governed === null ? count.lifted : state.governed.head.liftedFreezes;
      if (count.frozen > lifted) throw new DomainError(ErrorCode.VAULT_FROZEN, `vault ${vaultId} is frozen: it signs nothing until the freeze is lifted (docs/governance.md)`);
    }
    return state.document;
  }

  /** The vault's state as read (cached), verified when governed. */
  async state(vaultId: string): Promise<VaultPolicyState> {
    return this.entries.read(vaultId, this.clock.now(), async () =>
      this.verifier ? this.verifier.load(vaultId) : { document: documentOf(await this.repository.find(vaultId), this.chains), governed: null, problem: null },
    );
  }

  invalidate(vaultId: string): void {
    this.entries.invalidate(vaultId);
  }
}
