import type { Approval } from '../../domain/approval.js';
import { isHold, type PolicyDocument } from '../../domain/policy/policy-document.js';
import type { PolicyDecision } from '../../domain/policy/policy-evaluation.js';

/*
 * What a held request needs is the policy's, never its row's (docs/policy.md, "Who releases a held request"):
 * `required` and `group` are written into the approval when it is held, and a database writer can rewrite
 * them. The release decides the stored request again with the verified policy in force, at the moment it
 * signs, and needs what that decision asks; reads show the quorum of the holding rule in force.
 */

/** A vote that counts at a release: whose (its credential, voterOf) and its key's group (the signed state's on a governed vault). */
export interface CountedApprover {
  readonly voter: string;
  readonly group: string | null;
}

/** A release whose votes fall short of what the policy in force asks now: nothing is signed, the approval stays pending. */
export class QuorumShort extends Error {
  constructor(approvalId: string, needed: { readonly required: number; readonly group: string | null }, counted: number) {
    super(`approval ${approvalId}: the policy in force asks ${needed.required} approval(s)${needed.group === null ? '' : ` of group ${needed.group}`}, ${counted} counted`);
  }
}

/** The approvers of a held request at its release, against what the policy decides for it then. */
export class ReleaseQuorum {
  constructor(
    private readonly approval: Pick<Approval, 'id' | 'required' | 'group'>,
    private readonly votes: readonly CountedApprover[],
  ) {}

  /** Distinct approvers among the counted votes, of `group` when it names one. */
  approvers(group: string | null): number {
    return new Set(this.votes.filter((v) => group === null || v.group === group).map((v) => v.voter)).size;
  }

  /**
   * Throws QuorumShort unless the votes meet `decision`, the release's own decision of the stored request
   * under the policy in force: a hold asks its rule's quorum of its rule's group, and never less than the
   * row's (a policy lowered since the hold does not lower what the request was held for; the row's group is
   * the store's count already). An allow asks nothing more (the row's quorum was met to get here); a deny was
   * refused before (POLICY_DENIED).
   */
  require(decision: PolicyDecision): void {
    if (decision.decision !== 'hold' || decision.hold === undefined) return;
    const needed = { required: Math.max(decision.hold.required, this.approval.required), group: decision.hold.group ?? null };
    const counted = this.approvers(needed.group);
    if (counted < needed.required) throw new QuorumShort(this.approval.id, needed, counted);
  }

  /**
   * Throws QuorumShort unless the votes meet the hold of a limit's `onExceed` in force (the policy's, read
   * at the release): what lets this release past that limit. Never less than the row's quorum.
   */
  requireEscalation(escalate: { readonly required: number; readonly group?: string }): void {
    const needed = { required: Math.max(escalate.required, this.approval.required), group: escalate.group ?? null };
    const counted = this.approvers(needed.group);
    if (counted < needed.required) throw new QuorumShort(this.approval.id, needed, counted);
  }
}

/**
 * The approval as reads report it: `required` and `group` of the rule that held it as the policy in force
 * has it (by its id; the quorum never below the row's), the row's where the rule is gone or holds no more
 * (its release decides again). `document` null: a vault whose state does not verify, whose row is all there is.
 */
export function withPolicyQuorum<T extends Pick<Approval, 'ruleId' | 'required' | 'group'>>(approval: T, document: PolicyDocument | null): T {
  const hold = policyHold(approval.ruleId, document);
  if (hold === null) return approval;
  const required = Math.max(hold.required, approval.required);
  const group = hold.group ?? null;
  return required === approval.required && group === approval.group ? approval : { ...approval, required, group };
}

/** The hold in force of what held a request: its rule's effect, or (`limit:<id>`) its limit's onExceed. */
function policyHold(ruleId: string, document: PolicyDocument | null): { readonly required: number; readonly group?: string } | null {
  if (ruleId.startsWith('limit:')) return document?.limits.find((l) => `limit:${l.id}` === ruleId)?.onExceed?.hold ?? null;
  const rule = document?.rules.find((r) => r.id === ruleId);
  return rule === undefined || !isHold(rule.effect) ? null : rule.effect.hold;
}
