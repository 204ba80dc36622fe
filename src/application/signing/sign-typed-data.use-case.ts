import { heldOfKind, type Approval } from '../../domain/approval.js';
import { toHex, type Hex } from '../../domain/signing/signable-digest.js';
import type { PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import { NO_FACTS, type SignIntent } from '../../domain/policy/sign-intent.js';
import type { Wallet } from '../../domain/wallet.js';
import { TYPED_DATA_KIND } from '../../domain/signing/kinds/typed-data/typed-data.kind.js';
import type { TypedDataDigest } from '../../ports/standard-payloads.port.js';
import {
  asJsonValue,
  heldPayload,
  recordedText,
  sameDigest,
  signatureHex,
  StandardSigningUseCase,
  type HeldRequest,
  type StandardOutcome,
  type WalletCommand,
} from './standard-signing.js';
import type { ReleaseQuorum } from '../approvals/held-quorum.js';

/** `typedData`: `{ domain, types, primaryType, message }` as viem's signTypedData takes them. */
export type SignTypedDataCommand = WalletCommand<{ typedData: unknown }>;

/** Signs EIP-712 typed data with a vault wallet, when the vault's policy allows it (its domain, primary type and fields). */
export class SignTypedData extends StandardSigningUseCase {
  /** What the policy would decide (the dry run): the typed data is read as execute reads it, nothing is signed. */
  async evaluate(command: SignTypedDataCommand): Promise<PolicyDecision> {
    const read = this.signing.payloads.typedDataDigest(TYPED_DATA_KIND.read(command.typedData));
    const wallet = await this.signing.wallet(command.principal, command.address);
    return this.signing.evaluate(command.principal, this.intentOf(wallet, command.typedData, read));
  }

  /** Typed data as the one policy reads it: its domain, primary type and message fields. */
  private intentOf(wallet: Wallet, typedData: unknown, { domain, primaryType }: Pick<TypedDataDigest, 'domain' | 'primaryType'>): SignIntent {
    const chainId = domain.chainId === null ? null : domain.chainId.toString();
    return {
      ...NO_FACTS,
      kind: 'typed-data',
      wallet: wallet.address,
      chain: chainId === null ? null : this.signing.chains.nameOf(chainId),
      chainId,
      contract: domain.verifyingContract,
      // The message as given: the digest was made of it, so the fields a rule reads are the ones signed.
      typedData: { primaryType, domainName: domain.name, message: (typedData as { message: unknown }).message },
    };
  }

  /** Signs, or holds the typed data for a quorum when a hold rule matches it (`{ approval }`, nothing signed). */
  async execute(command: SignTypedDataCommand): Promise<StandardOutcome<{ signature: Hex }>> {
    const { principal } = command;
    const read = this.signing.payloads.typedDataDigest(TYPED_DATA_KIND.read(command.typedData));
    const wallet = await this.signing.wallet(principal, command.address);
    const key = command.idempotencyKey;
    const held = key === undefined ? null : this.heldOf(wallet, command.typedData, read);
    const known = held === null ? null : await this.signing.repeated<{ signature: Hex }>(principal, key, held.body);
    if (known !== null) return known;
    const facts = factsOf(read);
    const intent = this.intentOf(wallet, command.typedData, read);
    const decision = await this.signing.authorize(principal, wallet, 'typed-data', intent, facts);
    if (decision.decision === 'hold') {
      const request = held ?? this.heldOf(wallet, command.typedData, read);
      sameDigest(this.signing.payloads.typedDataDigest(TYPED_DATA_KIND.read(heldPayload(TYPED_DATA_KIND, request))).digest, read.digest, 'typedData');
      return this.signing.hold(principal, wallet, 'typed-data', decision, request, facts, key);
    }
    const signature = signatureHex(await this.signing.sign(wallet, read.digest));
    await this.signing.record(principal, wallet, 'sign.typed-data', facts, decision.fence);
    return { signature };
  }

  /**
   * Signs approved typed data (its quorum reached, the release claimed with `token`): the policy is read
   * again (a deny refuses; a hold counts as allowed once `quorum` meets it) and the limits count it; the signature's record, the
   * approval's result and approval.decided are written in one transaction before it is returned.
   */
  async release(approval: Approval, token: string, actor: string, quorum: ReleaseQuorum): Promise<{ signature: Hex }> {
    const stored = heldOfKind(TYPED_DATA_KIND, approval);
    const principal = this.signing.releasePrincipal(approval);
    const read = this.signing.payloads.typedDataDigest(TYPED_DATA_KIND.read(stored.payload));
    const wallet = await this.signing.wallet(principal, stored.address);
    const facts = factsOf(read);
    const { fence } = await this.signing.authorize(principal, wallet, 'typed-data', this.intentOf(wallet, stored.payload, read), facts, { release: quorum });
    const result = { signature: signatureHex(await this.signing.sign(wallet, read.digest)) };
    await this.signing.released(approval, token, actor, wallet, 'sign.typed-data', facts, result, fence);
    return result;
  }

  /** The request as an approval stores it, and its columns: chain, verifying contract, `typed-data <primaryType>`. */
  private heldOf(wallet: Wallet, typedData: unknown, { domain, primaryType }: Pick<TypedDataDigest, 'domain' | 'primaryType'>): HeldRequest {
    const chainId = domain.chainId === null ? null : domain.chainId.toString();
    return {
      body: TYPED_DATA_KIND.held.encode({ address: wallet.address, payload: asJsonValue(typedData) }),
      chain: chainId === null ? '' : (this.signing.chains.nameOf(chainId) ?? chainId),
      contract: domain.verifyingContract ?? '',
      selector: '',
      description: TYPED_DATA_KIND.describeHeld(recordedText(primaryType)),
    };
  }
}

/** Sorted keys: the canonical JSON the audit chain hashes is then the object as it is. */
const factsOf = ({ digest, domain, primaryType }: TypedDataDigest) => ({
  chainId: domain.chainId === null ? null : domain.chainId.toString(),
  digest: toHex(digest),
  name: recordedText(domain.name),
  primaryType: recordedText(primaryType),
  verifyingContract: domain.verifyingContract,
});
