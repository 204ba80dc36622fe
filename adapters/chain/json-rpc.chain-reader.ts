import { JsonRpcProvider, Network } from 'ethers';
import { parseAddress } from '../../src/domain/address.js';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { ReadThroughCache } from '../../src/application/signing/read-through-cache.js';
import type { ChainReader, PriceFeedAnswer, PriceFeedPort, ReadOptions, SignableValues } from '../../src/ports/chain-reader.port.js';
import type { ChainRpc, RelayedAnswer } from '../../src/ports/chain-rpc.port.js';
import { postJson, PostTimeout } from './json-post.js';
import { CHAIN_IDS } from '../../src/domain/chains.js';
import { rpcHostOf, rpcUrlList, type RpcUrls } from './rpc-urls.js';

/** Configuration of the JSON-RPC chain reader. */
export interface JsonRpcChainReaderConfig {
  /**
   * RPC URL, or URLs, per chain (`VAULT_RPC_URL_<CHAIN>`); chains without one take uniq/signer from the
   * request. With several, every one is asked and all must agree.
   */
  readonly rpcUrls: Readonly<Record<string, RpcUrls>>;
  /** Chains the operator added (VAULT_CHAINS), beside the interface's: the id each RPC must report. */
  readonly addedChainIds?: Readonly<Record<string, bigint>>;
  /** How long a contract's uniq/signer are reused (default 15 s; a rotated signer takes effect within it). */
  readonly cacheTtlMs?: number;
  /** Contracts remembered at most (default 10 000). */
  readonly cacheSize?: number;
  /** Timeout of one RPC call (default 5 s). */
  readonly timeoutMs?: number;
  /** The instant the cache's TTL is measured on (default the system clock; tests move their own). */
  readonly now?: () => Date;
}

// Selectors of uniq() and signer(): constant, so no ABI coder on this path.
const UNIQ_CALL = '0xae9320a4';
const SIGNER_CALL = '0x238ac933';
// AggregatorV3Interface's latestRoundData() and decimals().
const LATEST_ROUND_CALL = '0xfeaf968c';
const DECIMALS_CALL = '0x313ce567';
const INT256_SIGN = 1n << 255n;

const unavailable = (chain: string, problem: string, cause?: unknown) =>
  new DomainError(ErrorCode.CHAIN_UNAVAILABLE, `chain ${chain}: ${problem}`, { cause });

/** One RPC of one chain. */
interface Endpoint {
  readonly chain: string;
  readonly url: string;
  /**
   * How messages name it: `RPC` when it is the chain's only one, `RPC #<position in the list> <host>`
   * among several; never the path or user part, which may hold an API key.
   */
  readonly label: string;
  provider?: JsonRpcProvider;
  verified?: Promise<void>;
}

type Answer = { readonly values: SignableValues } | { readonly failed: unknown };

export class JsonRpcChainReader implements ChainReader, ChainRpc, PriceFeedPort {
  private readonly endpoints = new Map<string, readonly Endpoint[]>();
  /** What each contract answered: one read per contract however many signs miss it at once. */
  private readonly cache: ReadThroughCache<string, SignableValues>;
  private readonly now: () => Date;
  private readonly timeoutMs: number;

  private readonly chainIds: ReadonlyMap<string, bigint>;

  constructor(private readonly config: JsonRpcChainReaderConfig) {
    this.chainIds = new Map([...Object.entries(CHAIN_IDS), ...Object.entries(config.addedChainIds ?? {})]);
    this.cache = new ReadThroughCache({ ttlMs: config.cacheTtlMs ?? 15_000, maxEntries: config.cacheSize ?? 10_000 });
    this.now = config.now ?? (() => new Date(Date.now()));
    this.timeoutMs = config.timeoutMs ?? 5_000;
  }

  hasRpc(chain: string): boolean {
    return this.chainIds.has(chain) && Object.hasOwn(this.config.rpcUrls, chain);
  }

  async readSignable(chain: string, contract: string, options: ReadOptions = {}): Promise<SignableValues> {
    if (!this.hasRpc(chain)) throw unavailable(chain, 'no RPC configured');
    // A fresh read joins no read already under way either: that one may have started before a change.
    return this.cache.read(`${chain}:${contract.toLowerCase()}`, this.now(), () => this.read(chain, contract), { fresh: options.fresh === true });
  }

