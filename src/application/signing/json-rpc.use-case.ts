import type { Approval } from '../../domain/approval.js';
import { DomainError, ErrorCode, invalidArgument, isDomainError } from '../../domain/errors.js';
import type { ChainRpc, RelayedAnswer, RpcAnswer } from '../../ports/chain-rpc.port.js';
import type { Principal } from '../access/principal.js';

/** One JSON-RPC 2.0 call, as the endpoint has read it. */
export interface JsonRpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

export interface JsonRpcCommand {
  readonly principal: Principal;
  /** The chain whose RPC fills, sends and answers the rest (docs/standard-signing.md#json-rpc). */
  readonly chain: string;
  readonly call: JsonRpcCall;
  /** The bytes the relayed answers of the request (a call or a batch) may still take: one answerBudget() per request; absent, a fresh one. */
  readonly budget?: AnswerBudget;
}

/** What the relayed answers of one request may still take, in bytes (RELAY_BATCH_MAX_BYTES at its start). */
export interface AnswerBudget {
  remaining: number;
}

/** A transaction the caller gave, as the pre-check reads it. */
type TransactionCommand = { principal: Principal; address: string; transaction: unknown };

/** A standard sign's answer: its result, or the approval that holds it (a hold rule matched). */
type Outcome<T> = T | { readonly approval: Approval };

/** What the JSON-RPC endpoint needs of the other use cases: listing wallets and the three standard signs. */
export interface JsonRpcSigners {
  listWallets: { execute(vaultId: string, offset?: number, count?: number): Promise<{ page: readonly { address: string }[] }> };
  signMessage: { execute(c: { principal: Principal; address: string; message: unknown }): Promise<Outcome<{ signature: string }>> };
  signTypedData: { execute(c: { principal: Principal; address: string; typedData: unknown }): Promise<Outcome<{ signature: string }>> };
  signTransaction: {
    execute(c: TransactionCommand): Promise<Outcome<{ serialized: string; hash: string }>>;
    /**
     * The policy over the caller's transaction (from, to, value, data, and chainId the endpoint chain's)
     * before nonce, gas and fees are filled: a refusal then costs no call to the chain. Throws as execute does.
     */
    precheckTransaction?(c: TransactionCommand): Promise<void>;
  };
}

/** `data.code` of a JSON-RPC error answering a request a hold rule holds (not one of the HTTP error codes: nothing failed). */
export const APPROVAL_PENDING = 'APPROVAL_PENDING';

/** JSON-RPC's codes for what the vault refuses (EIP-1474): bad params, an unsupported method, any other refusal. */
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const SERVER_ERROR = -32000;
/**
 * The only methods passed on to the chain's RPC: reads, and eth_sendRawTransaction (a transaction signed
 * already; the node checks its signature, no key of the vault's is used). An allow-list, because a node
 * offers methods that act with its own authority, and new ones with each upgrade: anvil_impersonateAccount
 * then eth_sendUnsignedTransaction moved ETH with no policy and no audit record; admin_, debug_, miner_,
 * txpool_, account_ and personal_ methods reconfigure the node, read its internals or use its keys. Any
 * method neither here nor answered by the vault is -32601 and never reaches the node.
 */
export const RELAYED_METHODS: ReadonlySet<string> = new Set([
  'eth_call',
  'eth_getBalance',
  'eth_blockNumber',
  'eth_chainId',
  'eth_getTransactionCount',
  'eth_estimateGas',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getLogs',
  'net_version',
  'web3_clientVersion',
  'eth_syncing',
  'eth_sendRawTransaction',
]);
/**
 * The most bytes of one relayed answer (eth_getLogs included), and of all relayed answers of one request
 * (a batch): read from the node's response while it arrives and refused past the cap, so what one request
 * holds in memory is bounded (a batch of ten wide eth_getLogs once took the process from 99 MiB to 2.3 GiB).
 */
