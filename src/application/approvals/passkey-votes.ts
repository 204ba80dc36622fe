import type { Approval } from '../../domain/approval.js';
import type { GovernedPasskey } from '../../domain/governance.js';
import { decisionTypedData, type DecisionKind } from '../../domain/signed-decisions.js';
import { readTypedData } from '../../domain/signing/kinds/typed-data/typed-data.input.js';
import type { ConsoleStore, Passkey } from '../../ports/console-store.port.js';
import type { RelyingParty } from '../../ports/relying-party.port.js';
import type { StandardPayloads } from '../../ports/standard-payloads.port.js';
import type { PasskeyVoteCheck } from './signed-votes.js';

/** The base64url challenge a passkey signs to decide `decision` on `approval`: its EIP-712 Decision digest. */
export function decisionChallenge(payloads: Pick<StandardPayloads, 'typedDataDigest'>, approval: Pick<Approval, 'vaultId' | 'id' | 'requestHash'>, decision: DecisionKind): string {
  return Buffer.from(payloads.typedDataDigest(readTypedData(decisionTypedData(approval.vaultId, approval.id, approval.requestHash, decision))).digest).toString('base64url');
}

/**
 * Passkey votes verified again at release from the stored rows (VoteOnApproval's PasskeyVoteCheck): the
 * stored assertion must be the key's passkey's, over this approval's Decision digest, at the console's
 * origin. A key with a passkey and no relying party configured votes for nothing.
 */
export class PasskeyVotes implements PasskeyVoteCheck {
  constructor(
    private readonly store: ConsoleStore | undefined,
    private readonly relyingParty: RelyingParty | undefined,
    private readonly payloads: Pick<StandardPayloads, 'typedDataDigest'>,
  ) {}

  async verify(approval: Approval, apiKeyId: string, decision: DecisionKind, signature: string | null, pinned?: GovernedPasskey): Promise<boolean | null> {
    // Pinned by a governed vault's signed state: that credential and public key alone, whatever the row says.
    const passkey: Passkey | null =
      pinned !== undefined
        ? { apiKeyId, vaultId: approval.vaultId, name: '', credentialId: pinned.credentialId, publicKey: pinned.publicKey, counter: 0, transports: [], created: new Date(0) }
        : this.store === undefined
          ? null
          : await this.store.passkeyOf(apiKeyId);
    if (passkey === null) return null;
    if (this.relyingParty === undefined || typeof signature !== 'string' || signature.length > 16_384) return false;
    let response: unknown;
    try {
      response = JSON.parse(signature);
    } catch {
      return false;
    }
    let challenge: string;
    try {
      challenge = decisionChallenge(this.payloads, approval, decision);
    } catch {
      return false;
    }
    return (await this.relyingParty.verifyAssertion(response, challenge, passkey)) !== null;
  }
}