  /**
   * A Chainlink AggregatorV3's latest round and decimals, read now (never cached: a price is only as good
   * as its read) from every RPC of the chain; they must all answer the same, as for uniq and signer.
   */
  async readPriceFeed(chain: string, feed: string): Promise<PriceFeedAnswer> {
    if (!this.hasRpc(chain)) throw unavailable(chain, 'no RPC configured');
    const endpoints = this.endpointsOf(chain);
    const answers = await Promise.all(endpoints.map((e) => this.readFeedOne(e, feed)));
    const said = answers.map((a) => `${a.answer}/${a.decimals}/${a.updatedAt}`);
    if (new Set(said).size > 1) throw unavailable(chain, `RPCs disagree on latestRoundData of ${feed}: ${said.map((v, i) => `${endpoints[i]!.label} answers ${v}`).join(', ')}`);
    return answers[0]!;
  }

  private async readFeedOne(e: Endpoint, feed: string): Promise<PriceFeedAnswer> {
    await this.verifyChainId(e);
    const notFeed = () => new DomainError(ErrorCode.INVALID_ARGUMENT, `${feed} on ${e.chain} does not answer latestRoundData()/decimals() (not an aggregator)`);
    const read = async (data: string): Promise<string> => {
      let result: unknown;
      try {
        result = await this.call(e, 'eth_call', [{ to: feed, data }, 'latest']);
      } catch (error) {
        if (error instanceof DomainError) throw error;
        if (isRevert(error)) throw notFeed();
        throw unavailable(e.chain, `eth_call failed (${shortReason(error)})`, error);
      }
      if (typeof result !== 'string' || !/^0x[0-9a-fA-F]*$/.test(result)) throw notFeed();
      return result.slice(2);
    };
    const [round, decimalsWord] = await Promise.all([read(LATEST_ROUND_CALL), read(DECIMALS_CALL)]);
    if (round.length !== 5 * 64 || decimalsWord.length !== 64) throw notFeed();
    const word = (i: number) => BigInt(`0x${round.slice(i * 64, (i + 1) * 64)}`);
    const rawAnswer = word(1);
    const decimals = BigInt(`0x${decimalsWord}`);
    if (decimals > 77n) throw notFeed();
    return { answer: rawAnswer >= INT256_SIGN ? rawAnswer - (1n << 256n) : rawAnswer, decimals: Number(decimals), updatedAt: word(3) };
  }

  chainsWithRpc(): readonly string[] {
    return Object.keys(this.config.rpcUrls).filter((chain) => this.hasRpc(chain));
  }

  chainIdOf(chain: string): bigint {
    if (!this.hasRpc(chain)) throw unavailable(chain, 'no RPC configured');
    return this.chainIds.get(chain)!;
  }

