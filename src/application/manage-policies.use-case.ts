import { parseArgumentRules, ruleMatcher, withArgumentRules, type ArgumentRuleInput } from '../domain/argument-rule-input.js';
import { describeApprovalRule, parseApprovalRule, withApprovalRule, type ApprovalRule, type ApprovalRuleInput } from '../domain/approval-rules.js';
import { describeArgumentRule } from '../domain/argument-rules.js';
import { invalidArgument } from '../domain/errors.js';
import { describeSignLimit, parseLimitTarget, parseSignLimit, sameTarget, withSignLimit, type SignLimitInput } from '../domain/sign-limits.js';
import { parseSignPolicy, type SignPolicy, type SignPolicyInput } from '../domain/sign-policy.js';
import { standardPolicyDetails } from '../domain/standard-sign-policy.js';
import type { AuditLog } from '../ports/audit-log.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { PolicyRepository } from '../ports/policy-repository.port.js';
import type { VaultStore } from '../ports/vault-store.port.js';
import { audit, OPERATOR } from './audit-actor.js';
import { CHAINS } from './sign-call.use-case.js';
import { requireVault } from './wallet-lookup.js';

/**
 * Operator actions on a vault's sign policy. `set` replaces the lists (a list not given is absent, so it
 * allows everything of its kind) and keeps the argument rules and the limits, which have their own
 * actions; `clear` removes all. Every change is recorded as policy.changed.
 */
export class ManagePolicies {
  constructor(
    private readonly repository: VaultStore,
    private readonly policies: PolicyRepository,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
    /** Called after a change, so this process's cached copy is dropped at once. */
    private readonly onChange: (vaultId: string) => void = () => undefined,
    /** Chain names a policy may list: the interface's and any the operator added. */
    private readonly chains: readonly string[] = CHAINS,
  ) {}

  async show(vaultId: string): Promise<SignPolicy | null> {
    await requireVault(this.repository, vaultId);
    return this.policies.find(vaultId);
  }

  async set(vaultId: string, input: SignPolicyInput): Promise<SignPolicy> {
    const lists = parseSignPolicy(input, this.chains);
    await requireVault(this.repository, vaultId);
    const current = await this.policies.find(vaultId);
    const policy: SignPolicy = {
      ...lists,
      ...(current?.rules && { rules: current.rules }),
      ...(current?.limits && { limits: current.limits }),
      ...(current?.approvals && { approvals: current.approvals }),
    };
    await this.save(vaultId, policy);
    return policy;
  }

  /**
   * Adds one rule per operator given (argument-rule-input.ts); a rule already held is not added twice.
   * Read, then written: two operators adding rules to one vault at the same instant can lose one change
   * (each is in the audit trail, and `policies show` says what holds).
   */
  async addRules(vaultId: string, input: ArgumentRuleInput): Promise<SignPolicy> {
    const added = parseArgumentRules(input);
    await requireVault(this.repository, vaultId);
    const current = await this.policies.find(vaultId);
    const policy: SignPolicy = { ...current, rules: withArgumentRules(current?.rules, added) };
    await this.save(vaultId, policy);
    return policy;
  }

  /**
   * Removes the rules of a function (named by selector or text, whichever way the rules were added), or
   * of one of its arguments; all rules without a function. Removing nothing changes and records nothing.
   */
  async removeRules(vaultId: string, target: { function?: string; arg?: string }): Promise<{ removed: number; policy: SignPolicy | null }> {
    if (target.function === undefined && target.arg !== undefined) throw invalidArgument('arg: name the function too');
    const matches = target.function === undefined ? () => true : ruleMatcher(target.function, target.arg);
    await requireVault(this.repository, vaultId);
    const current = await this.policies.find(vaultId);
    const kept = (current?.rules ?? []).filter((rule) => !matches(rule));
    const removed = (current?.rules?.length ?? 0) - kept.length;
    if (removed === 0) return { removed, policy: current };
    const { rules: _dropped, ...rest } = current!;
    return { removed, policy: await this.saveWith(vaultId, rest, 'rules', kept) };
  }

  /**
   * Adds a limit per window; one of the same scope, target and window is replaced (its count goes on).
   * Read, then written, as addRules.
   */
  async addLimit(vaultId: string, input: SignLimitInput): Promise<SignPolicy> {
    const limit = parseSignLimit(input);
    await requireVault(this.repository, vaultId);
    const current = await this.policies.find(vaultId);
    const policy: SignPolicy = { ...current, limits: withSignLimit(current?.limits, limit) };
    await this.save(vaultId, policy);
    return policy;
  }

