import { heldOfKind, type Approval } from '../../domain/approval.js';
import type { PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import { NO_FACTS, type SignIntent } from '../../domain/policy/sign-intent.js';
import { toHex, type Hex } from '../../domain/signing/signable-digest.js';
import type { Wallet } from '../../domain/wallet.js';
import { AUTHORIZATION_KIND } from '../../domain/signing/kinds/authorization/authorization.kind.js';
import type { RecoverableSignature } from '../../ports/key-store.port.js';
import type { AuthorizationFacts } from '../../ports/standard-payloads.port.js';
import { asJsonValue, heldPayload, sameDigest, signatureHex, StandardSigningUseCase, type HeldRequest, type StandardOutcome, type WalletCommand } from './standard-signing.js';
import type { ReleaseQuorum } from '../approvals/held-quorum.js';

/** `authorization`: `{ chainId, address, nonce }` (EIP-7702: the delegate `address` on `chainId`, 0 for every chain). */
export type SignAuthorizationCommand = WalletCommand<{ authorization: unknown }>;

/** A signed EIP-7702 authorization: the 65-byte signature (r ‖ s ‖ v, v 27 or 28) and its parts as a type-4 transaction carries them. */
export interface SignedAuthorizationResult {
  readonly signature: Hex;
  readonly yParity: 0 | 1;
  readonly r: Hex;
  readonly s: Hex;
}

/**
 * Signs an EIP-7702 authorization with a vault wallet: the wallet's account then runs the delegate's code
 * for anyone who calls it, the most powerful thing its key can sign. Deny by default: a rule must name the
 * kind `authorization` (a rule without `kinds` never allows one) and its `contracts` filter is the delegate;
 * chain id 0 (valid on every chain) only under a rule with `anyChain: true`.
 */
export class SignAuthorization extends StandardSigningUseCase {
  /** What the policy would decide (the dry run): the authorization read as execute reads it, nothing signed. */
  async evaluate(command: SignAuthorizationCommand): Promise<PolicyDecision> {
    const facts = AUTHORIZATION_KIND.read(command.authorization);
    return this.signing.evaluate(command.principal, this.intentOf(await this.signing.wallet(command.principal, command.address), facts));
  }

  /** Signs, or holds the authorization for a quorum when a hold rule matches it (`{ approval }`, nothing signed). */
  async execute(command: SignAuthorizationCommand): Promise<StandardOutcome<SignedAuthorizationResult>> {
    const { principal } = command;
    const { digest, facts } = this.signing.payloads.authorizationDigest(AUTHORIZATION_KIND.read(command.authorization));
    const wallet = await this.signing.wallet(principal, command.address);
    const key = command.idempotencyKey;
    const held = key === undefined ? null : this.heldOf(wallet, command.authorization, facts);
    const known = held === null ? null : await this.signing.repeated<SignedAuthorizationResult>(principal, key, held.body);
    if (known !== null) return known;
    const details = detailsOf(facts, digest);
    const decision = await this.signing.authorize(principal, wallet, 'authorization', this.intentOf(wallet, facts), details);
    if (decision.decision === 'hold') {
      const request = held ?? this.heldOf(wallet, command.authorization, facts);
      sameDigest(this.signing.payloads.authorizationDigest(AUTHORIZATION_KIND.read(heldPayload(AUTHORIZATION_KIND, request))).digest, digest, 'authorization');
      return this.signing.hold(principal, wallet, 'authorization', decision, request, details, key);
    }
    const result = resultOf(await this.signing.sign(wallet, digest));
    await this.signing.record(principal, wallet, 'sign.authorization', details, decision.fence);
    return result;
  }

  /**
   * Signs an approved authorization (its quorum reached, the release claimed with `token`): the policy is
   * read again (a deny refuses; a hold counts as allowed once `quorum` meets it) and the limits count it; the signature's record,
   * the approval's result and approval.decided are written in one transaction before it is returned.
   */
  async release(approval: Approval, token: string, actor: string, quorum: ReleaseQuorum): Promise<SignedAuthorizationResult> {
    const stored = heldOfKind(AUTHORIZATION_KIND, approval);
    const principal = this.signing.releasePrincipal(approval);
    const { digest, facts } = this.signing.payloads.authorizationDigest(AUTHORIZATION_KIND.read(stored.payload));
    const wallet = await this.signing.wallet(principal, stored.address);
    const details = detailsOf(facts, digest);
    const { fence } = await this.signing.authorize(principal, wallet, 'authorization', this.intentOf(wallet, facts), details, { release: quorum });
    const result = resultOf(await this.signing.sign(wallet, digest));
    await this.signing.released(approval, token, actor, wallet, 'sign.authorization', details, result, fence);
    return result;
  }

  /** The request as an approval stores it: chain (name, else id; `any` for 0), the delegate as its contract. */
  private heldOf(wallet: Wallet, authorization: unknown, facts: AuthorizationFacts): HeldRequest {
    const chainId = facts.chainId.toString();
    return {
      body: AUTHORIZATION_KIND.held.encode({ address: wallet.address, payload: asJsonValue(authorization) }),
      chain: facts.chainId === 0n ? 'any' : (this.signing.chains.nameOf(chainId) ?? chainId),
      contract: facts.address,
      selector: '',
      description: AUTHORIZATION_KIND.describeHeld(),
    };
  }

  /** The authorization as the one policy reads it: its delegate is the contract; chain id 0 is `0`. */
  private intentOf(wallet: Wallet, facts: AuthorizationFacts): SignIntent {
    const chainId = facts.chainId.toString();
    return {
      ...NO_FACTS,
      kind: 'authorization',
      wallet: wallet.address,
      chain: facts.chainId === 0n ? null : this.signing.chains.nameOf(chainId),
      chainId,
      contract: facts.address,
    };
  }
}

/** Sorted keys: the canonical JSON the audit chain hashes is then the object as it is. */
const detailsOf = (facts: AuthorizationFacts, digest: Uint8Array) => ({
  chainId: facts.chainId.toString(),
  delegate: facts.address,
  digest: toHex(digest),
  nonce: facts.nonce.toString(),
});

const resultOf = (signature: RecoverableSignature): SignedAuthorizationResult => ({
  signature: signatureHex(signature),
  yParity: (signature.v - 27) as 0 | 1,
  r: toHex(signature.r),
  s: toHex(signature.s),
});
