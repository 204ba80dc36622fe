import { toHex, type Hex } from '../domain/signing/signable-digest.js';
import { messageViolation } from '../domain/standard-sign-policy.js';
import { signatureHex, StandardSigningUseCase, type WalletCommand } from './standard-signing.js';

/** `message`: text (signed as its UTF-8 bytes) or `{ raw: "0x…" }` (bytes as they are). */
export type SignMessageCommand = WalletCommand<{ message: unknown }>;

/** Signs an EIP-191 personal message with a vault wallet, when the vault's policy allows messages (`--messages`). */
export class SignMessage extends StandardSigningUseCase {
  async execute(command: SignMessageCommand): Promise<{ signature: Hex }> {
    const { principal } = command;
    const digest = this.signing.payloads.messageDigest(command.message);
    const wallet = await this.signing.wallet(principal, command.address);
    const digestHex = toHex(digest);
    await this.signing.enforce(principal, wallet, 'message', messageViolation, { digest: digestHex });
    const signature = signatureHex(await this.signing.sign(wallet, digest));
    await this.signing.record(principal, wallet, 'sign.message', { digest: digestHex });
    return { signature };
  }
}
