import type { Approval } from '../../domain/approval.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import { toHex, type Hex } from '../../domain/signing/signable-digest.js';
import type { PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import type { StandardKindName } from '../../domain/signing/kinds/registered-signing-kinds.js';
import type { StandardSigningKind } from '../../domain/signing/signing-kind.js';
import type { ChainDirectory, SignIntent } from '../../domain/policy/sign-intent.js';
import { escapeControlCharacters } from '../../domain/unicode.js';
import type { Wallet } from '../../domain/wallet.js';
import type { ApprovalStore } from '../../ports/approval-store.port.js';
import type { AuditAction, AuditDetails, AuditEvent, AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { FreezeFence } from '../../ports/freeze-fence.js';
import type { RecoverableSignature } from '../../ports/key-store.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { StandardPayloads } from '../../ports/standard-payloads.port.js';
import type { WalletRepository } from '../../ports/wallet-repository.port.js';
import { actorOf, audit, auditEvent } from '../audit/audit-actor.js';
import { HeldRequests, type ApprovalRequested, type HoldSpec } from '../approvals/held-requests.js';
import type { Principal } from '../access/principal.js';
import type { SignPolicyGate } from './sign-policy-gate.js';
import type { WalletBindings } from '../wallets/wallet-binding.js';
import { SignerCache } from '../wallets/wallet-lookup.js';
import type { ReleaseQuorum } from '../approvals/held-quorum.js';
import { outflowOverBound, type SimulatedCall, type SimulationReport, type TransactionSimulator } from './transaction-simulation.js';

/**
 * A decision as authorize() answers it: for a held transaction, what its simulation found (stored with the
 * approval for its approvers), and the fence the signature's record is written under.
 */
export type HeldDecision = PolicyDecision & { readonly simulated?: SimulationReport; readonly fence: FreezeFence | null };

/** A simulation report as the approval keeps it: JSON, outflows as decimal strings. */
function simulationJson(report: SimulationReport): string {
  const decimal = (v: bigint) => v.toString();
  return JSON.stringify({
    chain: report.chain,
    method: report.method,
    ...(report.nativeOutflow === undefined ? {} : { nativeOutflow: decimal(report.nativeOutflow) }),
    ...(report.tokenOutflow === undefined ? {} : { tokenOutflow: Object.fromEntries(Object.entries(report.tokenOutflow).map(([t, v]) => [t, decimal(v)])) }),
  });
}

/** What the three standard-signing use cases are built from. */
export interface StandardSigningDeps {
  readonly repository: WalletRepository;
  /** The wallets' keys, reached only through their bindings' check. */
  readonly bindings: WalletBindings;
  readonly payloads: StandardPayloads;
  /** The one policy decision Sign passes too. */
  readonly gate: SignPolicyGate;
  /** Chain names of chain ids, for rules that name a chain by name. */
  readonly chains: ChainDirectory;
  readonly auditLog: AuditLog;
  readonly clock: Clock;
  /** Holds the requests a hold rule matches for a quorum (as Sign's); without it, such a request is refused. */
  readonly approvals?: ApprovalStore;
  /** Ids of new approvals. */
  readonly ids?: IdGenerator;
  /** Runs transactions on their chain before they are signed (chains with an RPC); without it, nothing is simulated. */
  readonly simulator?: TransactionSimulator;
}

/** What a standard request answers: its result, or the approval that holds it (`'approval' in outcome`), as Sign. */
export type StandardOutcome<T> = T | ApprovalRequested;

/**
 * A held standard request: `body` is what the approval stores (canonical JSON of JSON values only:
 * `{kind, address, message|typedData|transaction}`), the rest fills the approval's columns.
 */
export interface HeldRequest {
  readonly body: Readonly<Record<string, unknown>>;
  /** The chain's name, else its id; '' when the request names none (a message). */
  readonly chain: string;
  /** A transaction's `to`, typed data's `verifyingContract`; '' without one. */
  readonly contract: string;
  /** A transaction's selector; '' without one. */
  readonly selector: string;
  /** `message`, `typed-data Permit`, `transaction`: what lists show in place of a call's function. */
  readonly description: string;
}

/**
 * How authorize() treats a hold: `sign` returns it (the caller holds), `precheck` decides only, a release
 * (`{ release: quorum }`) counts it as allowed once `quorum` meets what it asks.
 */
export type AuthorizeMode = 'sign' | 'precheck' | { readonly release: Pick<ReleaseQuorum, 'require' | 'requireEscalation'> };

/** Which standard payload a record is about: `sign.denied`'s `payload` detail (Sign's refusals have none). */
export type PayloadKind = StandardKindName;

/**
 * The steps SignMessage, SignTypedData and SignTransaction share: the wallet of the principal's vault,
 * the policy check (a refusal recorded before the 403), the key store's signature over a digest, and
 * the audit record written durably before the signature is returned.
 */
export class StandardSigning {
  private readonly signers: SignerCache;

  private readonly held: HeldRequests;

  constructor(private readonly deps: StandardSigningDeps) {
    this.signers = new SignerCache(deps.repository);
    this.held = new HeldRequests(deps, 'request');
  }

  get payloads(): StandardPayloads {
    return this.deps.payloads;
  }

  /** The wallet at `address` in the principal's vault; an expired or foreign one is WALLET_NOT_FOUND. */
  wallet(principal: Principal, address: unknown): Promise<Wallet> {
    if (typeof address !== 'string') throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'address: must be the wallet address (0x + 40 hex)');
    return this.signers.require(principal.vaultId, address, this.deps.clock.now());
  }

  get chains(): ChainDirectory {
    return this.deps.chains;
  }

  /** The decision alone (the dry run): nothing recorded, nothing counted. */
  async evaluate(principal: Principal, intent: SignIntent): Promise<PolicyDecision> {
    return (await this.deps.gate.evaluate(principal.vaultId, intent)).decision;
  }

  /**
   * The one policy's decision over `intent`, then its limits: a deny (or a limit reached) is recorded as
   * `sign.denied` with `facts`, then thrown. A hold is returned uncounted for the caller to hold (`sign`)
   * or to go on to the fill (`precheck`: decides only, counts nothing); at the release of an approved
   * request (`{ release: quorum }`) a hold counts as allowed when the release's approvers meet its quorum
   * and group (QuorumShort otherwise, before anything is counted), and the limits count it.
   */
  async authorize(principal: Principal, wallet: Wallet, payload: PayloadKind, intent: SignIntent, facts: AuditDetails, mode: AuthorizeMode = 'sign', simulated?: SimulatedCall): Promise<HeldDecision> {
    const record = this.denial(wallet, payload, facts);
    const { gate } = this.deps;
    const { decision: decided, document, fence } = await gate.decide(principal, intent, record);
    const decision: HeldDecision = { ...decided, fence };
    // Decided and counted first (a refusal costs no call to the chain), then simulated: before the key
    // store signs, and before a held request is stored (nobody is asked to approve what would revert).
    if (decision.decision === 'hold' && mode === 'sign') {
      if (simulated === undefined) return decision;
      // What it found is shown to the approvers with the approval (hold()).
      const report = await this.simulate(principal, wallet, payload, simulated, decision, facts, undefined, { reportOutflows: true });
      return report === null ? decision : { ...decision, simulated: report };
    }
    if (mode === 'precheck') return decision;
    if (typeof mode === 'object') mode.release.require(decision);
    const escalated = await gate.count(principal, document, intent, record, typeof mode === 'object' ? mode.release : undefined);
    if (escalated !== null) {
      // A limit's onExceed holds it: as a hold rule's hold, simulated first so the approvers see what it does.
      const held: HeldDecision = { ...escalated, fence };
      if (simulated === undefined) return held;
      const report = await this.simulate(principal, wallet, payload, simulated, decision, facts, undefined, { reportOutflows: true });
      return report === null ? held : { ...held, simulated: report };
    }
    if (simulated !== undefined) await this.simulate(principal, wallet, payload, simulated, decision, facts);
    return decision;
  }

  /**
   * Runs `call` on its chain (TransactionSimulator: one RPC round trip) as the deciding rule asks: a revert
   * is SIMULATION_REVERTED, an RPC that cannot answer CHAIN_UNAVAILABLE; an outflow over the rule's
   * maxOutflow or maxTokenOutflow is refused as the policy refuses (recorded, POLICY_DENIED).
   */
  async simulate(
    principal: Principal,
    wallet: Wallet,
    payload: PayloadKind,
    call: SimulatedCall,
    decision: PolicyDecision,
    facts: AuditDetails,
    knownErrors?: readonly string[],
    options: { readonly reportOutflows?: boolean } = {},
  ): Promise<SimulationReport | null> {
    const simulator = this.deps.simulator;
    if (simulator === undefined) return null;
    const report = await simulator.simulate(call, decision.simulation, payload === 'transaction' ? 'transaction' : 'call', knownErrors, options);
    const over = report === null ? null : outflowOverBound(report, decision.simulation);
    if (over !== null) await this.deps.gate.refuse(principal, `policy: rule ${decision.rule}: ${over}`, this.denial(wallet, payload, facts));
    return report;
  }

  private denial(wallet: Wallet, payload: PayloadKind, facts: AuditDetails) {
    return { subject: wallet.address, details: { ...facts, payload, wallet: wallet.address } };
  }

  /**
   * A repeat of a held request (same Idempotency-Key, per vault, as Sign's): its approval's state, or null
   * when the key is unknown (HeldRequests.repeated).
   */
  repeated<T>(principal: Principal, key: string | undefined, body: HeldRequest['body']): Promise<StandardOutcome<T> | null> {
    return this.held.repeated<T>(principal.vaultId, key, body);
  }

  /**
   * Stores the request whole as a pending approval (with approval.requested) and answers it: nothing is
   * signed until its quorum approves (VoteOnApproval, then release() of the use case).
   */
  hold<T>(principal: Principal, wallet: Wallet, payload: PayloadKind, decision: HeldDecision, held: HeldRequest, facts: AuditDetails, key?: string): Promise<StandardOutcome<T>> {
    const spec: HoldSpec = {
      body: held.body,
      chain: held.chain,
      contract: held.contract,
      sender: wallet.address,
      selector: held.selector,
      description: held.description,
      details: { payload, wallet: wallet.address },
      simulation: decision.simulated ? simulationJson(decision.simulated) : null,
      wallet,
    };
    return this.held.hold<T>(principal, decision, spec, key, this.denial(wallet, payload, facts), this.deps.clock.now());
  }

  /** Who signs an approved request: the key that asked, as it asked (its roles were checked then). */
  releasePrincipal(approval: Approval): Principal {
    return this.held.releasePrincipal(approval);
  }

  /**
   * Writes a released signature's record (`action`, with the approval's id), approval.decided and the
   * approval's result in one transaction, only while `token` still holds the release: a signature is
   * never handed out unrecorded, nor recorded twice. CONFLICT (nothing written) when the claim was lost.
   */
  released(approval: Approval, token: string, actor: string, wallet: Wallet, action: AuditAction, details: AuditDetails, result: object, fence: FreezeFence | null): Promise<void> {
    const now = this.deps.clock.now();
    const signed: AuditEvent = {
      at: now,
      vaultId: approval.vaultId,
      action,
      actor: actorOf(this.releasePrincipal(approval)),
      subject: wallet.address,
      details: { ...details, approval: approval.id, wallet: wallet.address },
    };
    return this.held.released(approval, token, actor, now, { signature: null, signed, result, fence }, 'no signature is handed out');
  }

  /** The wallet's key store signs the 32-byte digest as it is, once the wallet's binding holds (WalletBindings.sign). */
  sign(wallet: Wallet, digest: Uint8Array): Promise<RecoverableSignature> {
    return this.deps.bindings.sign(wallet, digest);
  }

  /**
   * The signature's record, durable before the caller answers: a signature is never handed out unrecorded,
   * nor once its vault was frozen since the check that let it through (`fence`, authorize()'s).
   */
  record(principal: Principal, wallet: Wallet, action: AuditAction, details: AuditDetails, fence: FreezeFence | null): Promise<void> {
    const event = auditEvent(action, this.deps.clock.now(), actorOf(principal), principal.vaultId, wallet.address, { ...details, wallet: wallet.address });
    return this.deps.auditLog.append(event, fence);
  }
}

/**
 * A command of the standard-signing use cases: who asks, the wallet (its address in any case), and what to
 * sign; `idempotencyKey` binds a request a hold rule holds to this key (per vault), as Sign's: a repeat
 * answers the approval's state instead of asking again. A request no rule holds is signed anew each time.
 */
export type WalletCommand<T> = { readonly principal: Principal; readonly address: string; readonly idempotencyKey?: string } & Readonly<T>;

/**
 * A request as an approval stores it: JSON values only (bigints as decimal strings, bytes as 0x hex, as
 * the payload readers take them; undefined fields left out), so that the stored text reads back the same.
 */
export function asJsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return toHex(value);
  if (Array.isArray(value)) return value.map(asJsonValue);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = asJsonValue(v);
    return out;
  }
  return value;
}

