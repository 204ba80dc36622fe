import type { FreezeFence } from './freeze-fence.js';
import type { Approval, ApprovalBlock, ApprovalStatus, ApprovalVote } from '../domain/approval.js';
import type { AuditEvent } from './audit-log.port.js';
import type { SignatureRecord } from './signature-log.port.js';

/** A new approval: pending, no votes. */
export type NewApproval = Omit<Approval, 'status' | 'approvals' | 'decided' | 'votes' | 'result'>;

/** What a vote did: counted (the approval as it now stands), refused as a second vote of the key, or too late. */
export type VoteOutcome = { readonly kind: 'recorded'; readonly approval: Approval } | { readonly kind: 'already-voted' } | { readonly kind: 'closed' };

/**
 * An approve vote the quorum counts (of a key still unrevoked, still holding approver, of the approval's
 * group), as the release verifies it: its stored signature and its key's approver address as they are now.
 */
export interface CountedVote {
  readonly apiKeyId: string;
  /** As stored with the vote; null: none. */
  readonly signature: string | null;
  /** The voting key's credential now; null: a key without one (its vote counts unsigned). */
  readonly approverAddress: string | null;
  /** The voting key's group now (its row's); null: none. */
  readonly group: string | null;
}

export interface ApprovalPage {
  /** All approvals of the vault with the status asked, not only this page. */
  readonly count: number;
  readonly page: readonly Approval[];
}

/**
 * Signs held for a quorum. Every change and its audit record are one transaction: an approval
 * is never stored without its approval.requested record, a vote without approval.voted, a decision without
 * approval.decided. Each write re-checks its condition in the database (still pending, not expired, the
 * release still claimed by its caller), so concurrent callers on any instance agree.
 */
export interface ApprovalStore {
  // Every Approval it answers has `approvals` counted as it is then: approve votes of the vault's API keys
  // still unrevoked, still holding `approver`, and of the approval's group when it names one,
  // counted per approver (the keys of one approver address count once), not per key.
  /**
   * Stores a pending approval with its approval.requested record. With an idempotency key already bound to
   * an approval of the vault, stores nothing and resolves to null (read that one with findByIdempotencyKey).
   */
  create(approval: NewApproval, requested: AuditEvent): Promise<Approval | null>;
  find(vaultId: string, id: string): Promise<Approval | null>;
  findByIdempotencyKey(vaultId: string, key: string): Promise<Approval | null>;
  /** Oldest first (created, id); `status` as effectiveStatus reports it at `now`. */
  list(vaultId: string, query: { readonly status?: ApprovalStatus; readonly now: Date; readonly offset: number; readonly count: number }): Promise<ApprovalPage>;
  /**
   * One vote per key (a unique constraint, not a read first), stored with its signature when it has one: counted only while the approval is pending and
   * `now` is before its expiry. A reject ends it (rejected, with `decided` appended). `events(approval)`
   * gives the audit records to write with the vote, from the approval as the vote left it.
   */
  vote(vaultId: string, id: string, vote: ApprovalVote, events: (approval: Approval) => AuditEvent[]): Promise<VoteOutcome>;
  /** The approve votes `approvals` counts now, oldest first, each with its signature and its key's credential (CountedVote). */
  countedVotes(vaultId: string, id: string): Promise<CountedVote[]>;
  /**
   * Claims the release of a pending approval with its quorum, counted in the claim itself over the keys as
   * they are: true for exactly one caller until `leaseUntil` passes or the claim is given back. `token`
   * names the claimer. Never for an approval whose approval.decided is on record (decided before, whatever
   * its status says now): neither does release() write one.
   */
  claimRelease(vaultId: string, id: string, token: string, now: Date, leaseUntil: Date): Promise<boolean>;
  /**
   * Gives a claim back (the release failed): the next approve call retries at once. With `blocked`, records
   * why on the approval (its blockedBy) in the same write; without, leaves what it says. release() clears it.
   */
  abandonRelease(vaultId: string, id: string, token: string, blocked?: ApprovalBlock): Promise<void>;
  /**
   * Records the released signature (its signature row: a Sign call's; null for a message, typed data or a
   * transaction, which have no submission), the result on the approval (approved) and `events`
   * (signature.issued or sign.<kind>, approval.decided) in one transaction, only while `token` still holds the claim, the
   * approval is pending and unexpired at `now` and its quorum still counts (no voter revoked meanwhile);
   * false (nothing written) otherwise. With `fence`, refused with VAULT_FROZEN (nothing written) when the
   * vault was frozen since the release's check.
   */
  release(vaultId: string, id: string, token: string, now: Date, signature: SignatureRecord | null, result: string, events: readonly AuditEvent[], fence?: FreezeFence | null): Promise<boolean>;
  /**
   * Marks up to `limit` pending approvals past their expiry as expired (none whose release is claimed), each
   * with the audit record `decided(approval)` gives, and returns them.
   */
  expire(now: Date, limit: number, decided: (approval: Approval) => AuditEvent): Promise<Approval[]>;
}
