import { DomainError, ErrorCode, isDomainError } from '../../domain/errors.js';
import type { SimulationDemand } from '../../domain/policy/policy-document.js';
import { decodeRevertReason, type RevertReason } from '../../domain/signing/revert-reason.js';
import { escapeControlCharacters } from '../../domain/unicode.js';
import type { ChainRpc } from '../../ports/chain-rpc.port.js';

/** How a simulation ended, as metrics count it: ran (ok), would revert (reverted), could not be run (failed). */
export type SimulationOutcome = 'ok' | 'reverted' | 'failed';

/** Told of each simulation's outcome (Prometheus in the standalone server). */
export interface SimulationObserver {
  observeSimulation(outcome: SimulationOutcome): void;
}

/** The call a transaction makes, as the simulation runs it from the wallet. */
export interface SimulatedCall {
  /** The chain by its id (a transaction's), or by name (`chain`: a Sign call's). */
  readonly chainId: bigint | null;
  readonly chain?: string;
  /** The signing wallet (EIP-55). */
  readonly from: string;
  /** null: a contract creation. */
  readonly to: string | null;
  readonly data: string;
  readonly value: bigint;
  /** The gas limit the transaction carries, when it has one: a call that needs more fails as the transaction would. */
  readonly gas?: bigint;
  /** A type-4 transaction's signed authorizations, as JSON-RPC writes them. */
  readonly authorizationList?: readonly unknown[];
}

/** What the simulation found: the chain it ran on and, when the rule asked for them, the wallet's net outflows. */
export interface SimulationReport {
  readonly chain: string;
  /** `eth_call`, or `eth_simulateV1` when balance changes were asked for. */
  readonly method: 'eth_call' | 'eth_simulateV1';
  /** Wei the wallet's native balance fell by (negative: it rose), the fee aside; eth_simulateV1 only. */
  readonly nativeOutflow?: bigint;
  /** ERC-20 contract (lower-case) → units the wallet's balance fell by (negative: rose); eth_simulateV1 only. */
  readonly tokenOutflow?: Readonly<Record<string, bigint>>;
}

/**
 * The most bytes of a simulation's answer: an eth_call's return data or one block of eth_simulateV1 with
 * its logs. What a simulation holds in memory is bounded as the relay's answers are (the RPC's own
 * timeout bounds its time); past it the simulation failed, and the request is refused (502).
 */
export const SIMULATION_MAX_BYTES = 512 * 1024;

/** The native token's pseudo-address in eth_simulateV1's traced transfers (ERC-7528). */
const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/**
 * Runs a transaction (or a Sign call, its signature in place) on its chain before it is signed: one
 * `eth_call` from the wallet at the pending block, or one `eth_simulateV1` with traced transfers when
 * the deciding rule bounds the wallet's outflow. One round trip to the chain's first RPC, within the
 * RPC's timeout and SIMULATION_MAX_BYTES. A call that reverts is SIMULATION_REVERTED (422) with its
 * decoded reason; an RPC that cannot answer is CHAIN_UNAVAILABLE (502, naming it): nothing is signed
 * unless the simulation ran. A chain without an RPC is not simulated (null).
 */
export class TransactionSimulator {
  /** Chains whose RPC said it has no eth_simulateV1 (asked once, for a held transaction's outflows). */
  private readonly withoutSimulateV1 = new Set<string>();

  constructor(
    private readonly rpc: ChainRpc,
    private readonly observer?: SimulationObserver,
  ) {}

  /** The name of the chain with an RPC the call names (by name, else by id), or null when it has none. */
  chainOf(call: Pick<SimulatedCall, 'chain' | 'chainId'>): string | null {
    const chains = this.rpc.chainsWithRpc();
    if (call.chain !== undefined) return chains.includes(call.chain) ? call.chain : null;
    return chains.find((chain) => this.rpc.chainIdOf(chain) === call.chainId) ?? null;
  }

  /**
   * Simulates `call` unless the rule that allowed (or held) it says `simulate: false` or its chain has no
   * RPC (null then; a rule bounding the outflow on a chain without one is refused, as it cannot be
   * checked). `what` names it in messages (`transaction`, `call`); `knownErrors` name custom errors.
   */
  async simulate(
    call: SimulatedCall,
    demand: SimulationDemand | undefined,
    what: string,
    knownErrors: readonly string[] = [],
    options: { readonly reportOutflows?: boolean } = {},
  ): Promise<SimulationReport | null> {
    if (demand?.simulate === false) return null;
    const bounds = demand?.maxOutflow !== undefined || demand?.maxTokenOutflow !== undefined;
    const chain = this.chainOf(call);
    if (chain === null) {
      if (bounds) throw new DomainError(ErrorCode.CHAIN_UNAVAILABLE, `chain ${call.chain ?? call.chainId}: no RPC configured, and the rule's maxOutflow or maxTokenOutflow needs one to simulate the ${what}`);
      return null;
    }
    try {
      const report = bounds
        ? await this.simulateV1(chain, call, what, knownErrors)
        : options.reportOutflows && !this.withoutSimulateV1.has(chain)
          ? await this.reported(chain, call, what, knownErrors)
          : await this.ethCall(chain, call, what, knownErrors);
      this.observer?.observeSimulation('ok');
      return report;
    } catch (error) {
      this.observer?.observeSimulation(isDomainError(error) && error.code === ErrorCode.SIMULATION_REVERTED ? 'reverted' : 'failed');
      throw error;
    }
  }

