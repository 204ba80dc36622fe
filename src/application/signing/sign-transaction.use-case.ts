import { heldOfKind, type Approval } from '../../domain/approval.js';
import { invalidArgument } from '../../domain/errors.js';
import type { PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import { NO_FACTS, type SignIntent } from '../../domain/policy/sign-intent.js';
import type { Wallet } from '../../domain/wallet.js';
import { readTransactionIntent } from '../../domain/signing/kinds/transaction/transaction.input.js';
import { TRANSACTION_KIND } from '../../domain/signing/kinds/transaction/transaction.kind.js';
import type { SignedTransaction, TransactionFacts, TransactionIntent, UnsignedTransaction } from '../../ports/standard-payloads.port.js';
import type { Principal } from '../access/principal.js';
import type { SimulatedCall } from './transaction-simulation.js';
import { asJsonValue, heldPayload, sameDigest, StandardSigningUseCase, type HeldRequest, type StandardOutcome, type WalletCommand } from './standard-signing.js';
import type { ReleaseQuorum } from '../approvals/held-quorum.js';

/** `transaction`: legacy, eip2930 or eip1559 as viem serialises it; `chainId`, `nonce`, `gas` and its fees required. */
export type SignTransactionCommand = WalletCommand<{ transaction: unknown }>;

/**
 * Signs a transaction with a vault wallet, when the vault's policy allows its chain id, recipient (or
 * contract creation), function selector, value and fee. Returns it serialised for eth_sendRawTransaction.
 */
export class SignTransaction extends StandardSigningUseCase {
  /** Signs, or holds the transaction for a quorum when a hold rule matches it (`{ approval }`, nothing signed). */
  async execute(command: SignTransactionCommand): Promise<StandardOutcome<SignedTransaction>> {
    const { principal } = command;
    const unsigned = this.signing.payloads.unsignedTransaction(TRANSACTION_KIND.read(command.transaction));
    const wallet = await this.walletOf(principal, command.address, unsigned.facts);
    const key = command.idempotencyKey;
    const held = key === undefined ? null : this.heldOf(wallet, command.transaction, unsigned.facts);
    const known = held === null ? null : await this.signing.repeated<SignedTransaction>(principal, key, held.body);
    if (known !== null) return known;
    const details = detailsOf(unsigned.facts);
    const decision = await this.signing.authorize(principal, wallet, 'transaction', this.intentOf(wallet, unsigned.facts, unsigned.facts.fee), details, 'sign', simulatedCall(wallet, unsigned.facts));
    if (decision.decision === 'hold') {
      const request = held ?? this.heldOf(wallet, command.transaction, unsigned.facts);
      sameDigest(this.signing.payloads.unsignedTransaction(TRANSACTION_KIND.read(heldPayload(TRANSACTION_KIND, request))).digest, unsigned.digest, 'transaction');
      return this.signing.hold(principal, wallet, 'transaction', decision, request, details, key);
    }
    const signed = await this.signAndRecord(principal, wallet, unsigned);
    await this.signing.record(principal, wallet, 'sign.transaction', signed.record, decision.fence);
    return signed.result;
  }

  /**
   * Signs an approved transaction (its quorum reached, the release claimed with `token`), exactly as it was
   * held (nonce, gas and fees included): the policy is read again (a deny refuses; a hold counts as
   * allowed once `quorum` meets it) and the limits count it; the signature's record, the approval's result and approval.decided
   * are written in one transaction before it is returned. It is not sent: the holder sends `serialized`.
   */
  async release(approval: Approval, token: string, actor: string, quorum: ReleaseQuorum): Promise<SignedTransaction> {
    const stored = heldOfKind(TRANSACTION_KIND, approval);
    const principal = this.signing.releasePrincipal(approval);
    const unsigned = this.signing.payloads.unsignedTransaction(TRANSACTION_KIND.read(stored.payload));
    const wallet = await this.walletOf(principal, stored.address, unsigned.facts);
    // Simulated again: the chain may have changed while the request waited for its quorum.
    const { fence } = await this.signing.authorize(principal, wallet, 'transaction', this.intentOf(wallet, unsigned.facts, unsigned.facts.fee), detailsOf(unsigned.facts), { release: quorum }, simulatedCall(wallet, unsigned.facts));
    const signed = await this.signAndRecord(principal, wallet, unsigned);
    await this.signing.released(approval, token, actor, wallet, 'sign.transaction', signed.record, signed.result, fence);
    return signed.result;
  }

  private async walletOf(principal: Principal, address: string, facts: TransactionFacts): Promise<Wallet> {
    const wallet = await this.signing.wallet(principal, address);
    if (facts.from !== null && facts.from !== wallet.address) {
      throw invalidArgument(`from: ${facts.from} is not the signing wallet ${wallet.address}`);
    }
    return wallet;
  }

  /** The key store's signature, serialised, and the details of its `sign.transaction` record. */
  private async signAndRecord(_principal: Principal, wallet: Wallet, unsigned: UnsignedTransaction) {
    const result = this.signing.payloads.serializeSigned(unsigned, await this.signing.sign(wallet, unsigned.digest));
    const { chainId, fee, nonce, selector, to, type, value } = detailsOf(unsigned.facts);
    // Sorted keys: the canonical JSON the audit chain hashes is then the object as it is.
    return { result, record: { chainId, fee, hash: result.hash, nonce, selector, to, type, value } };
  }

  /** The request as an approval stores it, and its columns: chain (name, else id), `to`, selector, `transaction`. */
  private heldOf(wallet: Wallet, transaction: unknown, facts: TransactionFacts): HeldRequest {
    const chainId = facts.chainId.toString();
    return {
      body: TRANSACTION_KIND.held.encode({ address: wallet.address, payload: asJsonValue(transaction) }),
      chain: this.signing.chains.nameOf(chainId) ?? chainId,
      contract: facts.to ?? '',
      selector: facts.selector ?? '',
      description: TRANSACTION_KIND.describeHeld(facts.to),
    };
  }

  /**
   * The policy over what the caller gave before nonce, gas and fees are filled (the JSON-RPC endpoint's
   * eth_sendTransaction and eth_signTransaction, `transaction.chainId` the endpoint chain's): a refusal
   * costs no call to the chain, and is recorded as execute records it. Only a first gate: execute checks
   * the policy again over the filled transaction. One method, so the evaluator it asks is one line to change.
   */
  async precheckTransaction(command: SignTransactionCommand): Promise<void> {
    const intent = readTransactionIntent(command.transaction);
    const wallet = await this.signing.wallet(command.principal, command.address);
    // As execute's details; nonce and type are not known before the filling.
    const details = { chainId: intent.chainId.toString(), nonce: null, selector: intent.selector, to: intent.to, type: null, value: intent.value.toString() };
    // The fee is not filled yet: 0 here, judged by execute once it is; nothing is counted until then.
    // A hold is decided again over the filled transaction by execute, which holds it then.
    await this.signing.authorize(command.principal, wallet, 'transaction', this.intentOf(wallet, intent, 0n), details, 'precheck');
  }

  /** What the policy would decide (the dry run): the transaction is read whole as execute reads it, nothing is signed. */
  async evaluate(command: SignTransactionCommand): Promise<PolicyDecision> {
    const { facts } = this.signing.payloads.unsignedTransaction(TRANSACTION_KIND.read(command.transaction));
    const wallet = await this.signing.wallet(command.principal, command.address);
    return this.signing.evaluate(command.principal, this.intentOf(wallet, facts, facts.fee));
  }

  /** The transaction as the one policy reads it. */
  private intentOf(wallet: Wallet, tx: TransactionIntent, fee: bigint): SignIntent {
    const chainId = tx.chainId.toString();
    const { payloads } = this.signing;
    // A creation's data is init code, not a call: its first four bytes are no selector, and it has no arguments.
    const create = tx.to === null;
    return {
      ...NO_FACTS,
      kind: 'transaction',
      wallet: wallet.address,
      chain: this.signing.chains.nameOf(chainId),
      chainId,
      contract: tx.to,
      selector: create ? null : tx.selector,
      decodeCalldata: create ? null : (fn) => payloads.decodeArguments(fn, tx.data),
      value: tx.value,
      fee,
      create,
      shortData: tx.shortData,
    };
  }
}

/** The transaction as the simulation runs it: from the wallet, with its gas limit. */
const simulatedCall = (wallet: Wallet, facts: TransactionFacts): SimulatedCall => ({
  chainId: facts.chainId,
  from: wallet.address,
  to: facts.to,
  data: facts.data,
  value: facts.value,
  gas: facts.gas,
  // A type-4 transaction runs with its delegations in place, as it would on chain.
  authorizationList: facts.authorizationList.map((a) => ({
    chainId: quantityHex(a.chainId),
    address: a.address,
    nonce: quantityHex(a.nonce),
    yParity: quantityHex(BigInt(a.yParity)),
    r: a.r,
    s: a.s,
  })),
});

const quantityHex = (n: bigint) => `0x${n.toString(16)}`;

/** Sorted keys: the canonical JSON the audit chain hashes is then the object as it is. */
const detailsOf = (facts: TransactionFacts) => ({
  chainId: facts.chainId.toString(),
  fee: facts.fee.toString(),
  nonce: facts.nonce,
  selector: facts.selector,
  to: facts.to,
  type: facts.type,
  value: facts.value.toString(),
});
