import { parseAddress } from './address.js';
import { parseArgumentRules } from './argument-rule-input.js';
import { describeArgumentRule, positional, SELECTOR, type ArgumentRule } from './argument-rules.js';
import { invalidArgument } from './errors.js';
import { describeWindow, parseWindow } from './sign-limits.js';
import type { ParsedFunction } from './signing/abi-function.js';
import type { AbiValue } from './signing/argument-coercion.js';
import { parseFunctionText } from './signing/function-signature.js';

/** How long a sign waits for its quorum unless its rule says otherwise. */
export const DEFAULT_APPROVAL_EXPIRY_MS = 24 * 60 * 60 * 1000;
/** At most this many approvals per rule (M of a quorum), and rules per policy. */
export const MAX_REQUIRED_APPROVALS = 10;
export const MAX_APPROVAL_RULES = 64;
const GROUP = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * A sign that matches this rule is held until `required` keys with the `approver` role (of `group`, when
 * named) approve it. Each filter narrows the rule; a rule without any holds every sign of the vault. The
 * bound is an argument rule (argument-rules.ts) that a sign must BREAK to need approval: `amount > 10000`
 * is held as `amount lte 10000`, and a sign whose amount is not within it is held.
 */
export interface ApprovalRule {
  /** `a1`, `a2`, ...: what `policies approvals remove --id` names. */
  readonly id: string;
  readonly required: number;
  readonly chains?: readonly string[];
  readonly contracts?: readonly string[];
  /** 0x + 8 lower-case hex digits. */
  readonly selector?: string;
  /** The canonical signature when the function was given as text (a colliding selector is held too). */
  readonly signature?: string;
  /** Only votes of approver keys created with this group count. */
  readonly group?: string;
  /** Held only when the sign's arguments break this rule (see the interface comment). */
  readonly bound?: ArgumentRule;
  /** How long the request waits for its quorum (default 24 h). */
  readonly expiresInMs?: number;
}

/** A rule as an operator writes it (`policies approvals add`). */
export interface ApprovalRuleInput {
  readonly required: string | number;
  readonly chains?: readonly string[];
  readonly contracts?: readonly string[];
  /** A selector or the function's signature text (with parameter names for a named `arg`). */
  readonly function?: string;
  readonly group?: string;
  /** The argument a bound is on, with one of gt, gte, lt, lte. */
  readonly arg?: string;
  readonly gt?: string;
  readonly gte?: string;
  readonly lt?: string;
  readonly lte?: string;
  /** `30m`, `24h`, `7d` (at most 31d). */
  readonly expiresIn?: string;
}

/** Reads a rule an operator gives; `id` is the next free one among `existing`. */
export function parseApprovalRule(input: ApprovalRuleInput, knownChains: readonly string[], existing: readonly ApprovalRule[] = []): ApprovalRule {
  const raw = String(input.required).trim();
  const required = /^[0-9]{1,2}$/.test(raw) ? Number(raw) : NaN;
  if (!(required >= 1 && required <= MAX_REQUIRED_APPROVALS)) {
    throw invalidArgument(`required: ${JSON.stringify(input.required)} is not a whole number from 1 to ${MAX_REQUIRED_APPROVALS}`);
  }
  const rule: { -readonly [K in keyof ApprovalRule]: ApprovalRule[K] } = { id: nextId(existing), required };
  const list = <T>(field: 'chains' | 'contracts', values: readonly string[] | undefined, normalise: (v: string) => T): T[] | undefined => {
    if (values === undefined) return undefined;
    if (values.length === 0) throw invalidArgument(`${field}: must name at least one value (leave it out to match every one)`);
    return [...new Set(values.map((v) => normalise(v.trim())))];
  };
  const chains = list('chains', input.chains, (c) => {
    if (!knownChains.includes(c)) throw invalidArgument(`chains: ${JSON.stringify(c)} is not one of ${knownChains.join(', ')}`);
    return c;
  });
  const contracts = list('contracts', input.contracts, (a) => parseAddress(a, 'contracts'));
  if (chains) rule.chains = chains;
  if (contracts) rule.contracts = contracts;
  if (input.function !== undefined) {
    const text = input.function.trim();
    if (SELECTOR.test(text)) rule.selector = text.toLowerCase();
    else {
      const fn = parseFunctionText(text);
      rule.selector = fn.selector;
      rule.signature = fn.signature;
    }
  }
  if (input.group !== undefined) rule.group = parseApproverGroup(input.group);
  const bound = parseBound(input);
  if (bound) rule.bound = bound;
  if (input.expiresIn !== undefined) rule.expiresInMs = parseWindow(input.expiresIn);
  return rule;
}