  /**
   * Removes the limits of one scope and target (`{ each: 'wallet' }`, `{ wallet: '0x…' }`, …), every
   * window; all limits when `target` is null. Removing nothing changes and records nothing.
   */
  async removeLimits(vaultId: string, target: Pick<SignLimitInput, 'each' | 'wallet' | 'contract' | 'function'> | null): Promise<{ removed: number; policy: SignPolicy | null }> {
    const named = target === null ? null : parseLimitTarget(target);
    await requireVault(this.repository, vaultId);
    const current = await this.policies.find(vaultId);
    const kept = (current?.limits ?? []).filter((limit) => named !== null && !sameTarget(limit, named));
    const removed = (current?.limits?.length ?? 0) - kept.length;
    if (removed === 0) return { removed, policy: current };
    const { limits: _dropped, ...rest } = current!;
    return { removed, policy: await this.saveWith(vaultId, rest, 'limits', kept) };
  }

  /**
   * Adds an approval rule (approval-rules.ts): signs it matches are held until its quorum approves them.
   * Read, then written, as addRules.
   */
  async addApprovalRule(vaultId: string, input: ApprovalRuleInput): Promise<{ rule: ApprovalRule; policy: SignPolicy }> {
    await requireVault(this.repository, vaultId);
    const current = await this.policies.find(vaultId);
    const rule = parseApprovalRule(input, this.chains, current?.approvals);
    const policy: SignPolicy = { ...current, approvals: withApprovalRule(current?.approvals, rule) };
    await this.save(vaultId, policy);
    return { rule, policy };
  }

  /**
   * Removes the approval rule `id` (`a1`), or every approval rule when `id` is null. Signs already held
   * stay held by the rule they matched (an approval keeps its own quorum). Removing nothing records nothing.
   */
  async removeApprovalRules(vaultId: string, id: string | null): Promise<{ removed: number; policy: SignPolicy | null }> {
    await requireVault(this.repository, vaultId);
    const current = await this.policies.find(vaultId);
    const kept = (current?.approvals ?? []).filter((rule) => id !== null && rule.id !== id.trim());
    const removed = (current?.approvals?.length ?? 0) - kept.length;
    if (removed === 0) return { removed, policy: current };
    const { approvals: _dropped, ...rest } = current!;
    return { removed, policy: await this.saveWith(vaultId, rest, 'approvals', kept) };
  }

  /** Saves `rest` with `field` set to `kept`, or without it when empty; nothing left at all is no policy. */
  private async saveWith<F extends 'rules' | 'limits' | 'approvals'>(vaultId: string, rest: SignPolicy, field: F, kept: NonNullable<SignPolicy[F]>): Promise<SignPolicy | null> {
    const policy = kept.length > 0 ? { ...rest, [field]: kept } : Object.keys(rest).length > 0 ? rest : null;
    await this.save(vaultId, policy);
    return policy;
  }

  /** Removing a policy that does not exist changes nothing and records nothing. */
  async clear(vaultId: string): Promise<{ cleared: boolean }> {
    await requireVault(this.repository, vaultId);
    if ((await this.policies.find(vaultId)) === null) return { cleared: false };
    await this.save(vaultId, null);
    return { cleared: true };
  }

  private async save(vaultId: string, policy: SignPolicy | null): Promise<void> {
    const now = this.clock.now();
    await this.policies.save(vaultId, policy, now);
    this.onChange(vaultId);
    const list = (values: readonly string[] | undefined) => (values ? values.join(',') : null);
    await audit(this.auditLog, 'policy.changed', now, OPERATOR, vaultId, vaultId, {
      policy: policy === null ? 'none' : 'set',
      chains: list(policy?.chains),
      contracts: list(policy?.contracts),
      selectors: list(policy?.selectors),
      senders: list(policy?.senders),
      contractUniqs: policy?.uniqs ? Object.entries(policy.uniqs).map(([c, u]) => `${c}=${u}`).join(',') : null,
      // The contracts whose uniq an RPC chooses: the one risk an operator takes knowingly, so on record.
      trustRpcUniq: list(policy?.trustRpcUniq),
      rules: policy?.rules ? policy.rules.map(describeArgumentRule).join('; ') : null,
      limits: policy?.limits ? policy.limits.map(describeSignLimit).join('; ') : null,
      ...(policy?.approvals ? { approvals: policy.approvals.map(describeApprovalRule).join('; ') } : {}),
      ...standardPolicyDetails(policy),
    });
  }
}
