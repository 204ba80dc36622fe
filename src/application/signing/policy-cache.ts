import type { PolicyDocument } from '../../domain/policy/policy-document.js';
import type { ChainDirectory } from '../../domain/policy/sign-intent.js';
import type { Clock } from '../../ports/clock.port.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import { vaultFrozen, type FreezeFence } from '../../ports/freeze-fence.js';
import type { FreezeCount } from '../../ports/governance-store.port.js';
import type { PolicyRepository } from '../../ports/policy-repository.port.js';
import { documentOf, governanceUnverified, type GovernanceVerifier, type VaultPolicyState } from '../governance/governance-verifier.js';
import { ReadThroughCache } from './read-through-cache.js';

export { documentOf };

/** How long a policy read is reused: a change made elsewhere (the CLI, another instance) applies within this. */
export const POLICY_CACHE_TTL_MS = 5_000;
const MAX_VAULTS = 10_000;

/** The freeze rows of a vault (GovernanceStore.freezes). */
export interface FreezeReader {
  freezes(vaultId: string, options?: { readonly remembered?: boolean }): Promise<FreezeCount>;
}

/** What a signature is decided with: the vault's document, and the fence its record is written under (null: no freezes kept). */
export interface SigningPolicy {
  readonly document: PolicyDocument | null;
  readonly fence: FreezeFence | null;
}

/**
 * Every signature reads its vault's policy document; this keeps each read (including "no policy") for a
 * few seconds, bounded in size, as the same object (the evaluator compiles a document once per object).
 * Changes made through this process invalidate their vault at once. With a verifier, a governed vault's
 * read is its verified state (governance-verifier.ts): one that does not verify refuses every signature
 * (GOVERNANCE_UNVERIFIED). With a freeze reader, every `forSigning` also checks the vault's freezes, and
 * answers the fence the signature's record is written under: the count it may take from memory is backed
 * by that fence (a freeze it did not know refuses the record), and a count that says frozen is read again
 * before it refuses (a lifted freeze is seen at once).
 */
export class PolicyCache {
  private readonly entries: ReadThroughCache<string, VaultPolicyState>;
  /**
   * The most freeze rows this instance has seen each vault hold. Freeze rows are never deleted (a lift
   * marks its row): fewer than this is a database writer's deletion, which on a vault whose lifts are
   * counted (the governed state's `liftedFreezes`, or the rows' `lifted`) would lift a freeze. Memory only.
   */
  private readonly freezesSeen = new Map<string, number>();

  constructor(
    private readonly repository: PolicyRepository,
    private readonly clock: Clock,
    private readonly chains: ChainDirectory,
    ttlMs = POLICY_CACHE_TTL_MS,
    private readonly verifier?: GovernanceVerifier,
    private readonly freezes?: FreezeReader,
    /** Told once per vault and instance when its freeze rows are fewer than this instance saw (then refused as frozen). */
    private readonly onFreezesMissing?: (vaultId: string, seen: number, held: number) => Promise<void>,
  ) {
    this.entries = new ReadThroughCache({ ttlMs, maxEntries: MAX_VAULTS });
    // A proposal put in force by any load (lazily, or by the vote completing its quorum) changes the state
    // a read begun just before it would keep for the TTL: dropped at the apply, as a change made here is.
    verifier?.onApplied((vaultId) => this.invalidate(vaultId));
  }

  /** The document every signature of the vault is decided with: verified, and the vault not frozen (else thrown). */
  async find(vaultId: string): Promise<PolicyDocument | null> {
    return (await this.forSigning(vaultId)).document;
  }

  /** find(), with the fence the signature's record is to be written under. */
  async forSigning(vaultId: string): Promise<SigningPolicy> {
    const state = await this.state(vaultId);
    if (state.problem !== null) throw governanceUnverified(vaultId, state.problem);
    if (this.freezes === undefined) return { document: state.document, fence: null };
    // A governed vault lifts a freeze only by a signed state; an ungoverned one by `unfreeze` (rows marked lifted).
    const frozen = (count: FreezeCount) => count.frozen > (state.governed === null ? count.lifted : state.governed.head.liftedFreezes);
    let count = await this.freezes.freezes(vaultId, { remembered: true });
    const seen = this.freezesSeen.get(vaultId) ?? 0;
    // A remembered count may be older than one seen since: only a fresh read's counts as a deletion.
    if (frozen(count) || count.frozen < seen) count = await this.freezes.freezes(vaultId);
    if (count.frozen < seen) await this.freezesMissing(vaultId, seen, count.frozen);
    if (count.frozen > seen) this.rememberFreezes(vaultId, count.frozen);
    if (frozen(count)) throw vaultFrozen(vaultId);
    return { document: state.document, fence: { vaultId, freezes: count.frozen } };
  }

  private rememberFreezes(vaultId: string, frozen: number): void {
    this.freezesSeen.delete(vaultId);
    if (this.freezesSeen.size >= MAX_VAULTS) this.freezesSeen.delete(this.freezesSeen.keys().next().value!);
    this.freezesSeen.set(vaultId, frozen);
  }

  /** Freeze rows were deleted: the vault is refused as frozen, and the first time it is put on record. */
  private async freezesMissing(vaultId: string, seen: number, held: number): Promise<never> {
    if (!this.reportedMissing.has(vaultId)) {
      this.reportedMissing.add(vaultId);
      await this.onFreezesMissing?.(vaultId, seen, held);
    }
    throw new DomainError(
      ErrorCode.VAULT_FROZEN,
      `vault ${vaultId} is refused as frozen: the database holds ${held} of its freezes where this instance saw ${seen} (rows of vault_freezes were deleted in the database, which could lift a freeze); ` +
        'it signs nothing on this instance until an operator has examined the rows and restarted it (docs/security.md)',
    );
  }
  private readonly reportedMissing = new Set<string>();

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
