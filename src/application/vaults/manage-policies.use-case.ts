import { parseArgumentRules, ruleMatcher, withArgumentRules, type ArgumentRuleInput } from '../../domain/argument-rule-input.js';
import { describeApprovalRule, parseApprovalRule, withApprovalRule, type ApprovalRule, type ApprovalRuleInput } from '../../domain/approval-rules.js';
import { describeArgumentRule, type ArgumentRule } from '../../domain/argument-rules.js';
import { invalidArgument } from '../../domain/errors.js';
import { describeSignLimit, parseLimitTarget, parseSignLimit, sameTarget, withSignLimit, type SignLimitInput } from '../../domain/sign-limits.js';
import { parseSignPolicy, type SignPolicy, type SignPolicyInput } from '../../domain/sign-policy.js';
import { standardPolicyDetails } from '../../domain/standard-sign-policy.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import { isPolicyDocument, type PolicyRepository, type StoredPolicy } from '../../ports/policy-repository.port.js';
import { createHash } from 'node:crypto';
import { parsePolicyDocument } from '../../domain/policy/policy-document.parse.js';
import { nextApprovalId, withApprovalHolds, withArgumentDenies, withLegacyLimit, withLists, withoutApprovalHolds, withoutArgumentDenies, withoutLegacyLimits } from '../../domain/policy/legacy-edits.js';
import { describeEffect, type PolicyDocument } from '../../domain/policy/policy-document.js';
import type { ChainDirectory } from '../../domain/policy/sign-intent.js';
import { canonicalJson } from '../shared/idempotency.js';
import { documentOf } from '../signing/policy-cache.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import { audit, OPERATOR } from '../audit/audit-actor.js';
import { CHAINS } from '../../domain/chains.js';
import { requireVault } from '../wallets/wallet-lookup.js';

