import { MAX_APPROVAL_RULES, type ApprovalRule } from '../approval-rules.js';
import { SELECTOR, type ArgumentRule } from '../argument-rules.js';
import { invalidArgument } from '../errors.js';
import { parseWindow, type SignLimit } from '../sign-limits.js';
import type { SignPolicy } from '../sign-policy.js';
import { parseFunctionText } from '../signing/function-signature.js';
import { parseRuleTarget } from '../argument-rule-input.js';
import { approvalHold, argumentDeny, documentFromLegacy, holdsWithin, isListRule, legacyLimit } from './legacy-policy.js';
import type { PolicyDocument, PolicyLimit, PolicyRule } from './policy-document.js';
import type { ChainDirectory } from './sign-intent.js';

/**
 * The older commands (`policies set|rules|limits|approvals`) on a vault whose policy is a document: each
 * edits the rules of its own id namespace, as the migration (documentFromLegacy) names them, and leaves
 * every other rule and limit as it is, so a command never loosens the document beyond what it says.
 *
 * - `rules`: deny rules `r<n>` (argumentDeny); `limits`: limits `l<n>` (legacyLimit);
 * - `approvals`: the hold `a<n>` within `calls` and `a<n>.<rule>` within each other allow rule
 *   (holdsWithin), the approval rule's own hold kept in `approvalRules`;
 * - `set`: the list rules (isListRule) and the uniq pins, then every approval's holds derived again.
 */

const ARGUMENT_DENY = /^r(\d+)$/;
const LEGACY_LIMIT = /^l(\d+)$/;
const APPROVAL = /^(a\d+)(?:\..+)?$/;

type Edited = { -readonly [K in keyof PolicyDocument]: PolicyDocument[K] };

/** `<prefix><n>` with n one past the largest of the ids the pattern numbers. */
function nextId(prefix: string, ids: readonly string[], pattern: RegExp): string {
  const numbers = ids.map((id) => pattern.exec(id)).map((m) => (m === null ? 0 : Number(m[1])));
  return `${prefix}${Math.max(0, ...numbers) + 1}`;
}

/** The document with `rules` in place of its rules (and no `approvalRules` when none are left). */
const withRules = (document: PolicyDocument, rules: readonly PolicyRule[], approvalRules = document.approvalRules): PolicyDocument => {
  const edited: Edited = { ...document, rules };
  if (approvalRules === undefined || approvalRules.length === 0) delete edited.approvalRules;
  else edited.approvalRules = approvalRules;
  return edited;
};

/** JSON with every object's keys in order: a stored document's rule is the same rule whatever order its fields come in. */
const stable = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));

/** A deny rule (without its id) as compared for "the same rule twice". */
const sameDeny = (a: PolicyRule, b: PolicyRule) => stable({ ...a, id: '' }) === stable({ ...b, id: '' });

/** `rules add`: a deny rule `r<n>` per argument rule, unless the same one is there already. */
export function withArgumentDenies(document: PolicyDocument, added: readonly ArgumentRule[]): PolicyDocument {
  const rules = [...document.rules];
  for (const rule of added) {
    const deny = argumentDeny(rule, nextId('r', rules.map((r) => r.id), ARGUMENT_DENY));
    if (!rules.some((r) => ARGUMENT_DENY.test(r.id) && sameDeny(r, deny))) rules.push(deny);
  }
  return withRules(document, rules);
}

/**
 * `rules remove|clear`: the deny rules `r<n>` `matches` takes (given as the argument rules they are: the
 * selector of their function and the position of each argument they read), or all of them when null.
 */
export function withoutArgumentDenies(document: PolicyDocument, matches: ((rule: Pick<ArgumentRule, 'selector' | 'path'>) => boolean) | null): { document: PolicyDocument; removed: number } {
  const taken = (rule: PolicyRule) => ARGUMENT_DENY.test(rule.id) && (matches === null || (rule.effect === 'deny' && asArgumentRules(rule).some(matches)));
  const rules = document.rules.filter((r) => !taken(r));
  return { document: withRules(document, rules), removed: document.rules.length - rules.length };
}

/** A deny rule as the argument rules it reads: its function's selector and each argument's position. */
function asArgumentRules(rule: PolicyRule): Pick<ArgumentRule, 'selector' | 'path'>[] {
  if (rule.function === undefined) return [];
  const fn = rule.function;
  try {
    const selector = SELECTOR.test(fn) ? fn.toLowerCase() : parseFunctionText(fn, { signatureRequired: false }).selector;
    const args = [...(rule.where ?? []), ...(rule.unless ?? [])].flatMap((c) => (c.arg === undefined ? [] : [c.arg]));
    // A rule reading no argument is still a rule of its function (`rules remove --function F`).
    if (args.length === 0) return [{ selector, path: [] }];
    return args.map((arg) => ({ selector, path: parseRuleTarget(fn, arg, { signatureRequired: false }).path }));
  } catch {
    return []; // a function or argument this reading cannot resolve is not the one named
  }
}