export const RELAY_CALL_MAX_BYTES = 1024 * 1024;
export const RELAY_BATCH_MAX_BYTES = 4 * 1024 * 1024;
const LEGACY_FIELDS = ['gasPrice'];
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;

/**
 * A vault's wallets behind the Ethereum JSON-RPC interface, as Web3Signer's eth1 mode: the signing
 * methods are answered by the vault (each through its use case, so under the vault's policy, audited),
 * `eth_sendTransaction` fills nonce, gas and fees from the chain's RPC, signs and sends, and the methods
 * of RELAYED_METHODS are passed on to the chain's RPC as they are, their answers capped in bytes. A
 * refusal (policy, bad params, unknown wallet, another method, an answer over a cap) is a JSON-RPC error
 * whose `data.code` is the vault's error code.
 */
export class JsonRpcSigner {
  constructor(
    private readonly signers: JsonRpcSigners,
    private readonly chains: ChainRpc,
  ) {}

  /** The chain a request without one means: the only chain with an RPC, else none. */
  defaultChain(): string | undefined {
    const chains = this.chains.chainsWithRpc();
    return chains.length === 1 ? chains[0] : undefined;
  }

  /** A fresh budget for one request's relayed answers: the route takes one per batch. */
  answerBudget(): AnswerBudget {
    return { remaining: RELAY_BATCH_MAX_BYTES };
  }

  async execute(command: JsonRpcCommand): Promise<RpcAnswer> {
    if (!this.chains.chainsWithRpc().includes(command.chain)) {
      throw invalidArgument(`chain: ${command.chain} has no RPC configured (chains with one: ${this.chains.chainsWithRpc().join(', ') || 'none'})`);
    }
    try {
      return { result: await this.answer(command) };
    } catch (error) {
      if (error instanceof HeldForApproval) return { error: error.rpcError() };
      if (!isDomainError(error) || error.code === ErrorCode.CHAIN_UNAVAILABLE || error.code === ErrorCode.DATABASE_UNAVAILABLE || error.code === ErrorCode.KEYSTORE_UNAVAILABLE) {
        throw error; // the service's own failures stay HTTP errors (502, 503), as on every route
      }
      if (error instanceof RelayedError) return { error: error.rpcError };
      const code = error.code === ErrorCode.INVALID_ARGUMENT ? INVALID_PARAMS : error.code === ErrorCode.ROUTE_NOT_FOUND ? METHOD_NOT_FOUND : SERVER_ERROR;
      return { error: { code, message: error.message, data: { code: error.code } } };
    }
  }

  private async answer({ principal, chain, call, budget = this.answerBudget() }: JsonRpcCommand): Promise<unknown> {
    const { method, params } = call;
    const { signers } = this;
    switch (method) {
      case 'eth_accounts':
        return (await signers.listWallets.execute(principal.vaultId, 0, 1000)).page.map((w) => w.address);
      case 'eth_sign':
        return settled(await signers.signMessage.execute({ principal, address: param(params, 0, 'address'), message: { raw: hexData(params[1], 'params[1]') } })).signature;
      case 'personal_sign': {
        const data = params[0];
        // Wallets send the message hex-encoded; text that is not hex is signed as its UTF-8 bytes.
        const message = typeof data === 'string' && HEX.test(data) ? { raw: data } : data;
        return settled(await signers.signMessage.execute({ principal, address: param(params, 1, 'address'), message })).signature;
      }
      case 'eth_signTypedData_v4': {
        const raw = params[1];
        const typedData = typeof raw === 'string' ? parseJson(raw, 'params[1]') : raw;
        return settled(await signers.signTypedData.execute({ principal, address: param(params, 0, 'address'), typedData })).signature;
      }
      case 'eth_signTransaction':
        return (await this.signFilled(principal, chain, params)).serialized;
      case 'eth_sendTransaction': {
        const signed = await this.signFilled(principal, chain, params);
        return this.relayed(chain, 'eth_sendRawTransaction', [signed.serialized], budget);
      }
      default: {
        if (!RELAYED_METHODS.has(method)) {
          throw new DomainError(
            ErrorCode.ROUTE_NOT_FOUND,
            `method ${method} is not supported: the vault answers eth_accounts, eth_sign, personal_sign, eth_signTypedData_v4, eth_signTransaction and eth_sendTransaction, and passes on only chain reads and eth_sendRawTransaction`,
          );
        }
        return this.relayed(chain, method, params, budget);
      }
    }
  }

