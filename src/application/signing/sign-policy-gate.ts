import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { PolicyDocument } from '../../domain/policy/policy-document.js';
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

export interface SignPolicyGateDeps {
  /** The vault's document and fence (usually the PolicyCache: this is read on every signature). */
  readonly policies: { forSigning(vaultId: string): Promise<SigningPolicy> };
  readonly auditLog: AuditLog;
  readonly clock: Clock;
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

  constructor(private readonly deps: SignPolicyGateDeps) {
    this.witness = deps.witness ?? new SignCountWitness();
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
    await audit(this.deps.auditLog, 'sign.denied', this.deps.clock.now(), actorOf(principal), principal.vaultId, record.subject, { ...record.details, rule: message });
    throw new DomainError(ErrorCode.POLICY_DENIED, message);
  }

  /**
   * Counts the signature under each limit of `document` that applies to it, or refuses it (429 with
   * Retry-After, recorded as sign.denied) when one is full. Counted before the key store signs: a sign
   * that fails after this still counts, as an attempt the limit was there to bound. A document without
   * limits costs nothing here.
   */
  async count(principal: Principal, document: PolicyDocument | null, intent: SignIntent, record: DenialRecord): Promise<void> {
    // Again here: a seal closed between the decision and the count must not cost the limit a sign.
    this.refuseIfNoSign();
    const demands = limitDemands(document, intent, principal.vaultId);
    if (demands.length === 0) return;
    const counter = this.deps.signCounter;
    if (counter === undefined) {
      // Nothing to count with (a persistence of an earlier release): refusing is the only way to hold the limit.
      await this.refuse(principal, "policy: this vault's sign limits need a persistence that counts signs, and this one does not", record);
    }
    const now = this.deps.clock.now();
    const asked = this.witness.witness(demands, now);
    const decision = await counter!.take(asked, now);
    if (decision.allowed) return this.witness.counted(demands, now);
    if (decision.missing === true) await this.refuseMissing(principal, asked.find((d) => d.key === decision.refusedBy), now, record);
    const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    const label = demands.find((d) => d.key === decision.refusedBy)?.label ?? 'a sign limit of this vault';
    const message = `${label} reached; retry after ${retryAfterSeconds} s`;
    await audit(this.deps.auditLog, 'sign.denied', now, actorOf(principal), principal.vaultId, record.subject, { ...record.details, rule: message });
    throw new DomainError(ErrorCode.SIGN_LIMIT_REACHED, message, { retryAfterSeconds });
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
