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

  /**
   * The policy over what the caller gave before nonce, gas and fees are filled (the JSON-RPC endpoint's
   * eth_sendTransaction and eth_signTransaction, `transaction.chainId` the endpoint chain's): a refusal
   * costs no call to the chain, and is recorded as execute records it. Only a first gate: execute checks
   * the policy again over the filled transaction. One method, so the evaluator it asks is one line to change.
   */
  async precheckTransaction(command: SignTransactionCommand): Promise<void> {
    const intent = this.signing.payloads.transactionIntent(command.transaction);
    const wallet = await this.signing.wallet(command.principal, command.address);
    // As execute's details; nonce and type are not known before the filling.
    const details = { chainId: intent.chainId.toString(), nonce: null, selector: intent.selector, to: intent.to, type: null, value: intent.value.toString() };
    // The fee is not filled yet: 0 here, judged by execute once it is.
    await this.signing.enforce(command.principal, wallet, 'transaction', (policy) => transactionViolation(policy, { ...intent, fee: 0n }), details);
  }
}
