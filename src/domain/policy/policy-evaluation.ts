import { toChecksumAddress } from '../address.js';
import { parseArgumentRules } from '../argument-rule-input.js';
import { checkArgumentRule, integerOrNull, SELECTOR, type ArgumentRule, type ArgumentRuleOp } from '../argument-rules.js';
import { DEFAULT_APPROVAL_EXPIRY_MS } from '../approval-rules.js';
import { parseWindow } from '../sign-limits.js';
import type { ParsedFunction } from '../signing/abi-function.js';
import { parseFunctionText } from '../signing/function-signature.js';
import { DEFAULT_MAX_FEE_WEI, isHold, type PolicyCondition, type PolicyDocument, type PolicyRule, type SimulationDemand } from './policy-document.js';
import type { SignIntent } from './sign-intent.js';
import { tokenMovement } from './token-movements.js';

/** What the one policy decides for a request, and the rule that decided it. */
export interface PolicyDecision {
  readonly decision: 'allow' | 'deny' | 'hold';
  /** The deciding rule's id; null when no rule matched (refused) or the vault has no document. */
  readonly rule: string | null;
  /** For people: `policy: …` naming the rule and, for a refusal, why. */
  readonly message: string;
  /** A hold: the largest quorum of the matching hold rules (the first listed of those). */
  readonly hold?: { readonly required: number; readonly group?: string; readonly expiresInMs: number };
  /**
   * A call let through (allowed or held) only by rules that name its contract: the contract's uniq must
   * be pinned, since the signature binds the uniq, not the address (see PolicyDocument.uniqs).
   */
  readonly contractBound: boolean;
  /** An allow or hold whose rule says `simulate`, `maxOutflow` or `maxTokenOutflow`: those, for the simulation after the decision. */
  readonly simulation?: SimulationDemand;
}

type Verdict = 'holds' | 'fails' | 'unknown';
interface ConditionResult {
  readonly verdict: Verdict;
  /** Why it fails (`args[1] amount: 5000 > 1000`), or why it cannot be judged. */
  readonly problem?: string;
}

interface CompiledCondition {
  readonly text: string;
  judge(intent: SignIntent): ConditionResult;
}

interface CompiledRule {
  readonly rule: PolicyRule;
  readonly allow: boolean;
  readonly kinds: ReadonlySet<string> | null;
  readonly chains: ReadonlySet<string> | null;
  readonly wallets: ReadonlySet<string> | null;
  readonly contracts: ReadonlySet<string> | null;
  readonly selectors: ReadonlySet<string> | null;
  readonly senders: ReadonlySet<string> | null;
  readonly primaryTypes: ReadonlySet<string> | null;
  readonly domainNames: ReadonlySet<string> | null;
  readonly fn: { readonly selector: string; readonly signature: string | null; readonly parsed: ParsedFunction | null } | null;
  readonly where: readonly CompiledCondition[];
  readonly unless: readonly CompiledCondition[];
  readonly maxValue: bigint | null;
  readonly minValue: bigint | null;
  readonly maxFee: bigint | null;
}

/**
 * Decides a request with the vault's one policy document: every rule whose filters all match counts;
 * any deny refuses (the first listed names it), else any hold holds (the largest quorum), else an allow
 * allows; none matching refuses. A vault without a document allows Sign calls (the interface's
 * behaviour) and refuses every other kind. What cannot be judged (calldata that does not decode as the
 * rule's function, a selector shared by another function) never makes a request easier to sign: it
 * keeps an allow from matching and lets a deny or hold match. A request the rules let through that
 * reaches a limited token and is not a movement of it the limit can read is refused: it counts as more
 * than any limit. A contract creation is judged as one: a rule naming a function or selectors never
 * matches it (its data is init code, not a call).
 */
