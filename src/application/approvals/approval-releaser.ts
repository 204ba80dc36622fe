import { approvalKind, type Approval, type ApprovalKind } from '../../domain/approval.js';
import type { ReleaseQuorum } from './held-quorum.js';

/**
 * What signs an approved request (its quorum reached, the release claimed with `token`): ReleaseCall for a
 * call, SignMessage, SignTypedData or SignTransaction for theirs. Writes the signature, its records and the
 * approval's result in one transaction before it resolves, only while the claim holds.
 */
export interface ApprovalReleaser {
  /**
   * `quorum`: the approvers whose votes count; the release decides the request again with the policy in
   * force and signs only when they meet what that decision asks (ReleaseQuorum.require, QuorumShort if not).
   */
  release(approval: Approval, token: string, actor: string, quorum: ReleaseQuorum): Promise<unknown>;
}

/** Releases an approved request by its kind: the use case that would have signed it, had no rule held it. */
export class ReleaseByKind implements ApprovalReleaser {
  constructor(private readonly releasers: Readonly<Record<ApprovalKind, ApprovalReleaser>>) {}

  release(approval: Approval, token: string, actor: string, quorum: ReleaseQuorum): Promise<unknown> {
    return this.releasers[approvalKind(approval)].release(approval, token, actor, quorum);
  }
}