  /**
   * One call to the chain's RPC, its answer read to RELAY_CALL_MAX_BYTES or what the budget has left,
   * whichever is less; its result, or the node's error as a RelayedError. Without a budget (the filling's
   * reads, never answered to the caller) only the per-call cap applies.
   */
  private async relayed(chain: string, method: string, params: readonly unknown[], budget?: AnswerBudget): Promise<unknown> {
    const batchBinds = budget !== undefined && budget.remaining < RELAY_CALL_MAX_BYTES;
    let answer: RelayedAnswer;
    try {
      answer = await this.chains.relay(chain, method, params, batchBinds ? budget.remaining : RELAY_CALL_MAX_BYTES);
    } catch (error) {
      if (!isDomainError(error) || error.code !== ErrorCode.RPC_ANSWER_TOO_LARGE) throw error;
      const message = batchBinds
        ? `${method}: the chain RPC's answers to this batch are over the relay's cap of ${RELAY_BATCH_MAX_BYTES} bytes per batch; send fewer or narrower calls at once`
        : `${method}: the chain RPC's answer is over the relay's cap of ${RELAY_CALL_MAX_BYTES} bytes per call; ask for less (eth_getLogs: a narrower block range)`;
      throw new DomainError(ErrorCode.RPC_ANSWER_TOO_LARGE, message, { cause: error });
    }
    if (budget !== undefined) budget.remaining -= answer.bytes;
    if ('error' in answer) throw new RelayedError(answer.error);
    return answer.result;
  }

