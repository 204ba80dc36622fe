import { invalidArgument } from '../domain/errors.js';
import { transactionViolation } from '../domain/standard-sign-policy.js';
import type { SignedTransaction } from '../ports/standard-payloads.port.js';
import { StandardSigningUseCase, type WalletCommand } from './standard-signing.js';

/** `transaction`: legacy, eip2930 or eip1559 as viem serialises it; `chainId`, `nonce`, `gas` and its fees required. */
export type SignTransactionCommand = WalletCommand<{ transaction: unknown }>;

/**
 * Signs a transaction with a vault wallet, when the vault's policy allows its chain id, recipient (or
 * contract creation), function selector, value and fee. Returns it serialised for eth_sendRawTransaction.
 */
export class SignTransaction extends StandardSigningUseCase {
  async execute(command: SignTransactionCommand): Promise<SignedTransaction> {
    const { principal } = command;
    const unsigned = this.signing.payloads.unsignedTransaction(command.transaction);
    const { facts } = unsigned;
    const wallet = await this.signing.wallet(principal, command.address);
    if (facts.from !== null && facts.from !== wallet.address) {
      throw invalidArgument(`from: ${facts.from} is not the signing wallet ${wallet.address}`);
    }
    // Sorted keys: the canonical JSON the audit chain hashes is then the object as it is.
    const details = {
      chainId: facts.chainId.toString(),
      fee: facts.fee.toString(),
      nonce: facts.nonce,
      selector: facts.selector,
      to: facts.to,
      type: facts.type,
      value: facts.value.toString(),
    };
    await this.signing.enforce(principal, wallet, 'transaction', (policy) => transactionViolation(policy, facts), details);
    const signed = this.signing.payloads.serializeSigned(unsigned, await this.signing.sign(wallet, unsigned.digest));
    const { chainId, fee, hash, nonce, selector, to, type, value } = { ...details, hash: signed.hash };
    await this.signing.record(principal, wallet, 'sign.transaction', { chainId, fee, hash, nonce, selector, to, type, value });
    return signed;
  }
}
