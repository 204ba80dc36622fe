import { JsonRpcProvider, Network } from 'ethers';
import { parseAddress } from '../../src/domain/address.js';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import type { ChainReader, SignableValues } from '../../src/ports/chain-reader.port.js';
import { CHAIN_IDS } from './chains.js';

/** Configuration of the JSON-RPC chain reader. */
export interface JsonRpcChainReaderConfig {
  /** RPC URL per chain (`VAULT_RPC_URL_<CHAIN>`); chains without one take uniq/signer from the request. */
  readonly rpcUrls: Readonly<Record<string, string>>;
  /** Chains the operator added (VAULT_CHAINS), beside the interface's: the id each RPC must report. */
  readonly addedChainIds?: Readonly<Record<string, bigint>>;
  /** How long a contract's uniq/signer are reused (default 15 s; a rotated signer takes effect within it). */
  readonly cacheTtlMs?: number;
  /** Contracts remembered at most (default 10 000). */
  readonly cacheSize?: number;
  /** Timeout of one RPC call (default 5 s). */
  readonly timeoutMs?: number;
}

// Selectors of uniq() and signer(): constant, so no ABI coder on this path.
const UNIQ_CALL = '0xae9320a4';
const SIGNER_CALL = '0x238ac933';

const unavailable = (chain: string, problem: string, cause?: unknown) =>
  new DomainError(ErrorCode.CHAIN_UNAVAILABLE, `chain ${chain}: ${problem}`, { cause });

export class JsonRpcChainReader implements ChainReader {
  private readonly providers = new Map<string, JsonRpcProvider>();
  private readonly verified = new Map<string, Promise<void>>();
  private readonly cache = new Map<string, { values: SignableValues; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<SignableValues>>();
  private readonly ttlMs: number;
  private readonly cacheSize: number;
  private readonly timeoutMs: number;

  private readonly chainIds: ReadonlyMap<string, bigint>;

  constructor(private readonly config: JsonRpcChainReaderConfig) {
    this.chainIds = new Map([...Object.entries(CHAIN_IDS), ...Object.entries(config.addedChainIds ?? {})]);
    this.ttlMs = config.cacheTtlMs ?? 15_000;
    this.cacheSize = config.cacheSize ?? 10_000;
    this.timeoutMs = config.timeoutMs ?? 5_000;
  }

  hasRpc(chain: string): boolean {
    return this.chainIds.has(chain) && Object.hasOwn(this.config.rpcUrls, chain);
  }

  async readSignable(chain: string, contract: string): Promise<SignableValues> {
    if (!this.hasRpc(chain)) throw unavailable(chain, 'no RPC configured');
    const key = `${chain}:${contract.toLowerCase()}`;
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit.values;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.read(chain, contract).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    const values = await pending;
    this.cache.delete(key);
    if (this.cache.size >= this.cacheSize) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, { values, expiresAt: Date.now() + this.ttlMs });
    return values;
  }

  async close(): Promise<void> {
    for (const p of this.providers.values()) p.destroy();
  }

  private provider(chain: string): JsonRpcProvider {
    let p = this.providers.get(chain);
    if (!p) {
      // staticNetwork: we check the chain id ourselves once and report a mismatch clearly.
      // cacheTimeout -1: never serve a stale eth_call result.
      p = new JsonRpcProvider(this.config.rpcUrls[chain], Network.from(this.chainIds.get(chain)!), {
        staticNetwork: true,
        cacheTimeout: -1,
        batchMaxCount: 1,
      });
      this.providers.set(chain, p);
    }
    return p;
  }

  private verifyChainId(chain: string): Promise<void> {
    let v = this.verified.get(chain);
    if (!v) {
      v = this.call(chain, 'eth_chainId', []).then((id) => {
        const expected = this.chainIds.get(chain)!;
        if (BigInt(id as string) !== expected) {
          throw unavailable(chain, `RPC reports chain id ${BigInt(id as string)}, expected ${expected}`);
        }
      });
      // A failed check is retried on the next request rather than remembered.
      v.catch(() => this.verified.delete(chain));
      this.verified.set(chain, v);
    }
    return v;
  }

  private async read(chain: string, contract: string): Promise<SignableValues> {
    await this.verifyChainId(chain);
    const [uniqWord, signerWord] = await Promise.all([
      this.ethCall(chain, contract, UNIQ_CALL),
      this.ethCall(chain, contract, SIGNER_CALL),
    ]);
    return { uniq: uniqWord, signer: parseAddress(`0x${signerWord.slice(26)}`, 'signer', { anyCase: true }) };
  }

  private async ethCall(chain: string, contract: string, data: string): Promise<string> {
    let result: unknown;
    try {
      result = await this.call(chain, 'eth_call', [{ to: contract, data }, 'latest']);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (isRevert(error)) throw notSignable(chain, contract);
      throw unavailable(chain, `eth_call failed (${shortReason(error)})`, error);
    }
    if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(result)) throw notSignable(chain, contract);
    return result.toLowerCase();
  }

  private async call(chain: string, method: string, params: unknown[]): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(unavailable(chain, `RPC did not answer ${method} within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([this.provider(chain).send(method, params), timeout]);
    } catch (error) {
      if (error instanceof DomainError || (method === 'eth_call' && isRevert(error))) throw error;
      throw unavailable(chain, `RPC request failed (${shortReason(error)})`, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

// Both calls run at once and either may fail first, so the message names both.
const notSignable = (chain: string, contract: string) =>
  new DomainError(ErrorCode.INVALID_ARGUMENT, `contract: ${contract} on ${chain} does not answer uniq()/signer() (not a signable contract)`);

function isRevert(error: unknown): boolean {
  const e = error as { code?: unknown; error?: { code?: unknown } } | null;
  return e?.code === 'CALL_EXCEPTION' || e?.error?.code === 3 || /revert/i.test(String((error as Error)?.message));
}

function shortReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message.split('\n')[0]!.slice(0, 120) : 'unknown error';
}