  /**
   * The transaction of params[0] with nonce, gas and fees the caller left out filled from the chain's RPC,
   * signed. Its chainId is the endpoint chain's (from the configuration: a chainId of another chain is
   * refused), and the policy is checked over what the caller gave before any call to the chain.
   */
  private async signFilled(principal: Principal, chain: string, params: readonly unknown[]) {
    const tx = params[0];
    if (typeof tx !== 'object' || tx === null || Array.isArray(tx)) throw invalidArgument('params[0]: must be a transaction object');
    const given = { ...(tx as Record<string, unknown>) };
    const from = given.from;
    if (typeof from !== 'string') throw invalidArgument('params[0].from: is required (the signing wallet)');
    const chainId = this.chains.chainIdOf(chain);
    if (given.chainId !== undefined && given.chainId !== null && chainIdOf(given.chainId) !== chainId) {
      throw invalidArgument(`params[0].chainId: ${JSON.stringify(given.chainId)} is not the chain id of ${chain} (${chainId}); this endpoint signs for ${chain} only`);
    }
    const filled: Record<string, unknown> = { ...given, chainId: given.chainId ?? `0x${chainId.toString(16)}` };
    const { to, value } = given;
    const intent = { from, to, value, data: given.data ?? given.input, chainId: filled.chainId };
    await this.signers.signTransaction.precheckTransaction?.({ principal, address: from, transaction: intent });
    const rpc = (method: string, args: unknown[]) => this.relayed(chain, method, args);
    filled.nonce ??= await rpc('eth_getTransactionCount', [from, 'pending']);
    const legacy = given.type === 'legacy' || given.type === '0x0' || LEGACY_FIELDS.some((f) => given[f] !== undefined);
    if (given.gas === undefined && given.gasLimit === undefined) {
      // A type-4 transaction is estimated with its delegations in place (the node runs the delegate's code).
      const authorizations = given.authorizationList === undefined || given.authorizationList === null ? {} : { authorizationList: given.authorizationList };
      filled.gas = await rpc('eth_estimateGas', [{ from, to, value, data: intent.data, ...authorizations }]);
    }
    if (legacy) {
      filled.type ??= 'legacy';
      filled.gasPrice ??= await rpc('eth_gasPrice', []);
    } else if (given.maxFeePerGas === undefined || given.maxPriorityFeePerGas === undefined) {
      const block = (await rpc('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas?: string } | null;
      if (block?.baseFeePerGas === undefined) {
        // A chain without EIP-1559 fees: a legacy transaction at the node's gas price.
        filled.type = 'legacy';
        filled.gasPrice = await rpc('eth_gasPrice', []);
      } else {
        const priority = BigInt((given.maxPriorityFeePerGas as string | undefined) ?? ((await rpc('eth_maxPriorityFeePerGas', []).catch(() => '0x3b9aca00')) as string));
        filled.type ??= given.authorizationList === undefined || given.authorizationList === null ? 'eip1559' : 'eip7702';
        filled.maxPriorityFeePerGas ??= `0x${priority.toString(16)}`;
        // Twice the base fee and the tip: room for six full blocks of base-fee rises, as ethers and viem leave.
        filled.maxFeePerGas ??= `0x${(BigInt(block.baseFeePerGas) * 2n + priority).toString(16)}`;
      }
    }
    return settled(await this.signers.signTransaction.execute({ principal, address: from, transaction: filled }));
  }
}

/**
 * A request a hold rule holds has no result to answer: a JSON-RPC error (-32000) whose `data` names the
 * approval, `{code: "APPROVAL_PENDING", approval: {id, status, required, approvals, expires, rule}}`.
 * Once its quorum approves, `GET …/approvals/{id}` has the signature (`result`); an eth_sendTransaction
 * held is signed at the release but not sent: the caller sends `result.serialized` itself.
 */
class HeldForApproval extends Error {
  constructor(readonly approval: Approval) {
    super(`held for approval ${approval.id} (${approval.approvals} of ${approval.required} approvals, expires ${approval.expires.toISOString()}); nothing is signed yet`);
  }

  rpcError() {
    const a = this.approval;
    return {
      code: SERVER_ERROR,
      message: this.message,
      data: { code: APPROVAL_PENDING, approval: { id: a.id, status: a.status, required: a.required, approvals: a.approvals, expires: a.expires.toISOString(), rule: a.ruleId } },
    };
  }
}

/** The result, or HeldForApproval when a hold rule held the request. */
function settled<T extends object>(outcome: Outcome<T>): T {
  if ('approval' in outcome) throw new HeldForApproval(outcome.approval);
  return outcome;
}

/** The node's own error for a call the vault passed on (or sent): answered as the node gave it. */
class RelayedError extends DomainError {
  constructor(readonly rpcError: { code: number; message: string; data?: unknown }) {
    super(ErrorCode.INVALID_ARGUMENT, rpcError.message);
  }
}

/** A chain id as JSON-RPC clients write it (a hex or decimal string, a number), or null when it is none. */
function chainIdOf(value: unknown): bigint | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : null;
  if (typeof value === 'string' && /^(?:0x[0-9a-fA-F]{1,16}|[0-9]{1,20})$/.test(value)) return BigInt(value);
  return null;
}

function param(params: readonly unknown[], index: number, what: string): string {
  const value = params[index];
  if (typeof value !== 'string') throw invalidArgument(`params[${index}]: must be the ${what} (a string)`);
  return value;
}

function hexData(value: unknown, field: string): `0x${string}` {
  if (typeof value !== 'string' || !HEX.test(value)) throw invalidArgument(`${field}: must be 0x-prefixed hex bytes`);
  return value as `0x${string}`;
}

function parseJson(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidArgument(`${field}: must be typed data, as an object or its JSON text`);
  }
}