/** What `kind` reads back of the body it holds (its codec's decode): what its release will sign. */
export const heldPayload = (kind: StandardSigningKind, request: HeldRequest): unknown => kind.held.decode(request.body, kind.held.version).payload;

/** Stored and given must sign the same digest: a request that does not survive JSON as it is is not held. */
export function sameDigest(stored: Uint8Array, given: Uint8Array, what: string): void {
  if (toHex(stored) !== toHex(given)) throw new DomainError(ErrorCode.INVALID_ARGUMENT, `${what}: cannot be held for approval as given (its JSON form signs another digest); send it as JSON values`);
}

/** The base of SignMessage, SignTypedData and SignTransaction: the shared steps over the same dependencies. */
export abstract class StandardSigningUseCase {
  protected readonly signing: StandardSigning;

  constructor(deps: StandardSigningDeps) {
    this.signing = new StandardSigning(deps);
  }
}

/** 65 bytes r ‖ s ‖ v (v 27 or 28), as eth_sign, personal_sign and eth_signTypedData_v4 answer. */
export function signatureHex(signature: RecoverableSignature): Hex {
  return `${toHex(signature.r)}${toHex(signature.s).slice(2)}${signature.v.toString(16)}` as Hex;
}

const MAX_RECORDED_TEXT = 200;

/** Caller-chosen text (a typed-data domain name) as an audit detail: control characters escaped, cut to 200 characters. */
export function recordedText(text: string | null): string | null {
  if (text === null) return null;
  const escaped = escapeControlCharacters(text);
  return escaped.length > MAX_RECORDED_TEXT ? `${escaped.slice(0, MAX_RECORDED_TEXT - 3)}...` : escaped;
}
