import type { ApprovalRule } from '../approval-rules.js';
import { describeArgumentRule, positional, SELECTOR, type ArgumentRule } from '../argument-rules.js';
import { parseFunctionText } from '../signing/function-signature.js';
import { describeWindow, type SignLimit } from '../sign-limits.js';
import type { SignPolicy } from '../sign-policy.js';
import { POLICY_DOCUMENT_LIMITS, POLICY_DOCUMENT_VERSION, type PolicyCondition, type PolicyDocument, type PolicyLimit, type PolicyRule, type RuleFilters } from './policy-document.js';
import type { ChainDirectory } from './sign-intent.js';

/** The ids the lists of `policies set` become: `policies set` replaces exactly these rules. */
export const LIST_RULE_IDS = Object.freeze({ calls: 'calls', transactions: 'transactions', creation: 'contract-creation', typedData: 'typed-data-', messages: 'messages' });

/** Whether a rule is one `policies set` wrote (its lists), rather than an argument rule, an approval rule or a rule of a document. */
export const isListRule = (id: string): boolean =>
  id === LIST_RULE_IDS.calls || id === LIST_RULE_IDS.transactions || id === LIST_RULE_IDS.creation || id === LIST_RULE_IDS.messages || id.startsWith(LIST_RULE_IDS.typedData);

/**
 * A policy of the releases before the one document (Sign's allow-lists, argument rules, approval rules,
 * limits; the standard-signing switches) as the document that decides every request the same way
 * (test/unit/policy-migration-corpus.test.ts holds the two side by side), but for one gap closed:
 * approval rules and limits, which counted only Sign calls, hold and count every kind they match, so a
 * message or a transaction of the same wallet no longer passes unheld and uncounted.
 *
 * - Sign's lists: one allow rule `calls` (an absent list allows everything of its kind, as before).
 * - An argument rule: a deny rule `r<n>` on its function, `unless` the argument keeps the rule.
 * - An approval rule `a<n>`: a hold rule of the same id on calls (within the lists, which it needed to
 *   pass before), and one per allowing rule of the other kinds, `a<n>.<rule>`, within that rule. The
 *   approval rule's own hold is kept apart in `approvalRules`, for the older commands to derive its
 *   holds again when the allow rules change (legacy-edits.ts).
 * - Transactions: `transactions` (recipients; `0x` among the selectors: plain transfers) and
 *   `contract-creation`; typed-data domains `typed-data-<n>`; messages `messages`.
 * - A limit `l<n>`, on every kind; the count keys are those of before, so counts in flight carry on.
 */
export function documentFromLegacy(policy: SignPolicy, chains: ChainDirectory): PolicyDocument {
  const allows: PolicyRule[] = [];
  const calls: Mutable<PolicyRule> = { id: LIST_RULE_IDS.calls, effect: 'allow', kinds: ['call'] };
  if (policy.chains) calls.chains = policy.chains;
  if (policy.contracts) calls.contracts = policy.contracts;
  if (policy.selectors) calls.selectors = policy.selectors;
  if (policy.senders) calls.senders = policy.senders;
  allows.push(calls);
  allows.push(...standardRules(policy));
  const rules: PolicyRule[] = (policy.rules ?? []).map((rule, i) => argumentDeny(rule, `r${i + 1}`));
  const approvals = (policy.approvals ?? []).map(approvalHold);
  for (const hold of approvals) rules.push(...holdsWithin(hold, allows, chains));
  const document: Mutable<PolicyDocument> = {
    version: POLICY_DOCUMENT_VERSION,
    rules: [...rules, ...allows],
    limits: (policy.limits ?? []).map((limit, i) => legacyLimit(limit, `l${i + 1}`)),
  };
  if (approvals.length > 0) document.approvalRules = approvals;
  if (policy.uniqs) document.uniqs = policy.uniqs;
  if (policy.trustRpcUniq) document.trustRpcUniq = policy.trustRpcUniq;
  return document;
}