  /**
   * Passes one call on to the chain's first RPC as it is, over node:http (not ethers' provider, which
   * would reshape the node's error): the vault's JSON-RPC endpoint answers with what the node said. The
   * body is read at most to `maxBytes` (postJson), never buffered whole first.
   */
  async relay(chain: string, method: string, params: readonly unknown[], maxBytes: number): Promise<RelayedAnswer> {
    if (!this.hasRpc(chain)) throw unavailable(chain, 'no RPC configured');
    const e = this.endpointsOf(chain)[0]!;
    await this.verifyChainId(e);
    const tooLarge = () => new DomainError(ErrorCode.RPC_ANSWER_TOO_LARGE, `chain ${chain}: ${e.label}'s answer to ${method} is over ${maxBytes} bytes`);
    let body: Uint8Array | null;
    try {
      // Read at most maxBytes (a declared length over the cap refused unread), within the timeout.
      body = await postJson(e.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), this.timeoutMs, maxBytes);
    } catch (error) {
      if (error instanceof PostTimeout) throw unavailable(chain, `${e.label} did not answer ${method} within ${this.timeoutMs} ms`, error);
      throw unavailable(chain, `${e.label} did not answer ${method} (${shortReason(error)})`, error);
    }
    if (body === null) throw tooLarge();
    let answer: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    try {
      answer = JSON.parse(new TextDecoder().decode(body)) as typeof answer;
    } catch (error) {
      throw unavailable(chain, `${e.label} did not answer ${method} (${shortReason(error)})`, error);
    }
    const bytes = body.byteLength;
    if (answer.error && typeof answer.error === 'object') {
      const { code, message, data } = answer.error;
      return { error: { code: typeof code === 'number' ? code : -32000, message: String(message), ...(data === undefined ? {} : { data }) }, bytes };
    }
    return { result: answer.result ?? null, bytes };
  }

  async close(): Promise<void> {
    for (const endpoints of this.endpoints.values()) for (const e of endpoints) e.provider?.destroy();
  }

  private endpointsOf(chain: string): readonly Endpoint[] {
    let endpoints = this.endpoints.get(chain);
    if (!endpoints) {
      const urls = rpcUrlList(this.config.rpcUrls[chain]!);
      endpoints = urls.map((url, i) => ({ chain, url, label: urls.length === 1 ? 'RPC' : `RPC #${i + 1} ${rpcHostOf(url)}` }));
      this.endpoints.set(chain, endpoints);
    }
    return endpoints;
  }

  private provider(e: Endpoint): JsonRpcProvider {
    // staticNetwork: we check the chain id ourselves once and report a mismatch clearly.
    // cacheTimeout -1: never serve a stale eth_call result.
    e.provider ??= new JsonRpcProvider(e.url, Network.from(this.chainIds.get(e.chain)!), {
      staticNetwork: true,
      cacheTimeout: -1,
      batchMaxCount: 1,
    });
    return e.provider;
  }

  private verifyChainId(e: Endpoint): Promise<void> {
    if (!e.verified) {
      const v = this.call(e, 'eth_chainId', []).then((id) => {
        const expected = this.chainIds.get(e.chain)!;
        if (BigInt(id as string) !== expected) {
          throw unavailable(e.chain, `${e.label} reports chain id ${BigInt(id as string)}, expected ${expected}`);
        }
      });
      // A failed check is retried on the next request rather than remembered.
      v.catch(() => {
        if (e.verified === v) e.verified = undefined;
      });
      e.verified = v;
    }
    return e.verified;
  }

  /**
   * Every RPC of the chain is asked, and what is signed is what they all answer: one RPC that lies, or
   * fails, stops the sign rather than being outvoted (several URLs are there to catch a lie, not to
   * route around an outage).
   */
  private async read(chain: string, contract: string): Promise<SignableValues> {
    const endpoints = this.endpointsOf(chain);
    const answers: Answer[] = await Promise.all(
      endpoints.map((e) => this.readOne(e, contract).then((values) => ({ values }), (failed: unknown) => ({ failed }))),
    );
    return agreedValues(chain, contract, endpoints, answers);
  }

  private async readOne(e: Endpoint, contract: string): Promise<SignableValues> {
    await this.verifyChainId(e);
    const [uniqWord, signerWord] = await Promise.all([this.ethCall(e, contract, UNIQ_CALL), this.ethCall(e, contract, SIGNER_CALL)]);
    return { uniq: uniqWord, signer: parseAddress(`0x${signerWord.slice(26)}`, 'signer', { anyCase: true }) };
  }

  private async ethCall(e: Endpoint, contract: string, data: string): Promise<string> {
    let result: unknown;
    try {
      result = await this.call(e, 'eth_call', [{ to: contract, data }, 'latest']);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (isRevert(error)) throw notSignable(e.chain, contract);
      const by = e.label === 'RPC' ? '' : `${e.label}: `;
      throw unavailable(e.chain, `${by}eth_call failed (${shortReason(error)})`, error);
    }
    if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(result)) throw notSignable(e.chain, contract);
    return result.toLowerCase();
  }

  private async call(e: Endpoint, method: string, params: unknown[]): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(unavailable(e.chain, `${e.label} did not answer ${method} within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([this.provider(e).send(method, params), timeout]);
    } catch (error) {
      if (error instanceof DomainError || (method === 'eth_call' && isRevert(error))) throw error;
      throw unavailable(e.chain, `${e.label} request failed (${shortReason(error)})`, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The values every RPC answered, or the reason there are none. A failed RPC fails the read (502 naming
 * it). All saying the contract is not signable is that 400; some saying so while others answer is a
 * disagreement, as are answers that differ: 502 naming the value and what each RPC said (uniq and
 * signer are public, so the message may carry them).
 */
function agreedValues(chain: string, contract: string, endpoints: readonly Endpoint[], answers: readonly Answer[]): SignableValues {
  const notSignableThere = (a: Answer) => 'failed' in a && a.failed instanceof DomainError && a.failed.code === ErrorCode.INVALID_ARGUMENT;
  const broken = answers.find((a) => 'failed' in a && !notSignableThere(a));
  if (broken) throw (broken as { failed: unknown }).failed;
  if (answers.every(notSignableThere)) throw (answers[0] as { failed: unknown }).failed;
  const values = answers.map((a) => ('values' in a ? a.values : null));
  for (const [name, pick] of ANSWERED) {
    const said = values.map((v) => (v === null ? 'no signable contract' : pick(v)));
    if (new Set(said).size > 1) {
      throw unavailable(chain, `RPCs disagree on ${name} of ${contract}: ${said.map((v, i) => `${endpoints[i]!.label} answers ${v}`).join(', ')}`);
    }
  }
  return values[0]!;
}

const ANSWERED = [
  ['uniq()', (v: SignableValues) => v.uniq],
  ['signer()', (v: SignableValues) => v.signer],
] as const;

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