export function evaluatePolicy(document: PolicyDocument | null, intent: SignIntent): PolicyDecision {
  if (document === null) {
    return intent.kind === 'call'
      ? { decision: 'allow', rule: null, message: 'policy: this vault has no policy document; Sign calls are allowed', contractBound: false }
      : deny(null, `policy: this vault has no policy document, and without one only Sign calls are signed (wallet-vault policies apply)`);
  }
  // A creation's data is init code, not a call: only a call's data must start with a selector.
  if (intent.kind === 'transaction' && intent.shortData && !intent.create) return deny(null, 'policy: transaction data shorter than a function selector is not allowed');
  let hold: CompiledRule | null = null;
  let allowed: CompiledRule | null = null;
  let unbound = false;
  for (const rule of compiled(document)) {
    const miss = missOf(rule, intent);
    if (miss !== null) continue;
    if (rule.rule.effect === 'deny') return deny(rule.rule.id, `policy: denied by rule ${rule.rule.id}${denyReason(rule, intent)}`);
    if (rule.allow) {
      allowed ??= rule;
      if (rule.contracts === null) unbound = true;
    } else {
      const effect = rule.rule.effect as { hold: { required: number } };
      if (hold === null || effect.hold.required > (hold.rule.effect as { hold: { required: number } }).hold.required) hold = rule;
      if (rule.contracts === null) unbound = true;
    }
  }
  if (hold !== null || allowed !== null) {
    const unread = unreadMovement(document, intent);
    if (unread !== null) return deny(null, unread);
  }
  const contractBound = intent.kind === 'call' && !unbound;
  if (hold !== null) {
    const { required, group, expiresIn } = (hold.rule.effect as Extract<PolicyRule['effect'], object>).hold;
    const expiresInMs = expiresIn === undefined ? DEFAULT_APPROVAL_EXPIRY_MS : parseWindow(expiresIn);
    return {
      decision: 'hold',
      rule: hold.rule.id,
      message: `policy: held by rule ${hold.rule.id} for ${required} approval${required === 1 ? '' : 's'}${group === undefined ? '' : ` of group ${group}`}`,
      hold: group === undefined ? { required, expiresInMs } : { required, group, expiresInMs },
      contractBound,
      ...simulationOf(hold.rule),
    };
  }
  if (allowed !== null) return { decision: 'allow', rule: allowed.rule.id, message: `policy: allowed by rule ${allowed.rule.id}`, contractBound, ...simulationOf(allowed.rule) };
  return deny(null, `policy: no rule of this vault's policy allows this ${intent.kind}${nearestMiss(document, intent)}`);
}

/**
 * Why a request the rules let through is more than a limit on a token it reaches: what reaches the token
 * and is not a movement the limit reads (token-movements.ts) cannot be counted, so it is refused, as a
 * fact of the document and the request (the dry run answers it too, and a hold never stores a request
 * no quorum could release). Null when every such limit can read it.
 */
function unreadMovement(document: PolicyDocument, intent: SignIntent): string | null {
  if (intent.contract === null) return null;
  for (const limit of document.limits) {
    if (limit.token !== intent.contract || !filtersMatch(limit, intent)) continue;
    const moved = tokenMovement(limit, intent);
    if (moved !== null && 'unreadable' in moved) {
      return `policy: limit ${limit.id} counts token ${limit.token} and cannot read what this ${intent.kind} moves of it: ${moved.unreadable}, so it counts as more than the limit`;
    }
  }
  return null;
}

/** The deciding rule's simulation fields, when it has any (most rules have none: the decision then carries none). */
function simulationOf(rule: PolicyRule): { simulation?: SimulationDemand } {
  const { simulate, maxOutflow, maxTokenOutflow } = rule;
  if (simulate === undefined && maxOutflow === undefined && maxTokenOutflow === undefined) return {};
  return { simulation: { simulate, maxOutflow, maxTokenOutflow } };
}

const deny = (rule: string | null, message: string): PolicyDecision => ({ decision: 'deny', rule, message, contractBound: false });

/** Why the deny matched, when an `unless` condition failed: that condition's problem. */
function denyReason(rule: CompiledRule, intent: SignIntent): string {
  for (const condition of rule.unless) {
    const result = condition.judge(intent);
    if (result.verdict !== 'holds') return `: ${result.problem ?? condition.text}`;
  }
  return '';
}