/** The legacy scope and target of a limit `l<n>` (what `limits remove` names), or null for a limit of another shape. */
function legacyTarget(limit: PolicyLimit): Pick<SignLimit, 'scope' | 'target'> | null {
  if (limit.each !== 'wallet' && limit.each !== 'contract' && limit.each !== 'function') return null;
  const targets = { wallet: limit.wallets, contract: limit.contracts, function: limit.selectors }[limit.each];
  if (targets !== undefined && targets.length !== 1) return null;
  return { scope: limit.each, ...(targets === undefined ? {} : { target: targets[0] }) };
}

const sameTarget = (limit: PolicyLimit, target: Pick<SignLimit, 'scope' | 'target'>) => {
  const own = LEGACY_LIMIT.test(limit.id) ? legacyTarget(limit) : null;
  return own !== null && own.scope === target.scope && own.target === target.target;
};

/** `limits add`: the limit `l<n>`, in place of a limit `l<n>` of the same target and window (which keeps its id, so its count goes on). */
export function withLegacyLimit(document: PolicyDocument, limit: SignLimit): PolicyDocument {
  const replaced = document.limits.findIndex((l) => sameTarget(l, limit) && parseWindow(l.per) === limit.windowMs);
  const limits = [...document.limits];
  if (replaced >= 0) limits[replaced] = legacyLimit(limit, limits[replaced]!.id);
  else limits.push(legacyLimit(limit, nextId('l', limits.map((l) => l.id), LEGACY_LIMIT)));
  return { ...document, limits };
}

/** `limits remove|clear`: the limits `l<n>` of one scope and target (every window), or all of them when null. */
export function withoutLegacyLimits(document: PolicyDocument, target: Pick<SignLimit, 'scope' | 'target'> | null): { document: PolicyDocument; removed: number } {
  const limits = document.limits.filter((l) => !(target === null ? LEGACY_LIMIT.test(l.id) : sameTarget(l, target)));
  return { document: { ...document, limits }, removed: document.limits.length - limits.length };
}

/** The id `approvals add` gives: one past every approval id of the document, held or kept. */
export function nextApprovalId(document: PolicyDocument): string {
  const ids = [...document.rules, ...(document.approvalRules ?? [])].map((r) => APPROVAL.exec(r.id)?.[1] ?? '');
  return nextId('a', ids, /^a(\d+)$/);
}

/** The allow rules of a document: what an approval's holds are kept within. */
const allowsOf = (rules: readonly PolicyRule[]) => rules.filter((r) => r.effect === 'allow');

/** `approvals add`: the approval's holds within each allow rule, and its own hold kept in `approvalRules`. */
export function withApprovalHolds(document: PolicyDocument, approval: ApprovalRule, chains: ChainDirectory): PolicyDocument {
  const kept = document.approvalRules ?? [];
  if (kept.length >= MAX_APPROVAL_RULES) throw invalidArgument(`approvals: a policy holds at most ${MAX_APPROVAL_RULES} approval rules; remove one first`);
  const hold = approvalHold(approval);
  return withRules(document, [...document.rules, ...holdsWithin(hold, allowsOf(document.rules), chains)], [...kept, hold]);
}

/** `approvals remove|clear`: the rules `a<n>` and `a<n>.*` of one approval id, or of every one when null. */
export function withoutApprovalHolds(document: PolicyDocument, id: string | null): { document: PolicyDocument; removed: number } {
  const of = (ruleId: string) => {
    const approval = APPROVAL.exec(ruleId)?.[1];
    return approval !== undefined && (id === null || approval === id) ? approval : null;
  };
  const gone = new Set([...document.rules, ...(document.approvalRules ?? [])].map((r) => of(r.id)).filter((a): a is string => a !== null));
  const rules = document.rules.filter((r) => of(r.id) === null);
  const approvalRules = (document.approvalRules ?? []).filter((r) => of(r.id) === null);
  return { document: withRules(document, rules, approvalRules), removed: gone.size };
}

/**
 * `set`: the list rules and the uniq pins the new lists make, in place of the document's; every other
 * rule and limit kept. Each approval of `approvalRules` then holds again within the allow rules as they
 * now are: its holds are derived from its own hold, not from the ones the old lists narrowed.
 */
export function withLists(document: PolicyDocument, lists: SignPolicy, chains: ChainDirectory): PolicyDocument {
  const fresh = documentFromLegacy(lists, chains);
  const approvals = document.approvalRules ?? [];
  const derived = (id: string) => approvals.some((a) => APPROVAL.exec(id)?.[1] === a.id);
  const rules = [...document.rules.filter((r) => !isListRule(r.id) && !derived(r.id)), ...fresh.rules];
  const held = approvals.flatMap((hold) => holdsWithin(hold, allowsOf(rules), chains));
  const edited: Edited = { ...withRules(document, [...rules, ...held]) };
  delete edited.uniqs;
  delete edited.trustRpcUniq;
  if (fresh.uniqs) edited.uniqs = fresh.uniqs;
  if (fresh.trustRpcUniq) edited.trustRpcUniq = fresh.trustRpcUniq;
  return edited;
}