/** The standard-signing switches (deny by default) as allow rules: transactions, creations, typed-data domains, messages. */
export function standardRules(policy: Pick<SignPolicy, 'transactions' | 'typedData' | 'messages'>): PolicyRule[] {
  const rules: PolicyRule[] = [];
  const tx = policy.transactions;
  if (tx !== undefined) {
    const caps = { maxValue: tx.maxValue ?? '0', ...(tx.maxFee === undefined ? {} : { maxFee: tx.maxFee }) };
    if (tx.to !== undefined) {
      rules.push({ id: LIST_RULE_IDS.transactions, effect: 'allow', kinds: ['transaction'], chains: tx.chainIds, contracts: tx.to, selectors: ['0x', ...(tx.selectors ?? [])], ...caps });
    }
    if (tx.contractCreation === true) rules.push({ id: LIST_RULE_IDS.creation, effect: 'allow', kinds: ['transaction'], chains: tx.chainIds, create: true, ...caps });
  }
  for (const [i, domain] of (policy.typedData ?? []).entries()) {
    rules.push({
      id: `${LIST_RULE_IDS.typedData}${i + 1}`,
      effect: 'allow',
      kinds: ['typed-data'],
      chains: [domain.chainId],
      contracts: [domain.verifyingContract],
      ...(domain.name === undefined ? {} : { domainNames: [domain.name] }),
    });
  }
  if (policy.messages === true) rules.push({ id: LIST_RULE_IDS.messages, effect: 'allow', kinds: ['message'] });
  return rules;
}

/** An argument rule (its function's signs must keep it) as a deny rule unless they do. */
export function argumentDeny(rule: ArgumentRule, id: string): PolicyRule {
  return { id, effect: 'deny', kinds: ['call'], function: rule.signature ?? rule.selector, unless: [conditionOf(rule)], description: shortened(describeArgumentRule(rule)) };
}

/** A description within a document's text limit (a rule on a long list of addresses describes itself at length). */
const shortened = (text: string) => (text.length <= POLICY_DOCUMENT_LIMITS.maxTextLength ? text : `${text.slice(0, POLICY_DOCUMENT_LIMITS.maxTextLength - 1)}…`);

/** The argument rule as a condition, its argument by position: positions are what it was resolved to when added. */
function conditionOf(rule: ArgumentRule): PolicyCondition {
  const many = rule.op === 'in' || rule.op === 'addressIn';
  return { arg: positional(rule.path), ...(rule.name === undefined ? {} : { as: rule.name }), [rule.op]: many ? rule.values : rule.values[0] } as PolicyCondition;
}

/** An approval rule as the one hold rule of its own filters, before it is kept within what the policy allows (holdsWithin). */
export function approvalHold(approval: ApprovalRule): PolicyRule {
  const hold: Mutable<PolicyRule> = {
    id: approval.id,
    effect: { hold: { required: approval.required, ...(approval.group === undefined ? {} : { group: approval.group }), ...(approval.expiresInMs === undefined ? {} : { expiresIn: describeWindow(approval.expiresInMs) }) } },
  };
  if (approval.chains) hold.chains = approval.chains;
  if (approval.contracts) hold.contracts = approval.contracts;
  if (approval.signature !== undefined || approval.selector !== undefined) hold.function = approval.signature ?? approval.selector!;
  if (approval.bound !== undefined) hold.unless = [conditionOf(approval.bound)];
  return hold;
}

/**
 * An approval's hold within each allow rule: `a<n>` within `calls`, `a<n>.<rule>` within each other one.
 * A hold alone would make signable, with its quorum, what no rule allows; within them, it holds only what
 * the policy allows.
 */
export function holdsWithin(hold: PolicyRule, allows: readonly PolicyRule[], chains: ChainDirectory): PolicyRule[] {
  const held: PolicyRule[] = [];
  for (const allow of allows) {
    const filters = intersect(hold, allow, chains);
    if (filters === null) continue;
    const id = allow.id === LIST_RULE_IDS.calls ? hold.id : `${hold.id}.${allow.id}`;
    held.push({ ...filters, id, effect: hold.effect });
  }
  return held;
}