/** The first allow rule of the request's kind and why it did not match: what the operator would change. */
function nearestMiss(document: PolicyDocument, intent: SignIntent): string {
  for (const rule of compiled(document)) {
    if (!rule.allow || (rule.kinds !== null && !rule.kinds.has(intent.kind))) continue;
    const miss = missOf(rule, intent, true);
    if (miss !== null) return ` (rule ${rule.rule.id}: ${miss})`;
  }
  return '';
}

const shown = (intent: SignIntent) => intent.chain ?? intent.chainId ?? 'unknown';
/** A miss not asked to be explained: deciding builds no message for the rules that do not match. */
const MISS = 'no match';

/** Null when every filter of `rule` matches the request; otherwise the first that does not, in words. */
function missOf(rule: CompiledRule, intent: SignIntent, explain = false): string | null {
  if (rule.kinds !== null && !rule.kinds.has(intent.kind)) return explain ? `it is for ${[...rule.kinds].join(', ')}` : MISS;
  const everyChain = intent.kind === 'authorization' && intent.chainId === '0';
  if (intent.kind === 'authorization' && rule.rule.effect !== 'deny') {
    // EIP-7702 delegates the wallet's account: only a rule naming the kind allows it, and chain id 0 (every chain) only with anyChain.
    if (rule.kinds === null) return explain ? 'it does not name the kind authorization (an authorization is allowed only by a rule that does)' : MISS;
    if (everyChain && rule.rule.anyChain !== true) return explain ? 'chain id 0 (every chain) needs a rule with anyChain: true' : MISS;
  }
  // A deny naming chains holds an authorization valid on every chain too: it is valid on those.
  if (rule.chains !== null && !(everyChain && rule.rule.effect === 'deny') && !((intent.chain !== null && rule.chains.has(intent.chain)) || (intent.chainId !== null && rule.chains.has(intent.chainId)))) {
    return explain ? `chain ${shown(intent)} is not in its chains` : MISS;
  }
  if (rule.wallets !== null && !rule.wallets.has(intent.wallet)) return explain ? `wallet ${intent.wallet} is not in its wallets` : MISS;
  if (rule.rule.create === true && !intent.create) return explain ? 'it is for contract creations only' : MISS;
  if (rule.contracts !== null && (intent.contract === null || !rule.contracts.has(intent.contract))) {
    const what = intent.kind === 'transaction' ? 'recipient' : intent.kind === 'typed-data' ? 'verifying contract' : 'contract';
    return explain ? (intent.contract === null ? `the request has no ${what}` : `${what} ${intent.contract} is not in its contracts`) : MISS;
  }
  // A creation's data is init code, not a call: its first bytes are no selector, and no function of a rule is called.
  if (intent.create && (rule.fn !== null || rule.selectors !== null)) {
    return explain ? `it names ${rule.fn !== null ? 'a function' : 'selectors'}, and a contract creation calls none (its data is init code)` : MISS;
  }
  if (rule.selectors !== null) {
    const selector = intent.kind === 'transaction' && intent.selector === null && !intent.create ? '0x' : intent.selector;
    if (selector === null || !rule.selectors.has(selector)) {
      return explain ? (selector === '0x' ? 'a transaction without calldata is not in its selectors (0x)' : `selector ${selector ?? '(none)'} is not in its selectors`) : MISS;
    }
  }
  if (rule.fn !== null) {
    const miss = functionMiss(rule, intent, explain);
    if (miss !== null) return miss;
  }
  if (rule.senders !== null && (intent.sender === null || !rule.senders.has(intent.sender))) return explain ? `sender ${intent.sender ?? '(none)'} is not in its senders` : MISS;
  if (rule.primaryTypes !== null && (intent.typedData === null || !rule.primaryTypes.has(intent.typedData.primaryType))) {
    return explain ? `primary type ${JSON.stringify(intent.typedData?.primaryType ?? null)} is not in its primaryTypes` : MISS;
  }
  if (rule.domainNames !== null && (intent.typedData?.domainName == null || !rule.domainNames.has(intent.typedData.domainName))) {
    return explain ? `domain name ${JSON.stringify(intent.typedData?.domainName ?? null)} is not in its domainNames` : MISS;
  }
  if (rule.maxValue !== null && intent.value > rule.maxValue) return explain ? `value ${intent.value} wei is over its maxValue ${rule.maxValue}` : MISS;
  if (rule.minValue !== null && intent.value < rule.minValue) return explain ? `value ${intent.value} wei is under its minValue ${rule.minValue}` : MISS;
  if (intent.kind === 'transaction') {
    // An allow or hold (a hold allows once its quorum approves) bounds the fee even when it names no cap.
    const cap = rule.maxFee ?? (rule.rule.effect === 'deny' ? null : DEFAULT_MAX_FEE_WEI);
    if (cap !== null && intent.fee > cap) {
      return explain ? `fee ${intent.fee} wei (gas × fee per gas) is over its maxFee ${cap}${rule.maxFee === null ? ' (the default for a rule without one)' : ''}` : MISS;
    }
  }
  for (const condition of rule.where) {
    const { verdict, problem } = condition.judge(intent);
    if (verdict === 'fails' || (verdict === 'unknown' && rule.allow)) return explain ? (problem ?? `${condition.text} does not hold`) : MISS;
  }
  if (rule.unless.length > 0) {
    let all = true;
    for (const condition of rule.unless) {
      const { verdict } = condition.judge(intent);
      if (verdict === 'fails' || (verdict === 'unknown' && !rule.allow)) {
        all = false;
        break;
      }
    }
    if (all) return explain ? `it holds ${rule.unless.map((c) => c.text).join(' and ')}` : MISS;
  }
  return null;
}

