import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { PolicyDocument } from '../../domain/policy/policy-document.js';
import { DEFAULT_APPROVAL_EXPIRY_MS } from '../../domain/approval-rules.js';
import { evaluatePolicy, type PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import { limitDemands } from '../../domain/policy/policy-limits.js';
import type { SignIntent } from '../../domain/policy/sign-intent.js';
import type { SignCountDemand } from '../../domain/sign-limits.js';
import type { AuditDetails, AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { SignCounter } from '../../ports/sign-counter.port.js';
import { actorOf, audit } from '../audit/audit-actor.js';
import { SignCountWitness } from './sign-count-witness.js';
import type { SigningPolicy } from './policy-cache.js';
import type { Principal } from '../access/principal.js';
import { UsdPrices, type PriceFeedReader } from './usd-prices.js';

/** The approvers of a release, as a limit's `onExceed` asks them (ReleaseQuorum). */
export interface LimitRelease {
  /** Throws QuorumShort unless the approvers meet the limit's hold. */
  requireEscalation(escalate: NonNullable<SignCountDemand['escalate']>): void;
}

/** What limitDemands counts an amount it cannot read or price as: never let past a limit, by approvers neither. */
const UNREADABLE_AMOUNT = 1n << 256n;
/** More than any count or amount: a demand its approvers let past its limit. */
const LIFTED_SIGNS = 2 ** 31 - 1;
const LIFTED_VALUE = 1n << 320n;

const lifted = (d: SignCountDemand): SignCountDemand => (d.value === undefined ? { ...d, max: LIFTED_SIGNS } : { ...d, value: { ...d.value, max: LIFTED_VALUE } });

/** The hold a limit's onExceed asks, as a hold rule's decision reads (its rule `limit:<id>`: no rule id has a colon). */
function escalation(escalate: NonNullable<SignCountDemand['escalate']>, message: string): PolicyDecision {
  const hold = { required: escalate.required, expiresInMs: DEFAULT_APPROVAL_EXPIRY_MS, ...(escalate.group === undefined ? {} : { group: escalate.group }) };
  return { decision: 'hold', rule: `limit:${escalate.limit}`, message: `policy: ${message}`, contractBound: false, hold };
}

export interface SignPolicyGateDeps {
  /** The vault's document and fence (usually the PolicyCache: this is read on every signature). */
  readonly policies: { forSigning(vaultId: string): Promise<SigningPolicy> };
  readonly auditLog: AuditLog;
  readonly clock: Clock;
  /** Reads the on-chain price feeds of limits in dollars; without it, such a limit refuses (fails closed). */
  readonly priceFeeds?: PriceFeedReader;
  /** Counts signatures for the document's limits; without it, a request a limit applies to is refused. */
  readonly signCounter?: SignCounter;
  /** What this instance counted, held against the counter's rows (a new one per gate when not given). */
  readonly witness?: SignCountWitness;
  /**
   * A refusal every sign gets before any policy is asked (the key stores' refusesEverySign: a sealed
   * vault), or null: thrown first, so it is neither a `sign.denied` nor a count under a limit.
   */
  readonly refusesEverySign?: () => Error | null;
}

/** How a refused request is put on record: the audit subject and the facts beside the rule. */
export interface DenialRecord {
  readonly subject: string | null;
  readonly details: AuditDetails;
}

/**
 * A decision, the document it was made with (the limits are counted by the same one) and the fence the
 * signature's record is to be written under (SigningPolicy).
 */
export interface GateDecision extends SigningPolicy {
  readonly decision: PolicyDecision;
}

/**
 * The one place every route's signature asks the vault's policy: Sign, sign-message, sign-typed-data,
 * sign-transaction, the JSON-RPC endpoint and the in-process API each normalise their request into a
 * SignIntent and pass here. A refusal is recorded (`sign.denied`) before it is thrown; the limits are
 * counted last, once nothing else stands in the way.
 */
export class SignPolicyGate {
  private readonly witness: SignCountWitness;
  /** The keys whose missing rows this instance has put on record (once each: every refusal is `sign.denied` too). */
  private readonly reportedMissing = new Set<string>();

  private readonly usd: UsdPrices<DenialRecord>;

  constructor(private readonly deps: SignPolicyGateDeps) {
    this.witness = deps.witness ?? new SignCountWitness();
    this.usd = new UsdPrices({ clock: deps.clock, ...(deps.priceFeeds === undefined ? {} : { feeds: deps.priceFeeds }), refuse: (principal, code, message, record) => this.refuseWith(principal, code, message, record) });
  }

  /** The decision without any effect: for the dry run (nothing recorded, nothing counted). */
  async evaluate(vaultId: string, intent: SignIntent): Promise<GateDecision> {
    const policy = await this.deps.policies.forSigning(vaultId);
    return { ...policy, decision: evaluatePolicy(policy.document, intent) };
  }

  /** The vault's document (cached) and fence, for a caller that decides more than once with the same one. */
  policy(vaultId: string): Promise<SigningPolicy> {
    return this.deps.policies.forSigning(vaultId);
  }

  /** Decides; a deny is recorded as `sign.denied` and thrown as POLICY_DENIED. Allow and hold are the caller's to act on. */
  async decide(principal: Principal, intent: SignIntent, record: DenialRecord): Promise<GateDecision> {
    const policy = await this.policy(principal.vaultId);
    return { ...policy, decision: await this.decideWith(principal, policy.document, intent, record) };
  }

  /** decide() with a document already read. */
  async decideWith(principal: Principal, document: PolicyDocument | null, intent: SignIntent, record: DenialRecord): Promise<PolicyDecision> {
    this.refuseIfNoSign();
    const decision = evaluatePolicy(document, intent);
    if (decision.decision === 'deny') await this.refuse(principal, decision.message, record);
    return decision;
  }

  private refuseIfNoSign(): void {
    const refusal = this.deps.refusesEverySign?.();
    if (refusal) throw refusal;
  }

  /** Records the refusal, then throws it: a refused attempt is what an operator most wants on record. */
  async refuse(principal: Principal, message: string, record: DenialRecord): Promise<never> {
    return this.refuseWith(principal, ErrorCode.POLICY_DENIED, message, record);
  }

  /** refuse() with another code (a price feed that is stale or cannot be read). */
  private async refuseWith(principal: Principal, code: ErrorCode, message: string, record: DenialRecord): Promise<never> {
    await audit(this.deps.auditLog, 'sign.denied', this.deps.clock.now(), actorOf(principal), principal.vaultId, record.subject, { ...record.details, rule: message });
    throw new DomainError(code, message);
  }

  /**
   * Counts the signature under each limit of `document` that applies to it, or refuses it (429 with
   * Retry-After, recorded as sign.denied) when one is full. Counted before the key store signs: a sign
   * that fails after this still counts, as an attempt the limit was there to bound. A document without
   * limits costs nothing here.
   *
   * A full limit with `onExceed` does not refuse: without `release`, nothing is counted and the hold it
   * asks is returned (the caller holds the request for those approvers, as a hold rule's); at the release
   * of an approved request (`release`: its approvers), the limit is passed once they meet its hold (QuorumShort
   * otherwise) and the spend is counted in the window all the same, past its maximum: what approvers let
   * through still fills the day's limit for what comes after it.
   */
  async count(principal: Principal, document: PolicyDocument | null, intent: SignIntent, record: DenialRecord, release?: LimitRelease): Promise<PolicyDecision | null> {
    // Again here: a seal closed between the decision and the count must not cost the limit a sign.
    this.refuseIfNoSign();
    if (document === null || document.limits.length === 0) return null;
    const prices = await this.usd.pricesFor(principal, document, intent, record);
    let demands = limitDemands(document, intent, principal.vaultId, prices);
    if (demands.length === 0) return null;
    const counter = this.deps.signCounter;
    if (counter === undefined) {
      // Nothing to count with (a persistence of an earlier release): refusing is the only way to hold the limit.
      await this.refuse(principal, "policy: this vault's sign limits need a persistence that counts signs, and this one does not", record);
    }
    const now = this.deps.clock.now();
    for (;;) {
      const asked = this.witness.witness(demands, now);
      const decision = await counter!.take(asked, now);
      if (decision.allowed) {
        this.witness.counted(demands, now);
        return null;
      }
      if (decision.missing === true) await this.refuseMissing(principal, asked.find((d) => d.key === decision.refusedBy), now, record);
      const refusing = demands.find((d) => d.key === decision.refusedBy);
      const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      const label = refusing?.label ?? 'a sign limit of this vault';
      const message = `${label} reached; retry after ${retryAfterSeconds} s`;
      const escalate = refusing?.escalate;
      if (escalate !== undefined && refusing!.value?.amount !== UNREADABLE_AMOUNT) {
        if (release === undefined) return escalation(escalate, `${label} reached: held for ${escalate.required} approval(s)${escalate.group === undefined ? '' : ` of group ${escalate.group}`} (onExceed)`);
        release.requireEscalation(escalate);
        // Its approvers let it past this limit: asked again with the limit's maximum lifted, counted in the window.
        demands = demands.map((d) => (d.key === refusing!.key ? lifted(d) : d));
        continue;
      }
      await audit(this.deps.auditLog, 'sign.denied', now, actorOf(principal), principal.vaultId, record.subject, { ...record.details, rule: message });
      throw new DomainError(ErrorCode.SIGN_LIMIT_REACHED, message, { retryAfterSeconds });
    }
  }

  /**
   * The counter holds fewer signs under a limit than this instance counted there: its rows were deleted
   * or rewritten in the database, and counting on from them would let the limit be passed. Refused (and
   * recorded, `records.missing` once per key and instance) until what this instance counted has left the
   * window.
   */
  private async refuseMissing(principal: Principal, demand: SignCountDemand | undefined, now: Date, record: DenialRecord): Promise<never> {
    const label = demand?.label ?? 'a sign limit of this vault';
    const table = demand?.value === undefined ? 'sign_counts' : 'sign_value_counts';
    const message =
      `${label}: the database holds fewer signs in its window than this instance counted (rows of ${table} were deleted or changed in the database); ` +
      'nothing was signed, and the limit refuses until those signs have left its window (docs/security.md)';
    if (demand !== undefined && !this.reportedMissing.has(demand.key)) {
      if (this.reportedMissing.size >= 10_000) this.reportedMissing.clear();
      this.reportedMissing.add(demand.key);
      await audit(this.deps.auditLog, 'records.missing', now, actorOf(principal), principal.vaultId, record.subject, { table, limit: label, witnessedSigns: String(demand.witnessed?.signs ?? 0) });
    }
    await audit(this.deps.auditLog, 'sign.denied', now, actorOf(principal), principal.vaultId, record.subject, { ...record.details, rule: message });
    throw new DomainError(ErrorCode.SIGN_LIMIT_RECORDS_MISSING, message);
  }
}
