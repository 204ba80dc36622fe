import { parseAddress } from './address.js';
import { SELECTOR } from './argument-rules.js';
import { invalidArgument } from './errors.js';
import { parseFunctionText } from './signing/function-signature.js';

/** What a limit counts signs of: each wallet (signer), each contract, or each function (selector). */
export const LIMIT_SCOPES = ['wallet', 'contract', 'function'] as const;
export type LimitScope = (typeof LIMIT_SCOPES)[number];

/**
 * At most `maxSigns` Sign calls in any rolling window of `windowMs`, counted per wallet, contract or
 * function of the vault: for each one of them (`target` absent) or for the one `target` names (an
 * EIP-55 address, or a lower-case selector). The count is kept in the database, so every instance on it
 * enforces the one limit.
 */
export interface SignLimit {
  readonly scope: LimitScope;
  readonly target?: string;
  readonly maxSigns: number;
  readonly windowMs: number;
}

/** A limit as an operator writes it (`policies limits add`): exactly one of each, wallet, contract, function. */
export interface SignLimitInput {
  /** `wallet`, `contract` or `function`: a count for each one. */
  readonly each?: string;
  readonly wallet?: string;
  readonly contract?: string;
  /** A selector (0x + 8 hex) or the function's signature text. */
  readonly function?: string;
  readonly maxSigns: string | number;
  /** The window: a whole number and a unit, `30s`, `10m`, `1h`, `1d`. */
  readonly per: string;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^([1-9][0-9]{0,8})(s|m|h|d)$/;
/** A window longer than this would keep a row per sign for longer than any operator means to. */
export const MAX_WINDOW_MS = 31 * UNIT_MS.d;

/** `90s`, `10m`, `1h`, `7d` in milliseconds. */
export function parseWindow(text: string): number {
  const match = DURATION.exec(text.trim());
  if (match === null) throw invalidArgument(`per: ${JSON.stringify(text)} is not a whole number and a unit (s, m, h, d), such as 1h`);
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms > MAX_WINDOW_MS) throw invalidArgument(`per: ${text} is longer than 31d`);
  return ms;
}