/**
 * A rule's function against the request's: the selector must be the same. A call whose function has the
 * selector but another signature (a collision) matches a deny or hold, never an allow.
 */
function functionMiss(rule: CompiledRule, intent: SignIntent, explain: boolean): string | null {
  const fn = rule.fn!;
  if (intent.selector !== fn.selector) return explain ? `function ${intent.call?.fn.signature ?? intent.selector ?? '(none)'} is not its function` : MISS;
  if (intent.call !== null && fn.signature !== null && fn.signature !== intent.call.fn.signature && rule.allow) {
    return explain ? `function ${intent.call.fn.signature} has the selector of ${fn.signature} but is another function` : MISS;
  }
  return null;
}

// ---- Compiling a document, once per document object (a policy is read from its cache as the same object) ----

const cache = new WeakMap<PolicyDocument, readonly CompiledRule[]>();

function compiled(document: PolicyDocument): readonly CompiledRule[] {
  let rules = cache.get(document);
  if (rules === undefined) cache.set(document, (rules = document.rules.map(compileRule)));
  return rules;
}

const setOf = (values: readonly string[] | undefined): ReadonlySet<string> | null => (values === undefined ? null : new Set(values));
const weiOf = (value: string | undefined): bigint | null => (value === undefined ? null : BigInt(value));

function compileRule(rule: PolicyRule): CompiledRule {
  let fn: CompiledRule['fn'] = null;
  if (rule.function !== undefined) {
    if (SELECTOR.test(rule.function)) fn = { selector: rule.function.toLowerCase(), signature: null, parsed: null };
    else {
      const parsed = parseFunctionText(rule.function, { signatureRequired: false });
      fn = { selector: parsed.selector, signature: parsed.signature, parsed };
    }
  }
  return {
    rule,
    allow: rule.effect === 'allow',
    kinds: setOf(rule.kinds),
    chains: setOf(rule.chains),
    wallets: setOf(rule.wallets),
    contracts: setOf(rule.contracts),
    selectors: setOf(rule.selectors),
    senders: setOf(rule.senders),
    primaryTypes: setOf(rule.primaryTypes),
    domainNames: setOf(rule.domainNames),
    fn,
    where: (rule.where ?? []).map((c) => compileCondition(c, rule, fn)),
    unless: (rule.unless ?? []).map((c) => compileCondition(c, rule, fn)),
    maxValue: weiOf(rule.maxValue),
    minValue: weiOf(rule.minValue),
    maxFee: weiOf(rule.maxFee),
  };
}

