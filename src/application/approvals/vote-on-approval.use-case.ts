import type { HeldRequestSeals } from './held-request-seals.js';
import { randomUUID } from 'node:crypto';
import { effectiveStatus, type Approval, type ApprovalVoteKind } from '../../domain/approval.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { ApprovalStore, CountedVote } from '../../ports/approval-store.port.js';
import type { ApiKeyStore } from '../../ports/api-key-store.port.js';
import type { AuditEvent, AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import { actorOf, apiKeyActor, audit } from '../audit/audit-actor.js';
import type { PolicyCache } from '../signing/policy-cache.js';
import type { Principal } from '../access/principal.js';
import { checkQuorum, isGovernedVoter, isSignedDecision, voterOf, type DecisionSigners, type PasskeyVoteCheck, type QuorumCheck } from './signed-votes.js';
import { QuorumShort, ReleaseQuorum, withPolicyQuorum, type CountedApprover } from './held-quorum.js';
import { addressOf, passkeyOf, type GovernedVoting } from '../governance/governed-entries.js';
import type { GovernedPasskey } from '../../domain/governance.js';
import type { ApprovalReleaser } from './approval-releaser.js';
import { releaseBlockOf } from './release-blocks.js';
import { asOf, documentForReads, findApproval, storeOf } from './approval-reads.js';

/**
 * How long one caller holds the release of an approved request: a process that dies while signing keeps
 * others from retrying for this long at most. A release that outlives it and loses the claim writes nothing.
 */
export const RELEASE_LEASE_MS = 120_000;

export interface VoteCommand {
  readonly principal: Principal;
  readonly id: string;
  readonly vote: ApprovalVoteKind;
  /**
   * The voter's EIP-712 `Decision` signature (0x, 65 bytes): required of a key with a credential
   * (decisions.md "Signed decisions") and stored with its vote. A key without one votes unsigned: what
   * it sends is neither checked nor stored.
   */
  readonly signature?: string;
  /**
   * A passkey vote (the approvers' console): the WebAuthn assertion (JSON) the console verified for this
   * key's passkey over this Decision, stored as the vote's signature and verified again at release.
   */
  readonly passkeyAssertion?: string;
}

/** Told of votes the release found without a valid signature (Prometheus: wallet_vault_approval_votes_invalid_total). */
export interface InvalidVoteObserver {
  observeInvalidVotes(count: number): void;
}

/**
 * A vote of an approver key (the route checks the role). Refused: the requester's own key (always), a key
 * outside the rule's group, a second vote of a key, a vote on a decided or expired approval. One reject
 * ends the request. The quorum counts only votes of keys still unrevoked approvers of the group, as the
 * store counts them at each read and again in the claim (a key revoked after voting withdraws its vote).
 * The approve that completes the quorum releases the signature (by the request's kind: ReleaseCall
 * for a call, SignMessage, SignTypedData or SignTransaction's release for theirs), and
 * only one caller releases it, whatever the concurrency: the release is claimed by a conditional update.
 * A release that fails (the chain's RPC, the key store, a limit) leaves the approval pending with its
 * votes; any later approve call, also by a key that already voted, retries it.
 */
export class VoteOnApproval {
  constructor(
    private readonly store: ApprovalStore | undefined,
    /** Signs an approved request (ReleaseByKind; a ReleaseCall alone releases only calls). */
    private readonly releaser: ApprovalReleaser,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
    /** The requester's key is read again before a release: a key revoked while its request waited gets nothing. */
    private readonly apiKeys: Pick<ApiKeyStore, 'findApiKey'> | undefined,
    /** Recovers the signer of a vote's `Decision`. */
    private readonly signers: DecisionSigners,
    private readonly observer?: InvalidVoteObserver,
    /** Who votes on a governed vault (governedVotersOf: its signed approvers and keys' credentials); absent: no vault is governed. */
    private readonly votersOf?: (vaultId: string) => Promise<GovernedVoting | null>,
    /** Verifies passkey votes again at release (absent: no key has a passkey). */
    private readonly passkeyVotes?: PasskeyVoteCheck,
    /** The policy in force, whose holding rule says the quorum and group a vote is judged by (withPolicyQuorum); absent: the rows'. */
    private readonly policies?: Pick<PolicyCache, 'state'>,
    /** Checks the row's seal (its requester, expiry and request as the wallet sealed them) before an approve counts and at the release. */
    private readonly seals?: Pick<HeldRequestSeals, 'holds' | 'require'>,
  ) {}

  async execute(command: VoteCommand): Promise<Approval> {
    const store = storeOf(this.store);
    const { principal, id, vote } = command;
    const vaultId = principal.vaultId;
    const now = this.clock.now();
    // The quorum and group of the rule in force, not the row's: the group a vote must be of, the quorum that tries a release.
    const document = await documentForReads(this.policies, vaultId);
    const shown = (a: Approval) => withPolicyQuorum(asOf(a, this.clock.now()), document);
    const approval = withPolicyQuorum(await findApproval(store, vaultId, id), document);
    // Who asked decides the self-vote refusal below: an approve counts only on a row its wallet sealed so.
    // A reject needs no seal (it releases nothing, and ends a row nobody can release anyway).
    if (vote === 'approve' && this.seals !== undefined && !(await this.seals.holds(approval))) {
      await this.refused(principal, approval, 'approval row not sealed by its wallet');
      await this.seals.require(approval);
    }
    if (principal.apiKeyId === approval.requester) {
      await this.refused(principal, approval, 'self vote');
      throw new DomainError(ErrorCode.APPROVAL_SELF_VOTE, `approval ${id}: the requesting key can never vote on its own request`);
    }
    if (approval.group !== null && (principal.group ?? null) !== approval.group) {
      await this.refused(principal, approval, `not in approver group ${approval.group}`);
      const own = principal.group ? `of group ${principal.group}` : 'of no group';
      throw new DomainError(ErrorCode.APPROVER_NOT_IN_GROUP, `approval ${id}: only approver keys of group ${approval.group} vote on it (this key is ${own})`);
    }
    refuseClosed(approval, now);
    // Before anything is written: a key with a credential votes only with its signature of this Decision.
    const address = principal.approverAddress ?? null;
    const voting = (await this.votersOf?.(vaultId)) ?? null;
    // A passkey the signed state lists for this key: the one its vote must be an assertion of (never the row's).
    const pinned = passkeyOf(voting?.credentials?.get(principal.apiKeyId));
    if (voting !== null && pinned === null && (address === null || !isGovernedVoter(voting.approvers, address))) {
      await this.refused(principal, approval, address === null ? 'governed vault: key without a credential in its signed state' : `governed vault: ${address} is not one of its approvers`);
      throw new DomainError(
        ErrorCode.APPROVAL_SIGNATURE_INVALID,
        address === null
          ? `approval ${id}: vault ${vaultId} is governed, so a key votes only with a credential its signed state lists (docs/governance.md); this key has none there (a passkey enrolment waits for its proposal's quorum, docs/console.md)`
          : `approval ${id}: vault ${vaultId} is governed, so only the approvers its signed governance names vote (docs/governance.md); this key's credential ${address} is not one of them`,
      );
    }
    if (pinned !== null) {
      const assertion = command.passkeyAssertion;
      if (assertion === undefined || (await this.passkeyVotes?.verify(approval, principal.apiKeyId, vote, assertion, pinned)) !== true) {
        await this.refused(principal, approval, 'governed vault: vote not an assertion of the passkey its signed state lists');
        throw new DomainError(
          ErrorCode.APPROVAL_SIGNATURE_INVALID,
          `approval ${id}: vault ${vaultId} is governed; this key votes with the passkey its signed state lists, and this is no assertion of that passkey over the Decision to ${vote} this approval`,
        );
      }
    }
    if (address !== null && !isSignedDecision(this.signers, approval, vote, command.signature, address)) {
      const why = command.signature === undefined ? 'no signature' : 'signature not of the key\'s approver address over this decision';
      await this.refused(principal, approval, `vote ${why}`);
      throw new DomainError(
        ErrorCode.APPROVAL_SIGNATURE_INVALID,
        command.signature === undefined
          ? `approval ${id}: this key votes with a signature ({"signature": "0x…"}: its approver address's EIP-712 Decision, docs/api.md#signed-votes)`
          : `approval ${id}: the signature is not this key's approver address's EIP-712 Decision to ${vote} this approval`,
      );
    }
    const earlier = approval.votes.find((v) => v.apiKeyId === principal.apiKeyId);
    if (earlier !== undefined) {
      // The quorum is there but the signature is not (its release failed): an approver's call retries it.
      if (earlier.vote === 'approve' && vote === 'approve' && approval.approvals >= approval.required) return this.release(store, approval, principal, shown);
      throw alreadyVoted(id, earlier.vote);
    }
    const signature = address !== null ? command.signature! : command.passkeyAssertion;
    const cast = { apiKeyId: principal.apiKeyId, vote, at: now, ...(signature === undefined ? {} : { signature }) };
    const outcome = await store.vote(vaultId, id, cast, (counted) => this.events(principal, withPolicyQuorum(counted, document), vote, now));
    if (outcome.kind === 'already-voted') throw alreadyVoted(id, vote);
    if (outcome.kind === 'closed') {
      // Decided or expired between the read and the vote: say which, as of now.
      const current = await store.find(vaultId, id);
      refuseClosed(current ?? approval, this.clock.now());
      throw new DomainError(ErrorCode.APPROVAL_CLOSED, `approval ${id}: it takes no more votes`);
    }
    const counted = shown(outcome.approval);
    if (vote === 'approve' && counted.approvals >= counted.required) return this.release(store, counted, principal, shown);
    return counted;
  }

  /**
   * Claims the release; the claimer signs, anyone else answers the approval as it stands (`shown`). A
   * release whose votes fall short of what the policy in force asks now (QuorumShort) signs nothing and
   * answers the approval, pending, as any vote that does not complete the quorum.
   */
  private async release(store: ApprovalStore, approval: Approval, principal: Principal, shown: (a: Approval) => Approval): Promise<Approval> {
    const token = randomUUID();
    const now = this.clock.now();
    if (this.apiKeys !== undefined) {
      const requester = await this.apiKeys.findApiKey(approval.requester);
      if (requester === null || (requester.revoked !== null && requester.revoked.getTime() <= now.getTime())) {
        // Left pending (it expires): the votes stand, and nothing is signed for a key no longer trusted.
        throw new DomainError(ErrorCode.POLICY_DENIED, `approval ${approval.id}: the key that asked for it (${apiKeyActor(approval.requester)}) is revoked; it is not signed`);
      }
    }
    if (await store.claimRelease(approval.vaultId, approval.id, token, now, new Date(now.getTime() + RELEASE_LEASE_MS))) {
      try {
        // Verified again from the stored rows, by the claimer alone: what is signed is the request read here.
        const held = await this.verifiedQuorum(store, approval, principal);
        if (held === null) {
          await store.abandonRelease(approval.vaultId, approval.id, token);
          return shown((await store.find(approval.vaultId, approval.id)) ?? approval);
        }
        await this.releaser.release(held.approval, token, actorOf(principal), new ReleaseQuorum(held.approval, held.approvers));
      } catch (error) {
        // Given back at once: the next approve call retries (the lease would hold it otherwise). A refusal
        // its approvers should read (a limit, a freeze, ...) is recorded with it, where the status is shown.
        const blocked = releaseBlockOf(error, this.clock.now());
        await store.abandonRelease(approval.vaultId, approval.id, token, blocked ?? undefined).catch(() => undefined);
        if (!(error instanceof QuorumShort)) throw error;
      }
    }
    const current = await store.find(approval.vaultId, approval.id);
    return shown(current ?? approval);
  }

  /**
   * The approval as stored and the approvers whose votes count, when its stored request still hashes to its
   * requestHash and its counted votes that verify (signed by their key's current credential, or of a key
   * without one) still make the row's quorum, counted per approver (voterOf: the keys of one address are
   * one approver); else null, with `approval.vote-invalid` on record naming the votes that count for nothing.
   * A quorum that holds despite such votes goes on to the release (which asks the policy's quorum), and
   * those votes are on record all the same. On a governed vault each key's credential and group are the
   * signed state's.
   */
  private async verifiedQuorum(store: ApprovalStore, read: Approval, principal: Principal): Promise<{ approval: Approval; approvers: CountedApprover[] } | null> {
    const approval = (await store.find(read.vaultId, read.id)) ?? read;
    // The row as the release reads it, checked again: nothing is signed for a requester or expiry the wallet did not seal.
    await this.seals?.require(approval);
    const voting = (await this.votersOf?.(approval.vaultId)) ?? null;
    const credentials = voting?.credentials ?? null;
    const groups = voting?.groups ?? null;
    const stored = await store.countedVotes(approval.vaultId, approval.id);
    const votes = credentials === null ? stored : stored.map((v) => ({ ...v, approverAddress: addressOf(credentials.get(v.apiKeyId)), group: groups?.get(v.apiKeyId) ?? null }));
    // The passkeys the signed state lists, by key: a governed vault's passkey votes are verified against these alone.
    const pinned = credentials === null ? null : new Map([...credentials].flatMap(([id, c]) => ((p) => (p === null ? [] : [[id, p] as const]))(passkeyOf(c))));
    const signed = checkQuorum(this.signers, approval, votes, voting?.approvers ?? null, new Set(pinned?.keys()));
    const check = await this.withPasskeys(approval, votes, signed, pinned);
    const approvers = check.valid.map((v) => ({ voter: voterOf(v, pinned?.get(v.apiKeyId)), group: v.group }));
    const valid = new Set(approvers.map((a) => a.voter)).size;
    const held = check.intact && valid >= approval.required;
    if (check.invalid.length > 0 || !check.intact) {
      this.observer?.observeInvalidVotes(Math.max(check.invalid.length, 1));
      await audit(this.auditLog, 'approval.vote-invalid', this.clock.now(), actorOf(principal), approval.vaultId, approval.id, {
        approval: approval.id,
        reason: check.intact ? 'vote without a valid signature of its key\'s credential (approver address or passkey)' : 'stored request does not hash to its requestHash',
        votes: check.invalid.map((v) => apiKeyActor(v.apiKeyId)).join(','),
        valid,
        required: approval.required,
        released: held,
      });
    }
    return held ? { approval, approvers } : null;
  }

  /**
   * The quorum check with passkey votes verified too: a counted vote of a key with a passkey counts only with
   * its assertion. `pinned` (a vault whose signed state governs its keys): the passkeys that state lists, the
   * only ones verified against; the rows' public keys are not read.
   */
  private async withPasskeys(approval: Approval, votes: readonly CountedVote[], check: QuorumCheck, pinned: ReadonlyMap<string, GovernedPasskey> | null): Promise<QuorumCheck> {
    if (!check.intact || (this.passkeyVotes === undefined && pinned === null)) return check;
    const invalid = new Set(check.invalid.map((v) => v.apiKeyId));
    const failed: CountedVote[] = [];
    for (const vote of votes) {
      if (vote.approverAddress !== null || invalid.has(vote.apiKeyId)) continue;
      const passkey = pinned?.get(vote.apiKeyId);
      // checkQuorum judged every other vote of a governed vault already (no credential in its state: invalid).
      if (pinned !== null && passkey === undefined) continue;
      const verified = await this.passkeyVotes?.verify(approval, vote.apiKeyId, 'approve', vote.signature, passkey);
      if (verified === false || (passkey !== undefined && verified !== true)) failed.push(vote);
    }
    if (failed.length === 0) return check;
    return { intact: true, invalid: [...check.invalid, ...failed], valid: check.valid.filter((v) => !failed.includes(v)) };
  }

  private events(principal: Principal, approval: Approval, vote: ApprovalVoteKind, at: Date): AuditEvent[] {
    const base = { at, actor: actorOf(principal), vaultId: approval.vaultId, subject: approval.id } as const;
    const voted: AuditEvent = {
      ...base,
      action: 'approval.voted',
      details: { approval: approval.id, approvals: approval.approvals, required: approval.required, vote },
    };
    if (vote === 'approve') return [voted];
    return [voted, { ...base, action: 'approval.decided', details: { approval: approval.id, status: 'rejected' } }];
  }

  /** A try to get around the control is what an auditor looks for first: on record before the refusal. */
  private async refused(principal: Principal, approval: Approval, reason: string): Promise<void> {
    await audit(this.auditLog, 'auth.refused', this.clock.now(), actorOf(principal), principal.vaultId, principal.apiKeyId, {
      approval: approval.id,
      operation: 'approval vote',
      reason,
    });
  }
}

const alreadyVoted = (id: string, vote: ApprovalVoteKind) =>
  new DomainError(ErrorCode.APPROVAL_ALREADY_VOTED, `approval ${id}: this key has already voted (${vote})`);

function refuseClosed(approval: Approval, now: Date): void {
  const status = effectiveStatus(approval, now);
  if (status === 'expired') throw new DomainError(ErrorCode.APPROVAL_EXPIRED, `approval ${approval.id}: the request expired before its quorum; it is never signed`);
  if (status !== 'pending') throw new DomainError(ErrorCode.APPROVAL_CLOSED, `approval ${approval.id}: already ${status}; it takes no more votes`);
}

