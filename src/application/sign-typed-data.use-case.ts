import { toHex, type Hex } from '../domain/signing/signable-digest.js';
import { typedDataViolation } from '../domain/standard-sign-policy.js';
import { recordedText, signatureHex, StandardSigningUseCase, type WalletCommand } from './standard-signing.js';

/** `typedData`: `{ domain, types, primaryType, message }` as viem's signTypedData takes them. */
export type SignTypedDataCommand = WalletCommand<{ typedData: unknown }>;

/** Signs EIP-712 typed data with a vault wallet, when the vault's policy allows its domain (`--typed-data-contracts`). */
export class SignTypedData extends StandardSigningUseCase {
  async execute(command: SignTypedDataCommand): Promise<{ signature: Hex }> {
    const { principal } = command;
    const { digest, domain, primaryType } = this.signing.payloads.typedDataDigest(command.typedData);
    const wallet = await this.signing.wallet(principal, command.address);
    // Sorted keys: the canonical JSON the audit chain hashes is then the object as it is.
    const facts = {
      chainId: domain.chainId === null ? null : domain.chainId.toString(),
      digest: toHex(digest),
      name: recordedText(domain.name),
      primaryType: recordedText(primaryType),
      verifyingContract: domain.verifyingContract,
    };
    await this.signing.enforce(principal, wallet, 'typed-data', (policy) => typedDataViolation(policy, domain), facts);
    const signature = signatureHex(await this.signing.sign(wallet, digest));
    await this.signing.record(principal, wallet, 'sign.typed-data', facts);
    return { signature };
  }
}
