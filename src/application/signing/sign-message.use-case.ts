import { heldOfKind, type Approval } from '../../domain/approval.js';
import { toHex, type Hex } from '../../domain/signing/signable-digest.js';
import type { PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import { NO_FACTS, type SignIntent } from '../../domain/policy/sign-intent.js';
import type { Wallet } from '../../domain/wallet.js';
import { MESSAGE_KIND } from '../../domain/signing/kinds/message/message.kind.js';
import { asJsonValue, heldPayload, sameDigest, signatureHex, StandardSigningUseCase, type HeldRequest, type StandardOutcome, type WalletCommand } from './standard-signing.js';
import type { ReleaseQuorum } from '../approvals/held-quorum.js';

/** `message`: text (signed as its UTF-8 bytes) or `{ raw: "0x…" }` (bytes as they are). */
export type SignMessageCommand = WalletCommand<{ message: unknown }>;

/** A message as an approval stores it: text as it is, bytes as `{ raw: "0x…" }` (text that looks like hex stays text). */
function storedMessage(message: unknown): unknown {
  if (message instanceof Uint8Array) return { raw: toHex(message) };
  return asJsonValue(message);
}

/** Signs an EIP-191 personal message with a vault wallet, when the vault's policy allows it (a rule of kind `message`). */
export class SignMessage extends StandardSigningUseCase {
  /** What the policy would decide (the dry run): the message is read as execute reads it, nothing is signed. */
  async evaluate(command: SignMessageCommand): Promise<PolicyDecision> {
    MESSAGE_KIND.read(command.message);
    return this.signing.evaluate(command.principal, intentOf(await this.signing.wallet(command.principal, command.address)));
  }

  /** Signs, or holds the message for a quorum when a hold rule matches it (`{ approval }`, nothing signed). */
  async execute(command: SignMessageCommand): Promise<StandardOutcome<{ signature: Hex }>> {
    const { principal } = command;
    const digest = this.signing.payloads.messageDigest(MESSAGE_KIND.read(command.message));
    const wallet = await this.signing.wallet(principal, command.address);
    const key = command.idempotencyKey;
    const held = key === undefined ? null : heldOf(wallet, storedMessage(command.message));
    const known = held === null ? null : await this.signing.repeated<{ signature: Hex }>(principal, key, held.body);
    if (known !== null) return known;
    const digestHex = toHex(digest);
    const decision = await this.signing.authorize(principal, wallet, 'message', intentOf(wallet), { digest: digestHex });
    if (decision.decision === 'hold') {
      const request = held ?? heldOf(wallet, storedMessage(command.message));
      sameDigest(this.signing.payloads.messageDigest(MESSAGE_KIND.read(heldPayload(MESSAGE_KIND, request))), digest, 'message');
      return this.signing.hold(principal, wallet, 'message', decision, request, { digest: digestHex }, key);
    }
    const signature = signatureHex(await this.signing.sign(wallet, digest));
    await this.signing.record(principal, wallet, 'sign.message', { digest: digestHex }, decision.fence);
    return { signature };
  }

  /**
   * Signs an approved message (its quorum reached, the release claimed with `token`): the policy is read
   * again (a deny refuses; a hold counts as allowed once `quorum` meets it) and the limits count it; the signature's record, the
   * approval's result and approval.decided are written in one transaction before it is returned.
   */
  async release(approval: Approval, token: string, actor: string, quorum: ReleaseQuorum): Promise<{ signature: Hex }> {
    const stored = heldOfKind(MESSAGE_KIND, approval);
    const principal = this.signing.releasePrincipal(approval);
    const digest = this.signing.payloads.messageDigest(MESSAGE_KIND.read(stored.payload));
    const wallet = await this.signing.wallet(principal, stored.address);
    const details = { digest: toHex(digest) };
    const { fence } = await this.signing.authorize(principal, wallet, 'message', intentOf(wallet), details, { release: quorum });
    const result = { signature: signatureHex(await this.signing.sign(wallet, digest)) };
    await this.signing.released(approval, token, actor, wallet, 'sign.message', details, result, fence);
    return result;
  }
}

const heldOf = (wallet: Wallet, message: unknown): HeldRequest => ({
  body: MESSAGE_KIND.held.encode({ address: wallet.address, payload: message }),
  chain: '',
  contract: '',
  selector: '',
  description: MESSAGE_KIND.describeHeld(),
});

const intentOf = (wallet: Wallet): SignIntent => ({ ...NO_FACTS, kind: 'message', wallet: wallet.address });