  /**
   * The outflows for the approvers of a held transaction, where the node can say them: eth_simulateV1
   * (still one round trip); a node without it is asked eth_call instead, now and from then on (remembered
   * per chain), as nothing bounds the outflow here.
   */
  private async reported(chain: string, call: SimulatedCall, what: string, knownErrors: readonly string[]): Promise<SimulationReport> {
    try {
      return await this.simulateV1(chain, call, what, knownErrors);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      if (error.code === ErrorCode.CHAIN_UNAVAILABLE && error.message.includes('does not offer eth_simulateV1')) {
        this.withoutSimulateV1.add(chain);
        return this.ethCall(chain, call, what, knownErrors);
      }
      // A revert is confirmed by eth_call, the simulation every node has: a node whose eth_simulateV1
      // refuses something of its own never makes a transaction that runs look like one that reverts.
      if (error.code === ErrorCode.SIMULATION_REVERTED) return this.ethCall(chain, call, what, knownErrors);
      throw error;
    }
  }

  private async ethCall(chain: string, call: SimulatedCall, what: string, knownErrors: readonly string[]): Promise<SimulationReport> {
    const answer = await this.ask(chain, 'eth_call', [callObject(call), 'pending']);
    if ('error' in answer) {
      if (cannotRun(answer.error)) throw new DomainError(ErrorCode.CHAIN_UNAVAILABLE, `chain ${chain}: RPC could not run the simulation (eth_call: ${escapeControlCharacters(answer.error.message).slice(0, 200)}); nothing was signed`);
      throw reverted(chain, call, what, 'eth_call', revertOf(answer.error, knownErrors));
    }
    return { chain, method: 'eth_call' };
  }

  private async simulateV1(chain: string, call: SimulatedCall, what: string, knownErrors: readonly string[]): Promise<SimulationReport> {
    const answer = await this.ask(chain, 'eth_simulateV1', [{ blockStateCalls: [{ calls: [callObject(call)] }], traceTransfers: true, validation: false }, 'pending']);
    if ('error' in answer) {
      if (answer.error.code === -32601 || /not (?:found|supported|available)|unsupported|does not exist/i.test(answer.error.message)) {
        throw new DomainError(
          ErrorCode.CHAIN_UNAVAILABLE,
          `chain ${chain}: its RPC does not offer eth_simulateV1, which the rule's maxOutflow or maxTokenOutflow needs to read the wallet's balance changes; nothing was signed`,
        );
      }
      throw reverted(chain, call, what, 'eth_simulateV1', revertOf(answer.error, knownErrors));
    }
    const result = (Array.isArray(answer.result) ? answer.result[0] : null) as { calls?: unknown[] } | null;
    const first = (Array.isArray(result?.calls) ? result.calls[0] : null) as { status?: unknown; returnData?: unknown; error?: { message?: unknown; data?: unknown }; logs?: unknown } | null;
    if (first === null || typeof first !== 'object') throw new DomainError(ErrorCode.CHAIN_UNAVAILABLE, `chain ${chain}: RPC answered eth_simulateV1 without the call's result`);
    if (first.status !== '0x1') {
      const data = typeof first.returnData === 'string' ? first.returnData : typeof first.error?.data === 'string' ? first.error.data : '0x';
      throw reverted(chain, call, what, 'eth_simulateV1', decodeRevertReason(data, knownErrors));
    }
    const { native, tokens } = outflowsOf(call.from, first.logs);
    return { chain, method: 'eth_simulateV1', nativeOutflow: native, tokenOutflow: tokens };
  }

  /** One call within SIMULATION_MAX_BYTES; an answer over it is the RPC's failure to answer (502). */
  private async ask(chain: string, method: string, params: readonly unknown[]) {
    try {
      return await this.rpc.relay(chain, method, params, SIMULATION_MAX_BYTES);
    } catch (error) {
      if (isDomainError(error) && error.code === ErrorCode.RPC_ANSWER_TOO_LARGE) {
        throw new DomainError(ErrorCode.CHAIN_UNAVAILABLE, `chain ${chain}: RPC's answer to the simulation (${method}) is over ${SIMULATION_MAX_BYTES} bytes; nothing was signed`, { cause: error });
      }
      throw error;
    }
  }
}