/** An approver group's name: 1 to 64 letters, digits, `_`, `.`, `-`, starting with a letter or digit. */
export function parseApproverGroup(text: string): string {
  const group = text.trim();
  if (!GROUP.test(group)) throw invalidArgument(`group: ${JSON.stringify(text)} is not 1 to 64 letters, digits, _ . - (starting with a letter or digit)`);
  return group;
}

const BOUND_OPS = ['gt', 'gte', 'lt', 'lte'] as const;

/** `--arg amount --gt 10000` as the argument rule a held sign breaks (`amount lte 10000`). */
function parseBound(input: ApprovalRuleInput): ArgumentRule | undefined {
  const given = BOUND_OPS.filter((op) => input[op] !== undefined);
  if (input.arg === undefined) {
    if (given.length > 0) throw invalidArgument(`${given[0]}: name the argument it bounds (arg)`);
    return undefined;
  }
  if (given.length !== 1) throw invalidArgument('arg: give exactly one of gt, gte, lt, lte with it');
  if (input.function === undefined) throw invalidArgument('arg: name the function too (function)');
  const op = given[0]!;
  const text = input[op]!.trim();
  if (!/^-?(\d{1,78}|0x[0-9a-fA-F]{1,64})$/.test(text)) throw invalidArgument(`${op}: ${JSON.stringify(text)} is not an integer (decimal or 0x hex)`);
  const value = text.startsWith('-') ? -BigInt(text.slice(1)) : BigInt(text);
  // Held when the value is past the bound: the rule that holds within it is the one the sign must break.
  const within = op === 'gt' ? { lte: String(value) } : op === 'gte' ? { lte: String(value - 1n) } : op === 'lt' ? { gte: String(value) } : { gte: String(value + 1n) };
  const [rule] = parseArgumentRules({ function: input.function, arg: input.arg, ...within });
  return rule;
}

const nextId = (rules: readonly ApprovalRule[]) => `a${rules.reduce((max, r) => Math.max(max, Number(r.id.slice(1)) || 0), 0) + 1}`;

/** The rules with `added`, within the limit. */
export function withApprovalRule(rules: readonly ApprovalRule[] | undefined, added: ApprovalRule): ApprovalRule[] {
  const all = [...(rules ?? []), added];
  if (all.length > MAX_APPROVAL_RULES) throw invalidArgument(`approvals: a policy holds at most ${MAX_APPROVAL_RULES} approval rules; remove one first`);
  return all;
}

/**
 * The bound as the operator gave it (`--arg amount --gt 10000` is shown `when amount gt 10000`), not as the
 * rule a held sign breaks (`amount lte 10000`), which read as the opposite of what was asked.
 */
function describeHeldWhen(bound: ArgumentRule): string {
  const name = bound.name ?? positional(bound.path);
  const value = bound.values[0]!;
  return bound.op === 'lte' ? `when ${name} gt ${value}` : bound.op === 'gte' ? `when ${name} lt ${value}` : `when not ${describeArgumentRule(bound)}`;
}

/** `a1: 2 approvals of group treasury, for chains sepolia; function transfer(…); when amount gt 10000, expires after 1d`. */
export function describeApprovalRule(rule: ApprovalRule): string {
  const parts = [`${rule.id}: ${rule.required} approval${rule.required === 1 ? '' : 's'}${rule.group ? ` of group ${rule.group}` : ''}`];
  const filters = [
    rule.chains && `chains ${rule.chains.join(',')}`,
    rule.contracts && `contracts ${rule.contracts.join(',')}`,
    (rule.signature ?? rule.selector) && `function ${rule.signature ?? rule.selector}`,
    rule.bound && describeHeldWhen(rule.bound),
  ].filter(Boolean);
  parts.push(filters.length === 0 ? 'for every sign' : `for ${filters.join('; ')}`);
  parts.push(`expires after ${describeWindow(rule.expiresInMs ?? DEFAULT_APPROVAL_EXPIRY_MS)}`);
  return parts.join(', ');
}
