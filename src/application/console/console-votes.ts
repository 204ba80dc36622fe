import type { ApprovalVoteKind } from '../../domain/approval.js';
import { invalidArgument } from '../../domain/errors.js';
import type { DecisionKind } from '../../domain/signed-decisions.js';
import type { ApprovalView } from '../approvals/approval-view.js';
import { decisionChallenge } from '../approvals/passkey-votes.js';
import { apiKeyActor, auditEvent } from '../audit/audit-actor.js';
import { badSignature, ConsoleRoom, sameText, type ConsoleCaller } from './console-room.js';

/*
 * A signed-in approver's vote: the assertion options over the EIP-712 Decision digest, and the vote once
 * its passkey assertion verifies, then counted as any approver's (VoteOnApproval).
 */

export class ConsoleVotes extends ConsoleRoom {
  /** `POST /console/api/approvals/{id}/challenge`: the assertion options whose challenge is the Decision digest. */
  async decisionOptions(caller: ConsoleCaller, id: string, decision: unknown): Promise<{ options: unknown }> {
    const { rp } = this.parts();
    const kind = decisionOf(decision);
    const approval = await this.deps.getApproval.execute(caller.approver.vault, id);
    return { options: await rp.authenticationOptions(decisionChallenge(this.deps.payloads, approval, kind), [caller.passkey]) };
  }

  /**
   * `POST /console/api/approvals/{id}/approve|reject`: the signed-in approver's passkey assertion over the
   * Decision digest (this approval, its request, this decision), at the console's origin and rpId, of the
   * session's credential, its counter growing; else 403 APPROVAL_SIGNATURE_INVALID and nothing written.
   * Then the vote as any approver's (VoteOnApproval): groups, self votes, the quorum and the release.
   */
  async vote(caller: ConsoleCaller, id: string, decision: ApprovalVoteKind, response: unknown): Promise<ApprovalView> {
    const { store, rp } = this.parts();
    const approval = await this.deps.getApproval.execute(caller.approver.vault, id);
    // A refusal is on record (auth.refused, as for an address vote); the vote is not written.
    const refuse = async (reason: string, message: string): Promise<never> => {
      await this.deps.auditLog.append(
        auditEvent('auth.refused', this.deps.clock.now(), apiKeyActor(caller.approver.id), caller.approver.vault, caller.approver.id, { approval: id, operation: 'approval vote (passkey)', reason }),
      );
      throw badSignature(message);
    };
    const credentialId = rp.assertionCredentialId(response);
    if (credentialId === null || !sameText(credentialId, caller.passkey.credentialId)) {
      return refuse('assertion of another credential', `approval ${id}: the assertion is not of the passkey this session was signed in with`);
    }
    const verified = await rp.verifyAssertion(response, decisionChallenge(this.deps.payloads, approval, decision), caller.passkey);
    if (verified === null) {
      return refuse('assertion not over this Decision at this origin', `approval ${id}: the assertion is not this approver's passkey over the EIP-712 Decision to ${decision} this approval at ${rp.origin}`);
    }
    if (!(verified.counter === 0 && caller.passkey.counter === 0) && !(await store.advanceCounter(caller.passkey.apiKeyId, verified.counter))) {
      return refuse('authenticator counter did not grow', `approval ${id}: the authenticator counter went back (a cloned passkey?)`);
    }
    const decided = await this.deps.voteOnApproval.execute({ principal: caller.principal, id, vote: decision, passkeyAssertion: JSON.stringify(response) });
    const [view] = await this.views(decided.vaultId, [decided]);
    return view!;
  }
}

function decisionOf(value: unknown): DecisionKind {
  if (value !== 'approve' && value !== 'reject') throw invalidArgument('decision: "approve" or "reject"');
  return value;
}