/**
 * The rule's bounds over a simulation's outflows: the first one passed, in words, or null. A report
 * without outflows (eth_call) passes no bound, so a bound is only ever checked on eth_simulateV1's.
 */
export function outflowOverBound(report: SimulationReport, demand: SimulationDemand | undefined): string | null {
  if (demand?.maxOutflow !== undefined && (report.nativeOutflow ?? 0n) > BigInt(demand.maxOutflow)) {
    return `the simulation moves ${report.nativeOutflow} wei out of the wallet, over the rule's maxOutflow ${demand.maxOutflow}`;
  }
  for (const [token, most] of Object.entries(demand?.maxTokenOutflow ?? {})) {
    const out = report.tokenOutflow?.[token.toLowerCase()] ?? 0n;
    if (out > BigInt(most)) return `the simulation moves ${out} units of token ${token} out of the wallet, over the rule's maxTokenOutflow ${most}`;
  }
  return null;
}

/** The call as eth_call and eth_simulateV1 take it: from the wallet, gas as the transaction's, fees left out. */
function callObject(call: SimulatedCall): Record<string, unknown> {
  const out: Record<string, unknown> = { from: call.from, data: call.data, value: `0x${call.value.toString(16)}` };
  if (call.to !== null) out.to = call.to;
  if (call.gas !== undefined) out.gas = `0x${call.gas.toString(16)}`;
  if (call.authorizationList !== undefined && call.authorizationList.length > 0) out.authorizationList = call.authorizationList;
  return out;
}

/**
 * A node's error that says it could not run the call at all (no such method, bad params, a rate limit,
 * its own failure), as opposed to the call failing when run (a revert, insufficient funds): the first is
 * the RPC failing to answer (502), the second the transaction's own refusal (422).
 */
function cannotRun(error: { code: number }): boolean {
  return error.code === -32601 || error.code === -32602 || error.code === -32603 || error.code === -32005 || error.code === 429;
}

/** The revert in a node's error answer: its data (a string, or nested as some nodes give it), else the node's message. */
function revertOf(error: { code: number; message: string; data?: unknown }, knownErrors: readonly string[]): RevertReason {
  const data = typeof error.data === 'string' ? error.data : typeof (error.data as { data?: unknown } | undefined)?.data === 'string' ? (error.data as { data: string }).data : null;
  if (data !== null && /^0x(?:[0-9a-fA-F]{2})*$/.test(data) && data.length > 2) return decodeRevertReason(data, knownErrors);
  // No revert data: the node refused the call itself (insufficient funds, a gas limit too low, a nonce).
  const message = escapeControlCharacters(String(error.message)).slice(0, 200);
  return { kind: 'empty', reason: data === null || !/revert/i.test(message) ? `the node refused it: ${message}` : 'reverted without a reason', selector: null, data: '0x' };
}

function reverted(chain: string, call: SimulatedCall, what: string, method: string, revert: RevertReason): DomainError {
  return new DomainError(ErrorCode.SIMULATION_REVERTED, `simulation: the ${what} reverts on ${chain} (${method} from ${call.from} at the pending block): ${revert.reason}; nothing was signed`);
}

/** The wallet's net outflow per token from eth_simulateV1's Transfer logs (ERC-20, and traced native transfers). */
function outflowsOf(wallet: string, logs: unknown): { native: bigint; tokens: Record<string, bigint> } {
  const me = wallet.toLowerCase();
  const tokens: Record<string, bigint> = {};
  let native = 0n;
  for (const log of Array.isArray(logs) ? logs : []) {
    const { address, topics, data } = (log ?? {}) as { address?: unknown; topics?: unknown; data?: unknown };
    // Three topics: ERC-20's Transfer(from, to, value) (ERC-721's has a fourth, the token id, and no amount).
    if (typeof address !== 'string' || !Array.isArray(topics) || topics.length !== 3 || topics[0] !== TRANSFER_TOPIC || typeof data !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(data)) continue;
    const from = `0x${String(topics[1]).slice(-40)}`.toLowerCase();
    const to = `0x${String(topics[2]).slice(-40)}`.toLowerCase();
    const amount = BigInt(data);
    const delta = (from === me ? amount : 0n) - (to === me ? amount : 0n);
    if (delta === 0n) continue;
    const token = address.toLowerCase();
    if (token === NATIVE) native += delta;
    else tokens[token] = (tokens[token] ?? 0n) + delta;
  }
  return { native, tokens };
}
