import { DomainError, ErrorCode, invalidArgument, isDomainError } from '../domain/errors.js';
import type { ChainRpc, RpcAnswer } from '../ports/chain-rpc.port.js';
import type { Principal } from './principal.js';

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
}

/** What the JSON-RPC endpoint needs of the other use cases: listing wallets and the three standard signs. */
export interface JsonRpcSigners {
  listWallets: { execute(vaultId: string, offset?: number, count?: number): Promise<{ page: readonly { address: string }[] }> };
  signMessage: { execute(c: { principal: Principal; address: string; message: unknown }): Promise<{ signature: string }> };
  signTypedData: { execute(c: { principal: Principal; address: string; typedData: unknown }): Promise<{ signature: string }> };
  signTransaction: { execute(c: { principal: Principal; address: string; transaction: unknown }): Promise<{ serialized: string; hash: string }> };
}

/** JSON-RPC's codes for what the vault refuses (EIP-1474): bad params, an unsupported method, any other refusal. */
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const SERVER_ERROR = -32000;
/** Eth methods that sign with a node's own keys, or unlock them: never passed on, whatever the node offers. */
const NODE_SIGNING = /^(eth_sign|eth_signTypedData|eth_signTransaction|eth_sendTransaction|personal_|wallet_|eth_accounts$|eth_requestAccounts$|eth_coinbase$)/;
const LEGACY_FIELDS = ['gasPrice'];
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;

/**
 * A vault's wallets behind the Ethereum JSON-RPC interface, as Web3Signer's eth1 mode: the signing
 * methods are answered by the vault (each through its use case, so under the vault's policy, audited),
 * `eth_sendTransaction` fills nonce, gas and fees from the chain's RPC, signs and sends, and every other
 * method is passed on to the chain's RPC as it is. A refusal (policy, bad params, unknown wallet) is a
 * JSON-RPC error whose `data.code` is the vault's error code.
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

  async execute(command: JsonRpcCommand): Promise<RpcAnswer> {
    if (!this.chains.chainsWithRpc().includes(command.chain)) {
      throw invalidArgument(`chain: ${command.chain} has no RPC configured (chains with one: ${this.chains.chainsWithRpc().join(', ') || 'none'})`);
    }
    try {
      return { result: await this.answer(command) };
    } catch (error) {
      if (!isDomainError(error) || error.code === ErrorCode.CHAIN_UNAVAILABLE || error.code === ErrorCode.DATABASE_UNAVAILABLE || error.code === ErrorCode.KEYSTORE_UNAVAILABLE) {
        throw error; // the service's own failures stay HTTP errors (502, 503), as on every route
      }
      if (error instanceof RelayedError) return { error: error.rpcError };
      const code = error.code === ErrorCode.INVALID_ARGUMENT ? INVALID_PARAMS : error.code === ErrorCode.ROUTE_NOT_FOUND ? METHOD_NOT_FOUND : SERVER_ERROR;
      return { error: { code, message: error.message, data: { code: error.code } } };
    }
  }

  private async answer({ principal, chain, call }: JsonRpcCommand): Promise<unknown> {
    const { method, params } = call;
    const { signers } = this;
    switch (method) {
      case 'eth_accounts':
        return (await signers.listWallets.execute(principal.vaultId, 0, 1000)).page.map((w) => w.address);
      case 'eth_sign':
        return (await signers.signMessage.execute({ principal, address: param(params, 0, 'address'), message: { raw: hexData(params[1], 'params[1]') } })).signature;
      case 'personal_sign': {
        const data = params[0];
        // Wallets send the message hex-encoded; text that is not hex is signed as its UTF-8 bytes.
        const message = typeof data === 'string' && HEX.test(data) ? { raw: data } : data;
        return (await signers.signMessage.execute({ principal, address: param(params, 1, 'address'), message })).signature;
      }
      case 'eth_signTypedData_v4': {
        const raw = params[1];
        const typedData = typeof raw === 'string' ? parseJson(raw, 'params[1]') : raw;
        return (await signers.signTypedData.execute({ principal, address: param(params, 0, 'address'), typedData })).signature;
      }
      case 'eth_signTransaction':
        return (await this.signFilled(principal, chain, params)).serialized;
      case 'eth_sendTransaction': {
        const signed = await this.signFilled(principal, chain, params);
        const sent = await this.chains.relay(chain, 'eth_sendRawTransaction', [signed.serialized]);
        if ('error' in sent) throw new RelayedError(sent.error);
        return sent.result;
      }
      default: {
        if (NODE_SIGNING.test(method)) throw new DomainError(ErrorCode.ROUTE_NOT_FOUND, `method ${method} is not supported (the vault signs with eth_sign, personal_sign, eth_signTypedData_v4, eth_signTransaction and eth_sendTransaction)`);
        const answer = await this.chains.relay(chain, method, params);
        if ('error' in answer) throw new RelayedError(answer.error);
        return answer.result;
      }
    }
  }

  /** The transaction of params[0] with chainId, nonce, gas and fees the caller left out filled from the chain's RPC, signed. */
  private async signFilled(principal: Principal, chain: string, params: readonly unknown[]) {
    const tx = params[0];
    if (typeof tx !== 'object' || tx === null || Array.isArray(tx)) throw invalidArgument('params[0]: must be a transaction object');
    const given = { ...(tx as Record<string, unknown>) };
    const from = given.from;
    if (typeof from !== 'string') throw invalidArgument('params[0].from: is required (the signing wallet)');
    const rpc = async (method: string, args: unknown[]) => {
      const answer = await this.chains.relay(chain, method, args);
      if ('error' in answer) throw new RelayedError(answer.error);
      return answer.result;
    };
    const filled: Record<string, unknown> = { ...given };
    filled.chainId ??= await rpc('eth_chainId', []);
    filled.nonce ??= await rpc('eth_getTransactionCount', [from, 'pending']);
    const legacy = given.type === 'legacy' || given.type === '0x0' || LEGACY_FIELDS.some((f) => given[f] !== undefined);
    if (given.gas === undefined && given.gasLimit === undefined) {
      const { to, value, data, input } = given;
      filled.gas = await rpc('eth_estimateGas', [{ from, to, value, data: data ?? input }]);
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
        filled.type ??= 'eip1559';
        filled.maxPriorityFeePerGas ??= `0x${priority.toString(16)}`;
        // Twice the base fee and the tip: room for six full blocks of base-fee rises, as ethers and viem leave.
        filled.maxFeePerGas ??= `0x${(BigInt(block.baseFeePerGas) * 2n + priority).toString(16)}`;
      }
    }
    return this.signers.signTransaction.execute({ principal, address: from, transaction: filled });
  }
}

/** The node's own error for a call the vault passed on (or sent): answered as the node gave it. */
class RelayedError extends DomainError {
  constructor(readonly rpcError: { code: number; message: string; data?: unknown }) {
    super(ErrorCode.INVALID_ARGUMENT, rpcError.message);
  }
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