/**
 * The filters of both: what matches `a` and `b` at once, or null when nothing can (two chain lists that
 * share no chain). Chains compare by the chain they name, name or id.
 */
export function intersect(a: RuleFilters, b: RuleFilters, chains: ChainDirectory): RuleFilters | null {
  const out: Mutable<RuleFilters> = {};
  for (const key of ['kinds', 'wallets', 'contracts', 'selectors', 'senders', 'primaryTypes', 'domainNames'] as const) {
    const both = common(a[key], b[key], (x, y) => x === y);
    if (both === null) return null;
    if (both !== undefined) (out as Record<string, unknown>)[key] = both;
  }
  const sameChain = (x: string, y: string) => x === y || chains.idOf(x) === y || chains.idOf(y) === x;
  const chainList = common(b.chains, a.chains, sameChain);
  if (chainList === null) return null;
  if (chainList !== undefined) out.chains = chainList;
  const fn = sameFunction(a.function, b.function);
  if (fn === null) return null;
  // Messages and typed data call no function: a rule naming one can never match them.
  if (fn !== undefined && out.kinds?.every((k) => k === 'message' || k === 'typed-data')) return null;
  if (fn !== undefined) out.function = fn;
  if (a.create === true || b.create === true) {
    // A creation calls no function (its data is init code): a rule naming one can never match it.
    if (fn !== undefined || out.selectors !== undefined) return null;
    out.create = true;
  }
  for (const key of ['where', 'unless'] as const) {
    const conditions = [...(a[key] ?? []), ...(b[key] ?? [])];
    if (conditions.length > 0) out[key] = conditions;
  }
  for (const key of ['maxValue', 'maxFee'] as const) {
    const caps = [a[key], b[key]].filter((v): v is string => v !== undefined).map(BigInt);
    if (caps.length > 0) out[key] = caps.reduce((x, y) => (x < y ? x : y)).toString();
  }
  const floors = [a.minValue, b.minValue].filter((v): v is string => v !== undefined).map(BigInt);
  if (floors.length > 0) out.minValue = floors.reduce((x, y) => (x > y ? x : y)).toString();
  return out;
}

/**
 * The function both name, or null when they name two: the same function written as a selector, as types
 * only or with parameter names is one function, and the most specific writing is kept (`b`'s text first:
 * its conditions may name its parameters). Undefined when neither names one.
 */
function sameFunction(a: string | undefined, b: string | undefined): string | undefined | null {
  if (a === undefined || b === undefined || a === b) return a ?? b;
  const read = (text: string) => (SELECTOR.test(text) ? { selector: text.toLowerCase(), signature: undefined } : parseFunctionText(text, { signatureRequired: false }));
  const [x, y] = [read(a), read(b)];
  if (x.selector !== y.selector) return null;
  if (x.signature === undefined) return b;
  if (y.signature === undefined) return a;
  return x.signature === y.signature ? b : null;
}

/** The entries of `x` that some entry of `y` is the same as; undefined when neither has the list, null when they share none. */
function common(x: readonly string[] | undefined, y: readonly string[] | undefined, same: (p: string, q: string) => boolean): readonly string[] | undefined | null {
  if (x === undefined) return y;
  if (y === undefined) return x;
  const both = x.filter((p) => y.some((q) => same(p, q)));
  return both.length === 0 ? null : both;
}

/** A limit of before: the same scope and target, counted under the same key (policy-limits.ts). */
export function legacyLimit(limit: SignLimit, id: string): PolicyLimit {
  const target = limit.target === undefined ? {} : limit.scope === 'wallet' ? { wallets: [limit.target] } : limit.scope === 'contract' ? { contracts: [limit.target] } : { selectors: [limit.target] };
  return { id, each: limit.scope, ...target, maxSigns: limit.maxSigns, per: describeWindow(limit.windowMs) };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