type Op = ArgumentRuleOp;
const opOf = (c: PolicyCondition): Op => (['eq', 'in', 'lte', 'gte', 'lt', 'gt', 'addressIn', 'bytesPrefix', 'maxLength'] as const).find((op) => c[op] !== undefined)!;
const valuesOf = (c: PolicyCondition, op: Op): readonly string[] => {
  const v = c[op]!;
  return typeof v === 'string' ? [v] : v;
};
const describeCondition = (c: PolicyCondition, op: Op) => `${c.arg ?? c.field} ${op} ${valuesOf(c, op).join(',')}`;

function compileCondition(condition: PolicyCondition, rule: PolicyRule, fn: CompiledRule['fn']): CompiledCondition {
  const op = opOf(condition);
  const text = describeCondition(condition, op);
  if (condition.arg !== undefined) {
    const [parsed] = parseArgumentRules({ function: rule.function!, arg: condition.arg, [op]: condition[op] }, { signatureRequired: false });
    const argumentRule = condition.as === undefined ? parsed! : { ...parsed!, name: condition.as };
    return { text, judge: (intent) => judgeArgument(argumentRule, fn!, intent, text) };
  }
  const steps = condition.field!.split('.');
  const values = valuesOf(condition, op).map((v) => scalarOf(v));
  const set = new Set(values);
  return { text, judge: (intent) => judgeField(steps, op, values, set, intent, text) };
}

/** An argument condition: on a call's arguments as parsed, or a transaction's calldata decoded as the rule's function. */
function judgeArgument(rule: ArgumentRule, fn: NonNullable<CompiledRule['fn']>, intent: SignIntent, text: string): ConditionResult {
  if (intent.call !== null) {
    const own = intent.call.fn;
    if (own.selector !== fn.selector || (fn.signature !== null && fn.signature !== own.signature)) return { verdict: 'unknown', problem: `function ${own.signature} is not the function of ${text}` };
    return verdictOf(checkArgumentRule(rule, own, intent.call.args));
  }
  if (intent.decodeCalldata !== null && fn.parsed !== null && intent.selector === fn.selector) {
    const args = intent.decodeCalldata(fn.parsed);
    if (args === null) return { verdict: 'unknown', problem: `the calldata does not decode as ${fn.signature}` };
    return verdictOf(checkArgumentRule(rule, fn.parsed, args));
  }
  return { verdict: 'unknown', problem: `the request has no arguments of ${rule.signature ?? rule.selector} to read (${text})` };
}

const verdictOf = (problem: string | null): ConditionResult => (problem === null ? { verdict: 'holds' } : { verdict: 'fails', problem });

/** A typed-data field condition: the field's value (every element, through arrays) against the operator. */
function judgeField(steps: readonly string[], op: Op, values: readonly string[], set: ReadonlySet<string>, intent: SignIntent, text: string): ConditionResult {
  if (intent.typedData === null) return { verdict: 'unknown', problem: `the request has no typed-data message (${text})` };
  const found: unknown[] = [];
  collect(intent.typedData.message, steps, 0, op === 'maxLength', found);
  if (found.length === 0) return { verdict: 'unknown', problem: `message field ${steps.join('.')} is missing (${text})` };
  for (const value of found) {
    const problem = fieldProblem(op, value, values, set);
    if (problem === 'unknown') return { verdict: 'unknown', problem: `message field ${steps.join('.')} is not a value ${op} compares (${text})` };
    if (problem !== null) return { verdict: 'fails', problem: `message.${steps.join('.')}: ${problem}` };
  }
  return { verdict: 'holds' };
}