/**
 * Operator actions on a vault's sign policy. `apply` replaces it with a document. The older actions edit
 * what is stored, lists or a document: `set` replaces the lists (a list not given is absent, so it allows
 * everything of its kind) and keeps the argument rules, the limits and the approval rules, which have
 * their own actions; `clear` removes all. Every change is recorded as policy.changed.
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
    /** Their chain ids, for reading stored lists as a document. */
    private readonly chainIds: ChainDirectory = { idOf: () => null, nameOf: () => null },
    /** A governed vault's change becomes a proposal (governance.use-case.ts); absent: every vault is edited directly. */
    private readonly governance?: PolicyProposer,
  ) {}

  /**
   * Runs an edit: on a governed vault `save` does not write the policy, it stores a proposal of the
   * edited state and ends the edit there, which then answers `{ proposal }` instead of the policy.
   */
  private async edit<T>(work: () => Promise<T>): Promise<T | Proposed> {
    try {
      return await work();
    } catch (signal) {
      if (signal instanceof ProposalMade) return { proposal: signal.proposal };
      throw signal;
    }
  }

  /** The policy as stored: a document, or the lists of an earlier release (`policies show` prints either). */
  async show(vaultId: string): Promise<StoredPolicy | null> {
    await requireVault(this.repository, vaultId);
    return this.policies.find(vaultId);
  }

  /** The document in force (`policies export`): the stored one, or the one stored lists migrate to; null without a policy. */
  async export(vaultId: string): Promise<PolicyDocument | null> {
    return documentOf(await this.show(vaultId), this.chainIds);
  }

  /**
   * Replaces the vault's policy with a whole document (`policies apply`), validated first: a bad
   * document changes nothing and is refused naming its first wrong field.
   */
  async apply(vaultId: string, raw: unknown, actor: string = OPERATOR): Promise<PolicyDocument | Proposed> {
    return this.edit(async () => {
      const document = parsePolicyDocument(raw, { chains: this.chains });
      await requireVault(this.repository, vaultId);
      await this.save(vaultId, document, actor);
      return document;
    });
  }

  /**
   * The vault's policy as the older commands (set, rules, limits, approvals) edit it: the lists they set,
   * or a document (applied, or edited by them before), which they edit in their own id namespaces
   * (legacy-edits.ts: `r<n>`, `l<n>`, `a<n>`, the list rules), keeping every other rule and limit.
   */
  private async stored(vaultId: string): Promise<StoredPolicy | null> {
    await requireVault(this.repository, vaultId);
    return this.policies.find(vaultId);
  }

  /** Saves a document an older command edited, validated as `apply` validates one (limits, ids): an edit the document cannot hold changes nothing. */
  private async saveDocument(vaultId: string, edited: PolicyDocument): Promise<PolicyDocument> {
    const document = parsePolicyDocument(edited, { chains: this.chains });
    await this.save(vaultId, document);
    return document;
  }

  async set(vaultId: string, input: SignPolicyInput): Promise<StoredPolicy | Proposed> {
    return this.edit(async () => {
      const lists = parseSignPolicy(input, this.chains);
      const current = await this.stored(vaultId);
      if (current !== null && isPolicyDocument(current)) return this.saveDocument(vaultId, withLists(current, lists, this.chainIds));
      const policy: SignPolicy = {
        ...lists,
        ...(current?.rules && { rules: current.rules }),
        ...(current?.limits && { limits: current.limits }),
        ...(current?.approvals && { approvals: current.approvals }),
      };
      await this.save(vaultId, policy);
      return policy;
    });
  }

  /**
   * Adds one rule per operator given (argument-rule-input.ts); a rule already held is not added twice.
   * Read, then written: two operators adding rules to one vault at the same instant can lose one change
   * (each is in the audit trail, and `policies show` says what holds).
   */
  async addRules(vaultId: string, input: ArgumentRuleInput): Promise<StoredPolicy | Proposed> {
    return this.edit(async () => {
      const added = parseArgumentRules(input);
      refuseUntypedIntegers(added);
      const current = await this.stored(vaultId);
      if (current !== null && isPolicyDocument(current)) return this.saveDocument(vaultId, withArgumentDenies(current, added));
      const policy: SignPolicy = { ...current, rules: withArgumentRules(current?.rules, added) };
      await this.save(vaultId, policy);
      return policy;
    });
  }

  /**
   * Removes the rules of a function (named by selector or text, whichever way the rules were added), or
   * of one of its arguments; all rules without a function. Removing nothing changes and records nothing.
   */
  async removeRules(vaultId: string, target: { function?: string; arg?: string }): Promise<{ removed: number; policy: StoredPolicy | null } | Proposed> {
    return this.edit(async () => {
      if (target.function === undefined && target.arg !== undefined) throw invalidArgument('arg: name the function too');
      const matches = target.function === undefined ? null : ruleMatcher(target.function, target.arg);
      const current = await this.stored(vaultId);
      if (current !== null && isPolicyDocument(current)) return this.saveEdit(vaultId, current, withoutArgumentDenies(current, matches));
      const kept = (current?.rules ?? []).filter((rule) => matches !== null && !matches(rule));
      const removed = (current?.rules?.length ?? 0) - kept.length;
      if (removed === 0) return { removed, policy: current };
      const { rules: _dropped, ...rest } = current!;
      return { removed, policy: await this.saveWith(vaultId, rest, 'rules', kept) };
    });
  }

  /**
   * Adds a limit per window; one of the same scope, target and window is replaced (its count goes on).
   * Read, then written, as addRules.
   */
  async addLimit(vaultId: string, input: SignLimitInput): Promise<StoredPolicy | Proposed> {
    return this.edit(async () => {
      const limit = parseSignLimit(input);
      const current = await this.stored(vaultId);
      if (current !== null && isPolicyDocument(current)) return this.saveDocument(vaultId, withLegacyLimit(current, limit));
      const policy: SignPolicy = { ...current, limits: withSignLimit(current?.limits, limit) };
      await this.save(vaultId, policy);
      return policy;
    });
  }

  /**
   * Removes the limits of one scope and target (`{ each: 'wallet' }`, `{ wallet: '0x…' }`, …), every
   * window; all limits when `target` is null. Removing nothing changes and records nothing.
   */
  async removeLimits(vaultId: string, target: Pick<SignLimitInput, 'each' | 'wallet' | 'contract' | 'function'> | null): Promise<{ removed: number; policy: StoredPolicy | null } | Proposed> {
    return this.edit(async () => {
      const named = target === null ? null : parseLimitTarget(target);
      const current = await this.stored(vaultId);
      if (current !== null && isPolicyDocument(current)) return this.saveEdit(vaultId, current, withoutLegacyLimits(current, named));
      const kept = (current?.limits ?? []).filter((limit) => named !== null && !sameTarget(limit, named));
      const removed = (current?.limits?.length ?? 0) - kept.length;
      if (removed === 0) return { removed, policy: current };
      const { limits: _dropped, ...rest } = current!;
      return { removed, policy: await this.saveWith(vaultId, rest, 'limits', kept) };
    });
  }

  /**
   * Adds an approval rule (approval-rules.ts): signs it matches are held until its quorum approves them.
   * On a document, it holds within each allow rule (legacy-edits.ts). Read, then written, as addRules.
   */
  async addApprovalRule(vaultId: string, input: ApprovalRuleInput): Promise<{ rule: ApprovalRule; policy: StoredPolicy } | Proposed> {
    return this.edit(async () => {
      const current = await this.stored(vaultId);
      if (current !== null && isPolicyDocument(current)) {
        const rule: ApprovalRule = { ...parseApprovalRule(input, this.chains), id: nextApprovalId(current) };
        if (rule.bound !== undefined) refuseUntypedIntegers([rule.bound]);
        return { rule, policy: await this.saveDocument(vaultId, withApprovalHolds(current, rule, this.chainIds)) };
      }
      const rule = parseApprovalRule(input, this.chains, current?.approvals);
      if (rule.bound !== undefined) refuseUntypedIntegers([rule.bound]);
      const policy: SignPolicy = { ...current, approvals: withApprovalRule(current?.approvals, rule) };
      await this.save(vaultId, policy);
      return { rule, policy };
    });
  }

  /**
   * Removes the approval rule `id` (`a1`; on a document its holds `a1` and `a1.*`), or every approval rule
   * when `id` is null. Signs already held stay held by the rule they matched (an approval keeps its own
   * quorum). Removing nothing records nothing.
   */
  async removeApprovalRules(vaultId: string, id: string | null): Promise<{ removed: number; policy: StoredPolicy | null } | Proposed> {
    return this.edit(async () => {
      const current = await this.stored(vaultId);
      if (current !== null && isPolicyDocument(current)) return this.saveEdit(vaultId, current, withoutApprovalHolds(current, id === null ? null : id.trim()));
      const kept = (current?.approvals ?? []).filter((rule) => id !== null && rule.id !== id.trim());
      const removed = (current?.approvals?.length ?? 0) - kept.length;
      if (removed === 0) return { removed, policy: current };
      const { approvals: _dropped, ...rest } = current!;
      return { removed, policy: await this.saveWith(vaultId, rest, 'approvals', kept) };
    });
  }

  /** A removal from a document: saved when it removed something (the document stays, even with no rule left). */
  private async saveEdit(vaultId: string, current: PolicyDocument, edit: { document: PolicyDocument; removed: number }): Promise<{ removed: number; policy: PolicyDocument }> {
    if (edit.removed === 0) return { removed: 0, policy: current };
    return { removed: edit.removed, policy: await this.saveDocument(vaultId, edit.document) };
  }

  /** Saves `rest` with `field` set to `kept`, or without it when empty; nothing left at all is no policy. */
  private async saveWith<F extends 'rules' | 'limits' | 'approvals'>(vaultId: string, rest: SignPolicy, field: F, kept: NonNullable<SignPolicy[F]>): Promise<SignPolicy | null> {
    const policy = kept.length > 0 ? { ...rest, [field]: kept } : Object.keys(rest).length > 0 ? rest : null;
    await this.save(vaultId, policy);
    return policy;
  }

  /** Removing a policy that does not exist changes nothing and records nothing. */
  async clear(vaultId: string, actor: string = OPERATOR): Promise<{ cleared: boolean } | Proposed> {
    return this.edit(async () => {
      await requireVault(this.repository, vaultId);
      if ((await this.policies.find(vaultId)) === null) return { cleared: false };
      await this.save(vaultId, null, actor);
      return { cleared: true };
    });
  }

  /** `actor`: who made the change (the audit record's and the proposal's); the local operator by default. */
  private async save(vaultId: string, policy: StoredPolicy | null, actor: string = OPERATOR): Promise<void> {
    const proposal = await this.governance?.proposePolicy(vaultId, documentOf(policy, this.chainIds), actor);
    if (proposal) throw new ProposalMade(proposal);
    const now = this.clock.now();
    await this.policies.save(vaultId, policy, now);
    this.onChange(vaultId);
    if (policy !== null && isPolicyDocument(policy)) {
      // The document's hash says exactly what was applied; the ids say what it holds at a glance.
      await audit(this.auditLog, 'policy.changed', now, actor, vaultId, vaultId, {
        policy: 'applied',
        documentHash: createHash('sha256').update(canonicalJson(policy)).digest('hex'),
        rules: policy.rules.map((r) => `${r.id}:${describeEffect(r.effect)}`).join(','),
        limits: policy.limits.map((l) => l.id).join(',') || null,
        trustRpcUniq: policy.trustRpcUniq ? policy.trustRpcUniq.join(',') : null,
      });
      return;
    }
    const list = (values: readonly string[] | undefined) => (values ? values.join(',') : null);
    await audit(this.auditLog, 'policy.changed', now, actor, vaultId, vaultId, {
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

/** What an edit of a governed vault answers: the proposal it made (`governance proposals approve` puts it in force). */
export interface Proposed {
  readonly proposal: { readonly id: string; readonly documentHash: string };
}

export const isProposed = (result: unknown): result is Proposed => typeof result === 'object' && result !== null && 'proposal' in result;

/** Makes a proposal of a governed vault's new policy; null when the vault is not governed (the edit is then written). */
export interface PolicyProposer {
  proposePolicy(vaultId: string, policy: PolicyDocument | null, actor: string): Promise<Proposed['proposal'] | null>;
}

/** Ends an edit of a governed vault at its proposal (caught by ManagePolicies.edit, never seen outside it). */
class ProposalMade {
  constructor(readonly proposal: Proposed['proposal']) {}
}

/**
 * An integer comparison on a function named by selector alone is refused: the selector does not
 * say the argument's type, and a function with a colliding selector could pass the rule with other types.
 * Rules stored before this keep deciding as they did; new ones name the function by its signature text.
 */
function refuseUntypedIntegers(rules: readonly ArgumentRule[]): void {
  const untyped = rules.find((r) => r.signature === undefined && ['lte', 'gte', 'lt', 'gt'].includes(r.op));
  if (untyped !== undefined) {
    throw invalidArgument(`function: ${untyped.selector} is a selector alone, and an integer rule (${untyped.op}) needs the function's signature text to know the argument's type (a function with a colliding selector could pass it)`);
  }
}
