import type { Approval } from '../../domain/approval.js';
import type { ReleaseQuorum } from './held-quorum.js';
import { HeldRequests, type HeldRequestsDeps } from './held-requests.js';
import type { SignCall, SignResult } from '../signing/sign-call.use-case.js';

/** What ReleaseCall is built from: the SignCall that signs, and where approvals are held. */
export interface ReleaseCallDeps extends HeldRequestsDeps {
  readonly signCall: Pick<SignCall, 'signApproved'>;
}

/**
 * Makes the signature of an approved call (its quorum reached, the release claimed with `token`): SignCall
 * signs the stored request as it was asked, everything the request does not fix read now, once `quorum`
 * meets what the policy in force decides for it. The signature,
 * its audit records and the approval's result are written in one transaction, only while the claim holds;
 * CONFLICT when it no longer did.
 */
export class ReleaseCall {
  private readonly held: HeldRequests;

  constructor(private readonly deps: ReleaseCallDeps) {
    this.held = new HeldRequests(deps, 'sign request');
  }

  release(approval: Approval, token: string, actor: string, quorum: ReleaseQuorum): Promise<SignResult> {
    this.held.store(); // Before anything is signed.
    return this.deps.signCall.signApproved(approval, quorum, (entry, issued, result, fence) =>
      this.held.released(
        approval,
        token,
        actor,
        entry.created,
        { signature: entry, signed: issued, decided: { submissionHash: entry.submissionHash }, result, fence },
        'nothing was signed',
      ),
    );
  }
}