function collect(value: unknown, steps: readonly string[], at: number, keepArray: boolean, out: unknown[]): void {
  if (Array.isArray(value) && !(keepArray && at === steps.length)) {
    for (const item of value) collect(item, steps, at, keepArray, out);
    return;
  }
  if (at === steps.length) {
    out.push(value);
    return;
  }
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, steps[at]!)) return;
  collect((value as Record<string, unknown>)[steps[at]!], steps, at + 1, keepArray, out);
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A JSON value of typed data in one comparable text: addresses lower-case, integers decimal, the rest as is. */
function scalarOf(value: unknown): string {
  if (typeof value === 'string') {
    if (ADDRESS.test(value)) return value.toLowerCase();
    const n = integerOrNull(value);
    return n === null ? value : n.toString();
  }
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

function fieldProblem(op: Op, value: unknown, values: readonly string[], set: ReadonlySet<string>): string | null | 'unknown' {
  const first = values[0]!;
  switch (op) {
    case 'lte':
    case 'gte':
    case 'lt':
    case 'gt': {
      const n = typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' ? integerOrNull(String(value)) : null;
      if (n === null) return 'unknown';
      const bound = BigInt(first);
      const ok = op === 'lte' ? n <= bound : op === 'gte' ? n >= bound : op === 'lt' ? n < bound : n > bound;
      return ok ? null : `${n} is not ${op} ${first}`;
    }
    case 'eq':
      return scalarOf(value) === scalarOf(first) ? null : `${showField(value)} is not ${first}`;
    case 'in':
      return values.some((v) => scalarOf(v) === scalarOf(value)) ? null : `${showField(value)} is not one of ${values.slice(0, 5).join(', ')}${values.length > 5 ? ', ...' : ''}`;
    case 'addressIn': {
      if (typeof value !== 'string' || !ADDRESS.test(value)) return 'unknown';
      return set.has(value.toLowerCase()) || set.has(toChecksumAddress(value)) ? null : `${toChecksumAddress(value)} is not one of ${values.slice(0, 5).join(', ')}`;
    }
    case 'bytesPrefix':
      if (typeof value !== 'string' || !/^0x[0-9a-fA-F]*$/.test(value)) return 'unknown';
      return value.toLowerCase().startsWith(first) ? null : `${showField(value)} does not start with ${first}`;
    case 'maxLength': {
      const length = Array.isArray(value) ? value.length : typeof value === 'string' ? (/^0x([0-9a-fA-F]{2})*$/.test(value) ? (value.length - 2) / 2 : Buffer.byteLength(value)) : null;
      if (length === null) return 'unknown';
      return length > Number(first) ? `length ${length} > ${first}` : null;
    }
  }
}

const showField = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/** The rules of `document` that would hold `intent`, for a release: the one that held it must still be there. */
export function ruleIds(document: PolicyDocument | null): ReadonlySet<string> {
  return new Set(document?.rules.map((r) => r.id) ?? []);
}

export { isHold };

const filterCache = new WeakMap<object, CompiledRule>();

/**
 * Whether the filters alone (kinds, chains, wallets, contracts, selectors, …) match a request, as a
 * rule's would: what a limit uses to know which signatures it counts.
 */
export function filtersMatch(filters: Omit<PolicyRule, 'effect'>, intent: SignIntent): boolean {
  let rule = filterCache.get(filters);
  // As a deny's filters: no default fee cap, and what cannot be judged counts as matching (counted).
  if (rule === undefined) filterCache.set(filters, (rule = compileRule({ ...filters, effect: 'deny' })));
  return missOf(rule, intent) === null;
}

const byWallet = new WeakMap<PolicyDocument, boolean>();

/** Whether a rule names wallets: only then can the decision depend on which wallet signs (limits aside). */
export function decidesByWallet(document: PolicyDocument | null): boolean {
  if (document === null) return false;
  let answer = byWallet.get(document);
  if (answer === undefined) byWallet.set(document, (answer = document.rules.some((r) => r.wallets !== undefined)));
  return answer;
}