/** The window as an operator wrote it, in its largest whole unit. */
export function describeWindow(ms: number): string {
  for (const unit of ['d', 'h', 'm'] as const) if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${ms / 1000}s`;
}

/** The scope and target of a limit, as `limits remove` names them too. */
export function parseLimitTarget(input: Pick<SignLimitInput, 'each' | 'wallet' | 'contract' | 'function'>): Pick<SignLimit, 'scope' | 'target'> {
  const given = (['each', 'wallet', 'contract', 'function'] as const).filter((field) => input[field] !== undefined);
  if (given.length !== 1) throw invalidArgument('limit: give exactly one of each (wallet, contract or function), wallet, contract, function');
  if (input.each !== undefined) {
    const scope = input.each.trim() as LimitScope;
    if (!LIMIT_SCOPES.includes(scope)) throw invalidArgument(`each: ${JSON.stringify(input.each)} is not one of ${LIMIT_SCOPES.join(', ')}`);
    return { scope };
  }
  if (input.wallet !== undefined) return { scope: 'wallet', target: parseAddress(input.wallet.trim(), 'wallet') };
  if (input.contract !== undefined) return { scope: 'contract', target: parseAddress(input.contract.trim(), 'contract') };
  const text = input.function!.trim();
  return { scope: 'function', target: SELECTOR.test(text) ? text.toLowerCase() : parseFunctionText(text).selector };
}

export function parseSignLimit(input: SignLimitInput): SignLimit {
  const target = parseLimitTarget(input);
  const raw = String(input.maxSigns).trim();
  const maxSigns = /^[1-9][0-9]{0,8}$/.test(raw) ? Number(raw) : NaN;
  if (Number.isNaN(maxSigns)) throw invalidArgument(`maxSigns: ${JSON.stringify(input.maxSigns)} is not a whole number from 1`);
  return { ...target, maxSigns, windowMs: parseWindow(input.per) };
}

/** `at most 100 signs per 1h for each wallet` / `… for wallet 0x…`. */
export function describeSignLimit(limit: SignLimit): string {
  const of = limit.target === undefined ? `each ${limit.scope}` : `${limit.scope} ${limit.target}`;
  return `at most ${limit.maxSigns} sign${limit.maxSigns === 1 ? '' : 's'} per ${describeWindow(limit.windowMs)} for ${of}`;
}

/** Limits a policy holds at most: each that applies to a sign is one more count in its transaction. */
export const MAX_SIGN_LIMITS = 64;

/** The limits with `added`, replacing one of the same scope, target and window (its count goes on). */
export function withSignLimit(limits: readonly SignLimit[] | undefined, added: SignLimit): SignLimit[] {
  const kept = (limits ?? []).filter((l) => !(sameTarget(l, added) && l.windowMs === added.windowMs));
  if (kept.length >= MAX_SIGN_LIMITS) throw invalidArgument(`limits: a policy holds at most ${MAX_SIGN_LIMITS} limits; remove one first`);
  return [...kept, added];
}

export const sameTarget = (a: Pick<SignLimit, 'scope' | 'target'>, b: Pick<SignLimit, 'scope' | 'target'>): boolean =>
  a.scope === b.scope && a.target === b.target;

/** One count a sign must fit in: at most `max` in the `windowMs` before now, under `key`. */
export interface SignCountDemand {
  readonly key: string;
  readonly max: number;
  readonly windowMs: number;
  /** The limit as a refusal names it (not the counter's concern). */
  readonly label: string;
  /**
   * A limit in value rather than in signs: this sign moves `amount` (wei, or token units), and the amounts
   * in the window may come to at most `max`; the count `max` above is then not used.
   */
  readonly value?: { readonly amount: bigint; readonly max: bigint };
  /**
   * The limit's `onExceed`: past it the request is held for these approvers instead of refused, and their
   * release counts it past `max` (the counter's concern is only `max`: a release asks with it lifted).
   */
  readonly escalate?: { readonly limit: string; readonly required: number; readonly group?: string };
  /**
   * What this instance itself counted under the key after `after` (SignCountWitness): the storage must
   * hold at least that many signs (or that much value) since then, or rows were deleted or rewritten in
   * the database, and the counter answers `missing` instead of counting.
   */
  readonly witnessed?: SignCountWitnessed;
}

/** A SignCountDemand's `witnessed`: signs (count limits) or value (value limits) counted here after `after`. */
export interface SignCountWitnessed {
  readonly after: Date;
  readonly signs: number;
  readonly amount: bigint;
}

/** The signs and value among `entries` (a value window's, instants in ms) after `after`. */
export function heldAfter(entries: readonly { readonly at: number; readonly amount: bigint }[], after: number): { signs: number; amount: bigint } {
  let signs = 0;
  let amount = 0n;
  for (const e of entries) if (e.at > after) (signs += 1), (amount += e.amount);
  return { signs, amount };
}

/** Whether the rows a counter holds under a key after `witnessed.after` hold less than this instance counted there. */
export function witnessedMissing(witnessed: SignCountWitnessed | undefined, held: { readonly signs: number; readonly amount: bigint }): boolean {
  return witnessed !== undefined && (held.signs < witnessed.signs || held.amount < witnessed.amount);
}

/**
 * How long until `amount` fits in a value window that holds `entries` (oldest first, each still in the
 * window at `now`) under `max`: 0 when it fits now; the whole window when it never could (the amount alone
 * is over the limit). The counters share it, so every store answers the same Retry-After.
 */
export function valueWaitMs(entries: readonly { readonly at: number; readonly amount: bigint }[], amount: bigint, max: bigint, windowMs: number, now: number): number {
  if (amount > max) return windowMs;
  let held = entries.reduce((sum, e) => sum + e.amount, 0n);
  if (held + amount <= max) return 0;
  for (const entry of entries) {
    held -= entry.amount;
    if (held + amount <= max) return Math.max(1, entry.at + windowMs - now);
  }
  return windowMs;
}

