import { parseAddress } from '../address.js';
import { invalidArgument } from '../errors.js';
import type { PolicyDocument, TokenInfo } from './policy-document.js';

/*
 * The policy document's address book (docs/policy.md, "Names and units"): `tokens` (each ERC-20's symbol
 * and decimals, so that people read `15 000 TUSD` rather than `15000000000`) and `addressNames` (names
 * of recipients, spenders and any other address, as `contractNames` names contracts). Part of the
 * document, so on a governed vault a name or a token's decimals change only by a signed proposal: whoever
 * writes the database cannot make an amount read a thousand times smaller. Nothing decides by them.
 */

/** Bounds: as `contractNames` (entries, characters of a name); a symbol is shorter and has no spaces. */
export const ADDRESS_BOOK_LIMITS = Object.freeze({
  maxEntries: 1000,
  maxNameLength: 64,
  maxSymbolLength: 16,
  /** uint256 has 78 decimal digits: more decimals than that leave no whole unit to show. */
  maxDecimals: 77,
});

/** As contractNames refuses them: control, invisible formatting (bidi, zero-width) and line-separator characters. */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const SPACE = /\s/u;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `tokens` and `addressNames` of a raw document, read; an empty map is left out (the document without the field). */
export function parseAddressBook(raw: Record<string, unknown>): Pick<PolicyDocument, 'tokens' | 'addressNames'> {
  const book: { tokens?: Record<string, TokenInfo>; addressNames?: Record<string, string> } = {};
  if (raw.tokens !== undefined) {
    const tokens = parseTokens(raw.tokens);
    if (Object.keys(tokens).length > 0) book.tokens = tokens;
  }
  if (raw.addressNames !== undefined) {
    const names = parseAddressNames(raw.addressNames);
    if (Object.keys(names).length > 0) book.addressNames = names;
  }
  return book;
}

/** Each entry's address EIP-55 (two spellings of one address refused), at `field.<address>`. */
function entriesOf(raw: unknown, field: string, shape: string): [string, string, unknown][] {
  if (!isObject(raw)) throw invalidArgument(`${field}: must be an object ${shape}`);
  const entries = Object.entries(raw);
  if (entries.length > ADDRESS_BOOK_LIMITS.maxEntries) throw invalidArgument(`${field}: ${entries.length} entries is more than the limit of ${ADDRESS_BOOK_LIMITS.maxEntries}`);
  const seen = new Set<string>();
  return entries.map(([key, value]) => {
    const at = `${field}.${key.length <= 42 ? key : `${key.slice(0, 42)}…`}`;
    const address = parseAddress(key, at);
    if (seen.has(address)) throw invalidArgument(`${at}: names address ${address} a second time (another spelling of the same address)`);
    seen.add(address);
    return [at, address, value];
  });
}

/** A name or symbol as people will read it: trimmed, bounded, nothing that reads otherwise than it is written. */
function shownText(raw: unknown, at: string, max: number, what: string): string {
  if (typeof raw !== 'string') throw invalidArgument(`${at}: must be a ${what} (a string)`);
  const trimmed = raw.trim();
  if (trimmed.length === 0) throw invalidArgument(`${at}: must be a non-empty ${what}`);
  if (trimmed.length > max) throw invalidArgument(`${at}: ${trimmed.length} characters is more than the limit of ${max}`);
  if (UNSHOWABLE.test(trimmed)) throw invalidArgument(`${at}: must not hold control, invisible formatting (bidi, zero-width) or line-separator characters`);
  return trimmed;
}

function parseAddressNames(raw: unknown): Record<string, string> {
  const names: Record<string, string> = {};
  for (const [at, address, name] of entriesOf(raw, 'addressNames', '{"<address>": "<name>"}')) names[address] = shownText(name, at, ADDRESS_BOOK_LIMITS.maxNameLength, 'name');
  return names;
}

function parseTokens(raw: unknown): Record<string, TokenInfo> {
  const tokens: Record<string, TokenInfo> = {};
  for (const [at, address, token] of entriesOf(raw, 'tokens', '{"<token address>": {"symbol": "USDC", "decimals": 6}}')) {
    if (!isObject(token)) throw invalidArgument(`${at}: must be an object {"symbol": "USDC", "decimals": 6}`);
    const extra = Object.keys(token).find((k) => k !== 'symbol' && k !== 'decimals');
    if (extra !== undefined) throw invalidArgument(`${at}.${extra}: is not a field here (fields: symbol, decimals)`);
    const symbol = shownText(token.symbol, `${at}.symbol`, ADDRESS_BOOK_LIMITS.maxSymbolLength, 'symbol');
    // A symbol with a space would read as part of the amount beside it.
    if (SPACE.test(symbol)) throw invalidArgument(`${at}.symbol: must not hold spaces`);
    const decimals = token.decimals;
    if (typeof decimals !== 'number' || !Number.isSafeInteger(decimals) || decimals < 0 || decimals > ADDRESS_BOOK_LIMITS.maxDecimals) {
      throw invalidArgument(`${at}.decimals: must be a whole number from 0 to ${ADDRESS_BOOK_LIMITS.maxDecimals}`);
    }
    tokens[address] = { symbol, decimals };
  }
  return tokens;
}

/** The address as the book keys it (EIP-55), or null for text that is no address. */
function keyOf(address: string): string | null {
  try {
    return parseAddress(address, 'address', { anyCase: true });
  } catch {
    return null;
  }
}

/** The operator's name of `address`: its `addressNames` entry, else its `contractNames` one; null when neither names it. */
export function addressNameOf(policy: Pick<PolicyDocument, 'addressNames' | 'contractNames'> | null, address: string): string | null {
  if (policy === null || (policy.addressNames === undefined && policy.contractNames === undefined)) return null;
  const key = keyOf(address);
  if (key === null) return null;
  if (policy.addressNames !== undefined && Object.hasOwn(policy.addressNames, key)) return policy.addressNames[key]!;
  if (policy.contractNames !== undefined && Object.hasOwn(policy.contractNames, key)) return policy.contractNames[key]!;
  return null;
}

/** The document's `tokens` entry of `token`, or null. */
export function tokenOf(policy: Pick<PolicyDocument, 'tokens'> | null, token: string): TokenInfo | null {
  if (policy?.tokens === undefined) return null;
  const key = keyOf(token);
  return key !== null && Object.hasOwn(policy.tokens, key) ? policy.tokens[key]! : null;
}

/**
 * `15000000000` of a 6-decimal token → `15 000`: the whole part grouped by threes with a space, the
 * fraction's trailing zeros dropped, every digit kept (integers only, never a float). Null for text that
 * is no decimal integer.
 */
export function formatUnits(base: string, decimals: number): string | null {
  // A simulation's outflow may be negative (the balance rose).
  if (!/^-?\d{1,78}$/.test(base)) return null;
  const sign = base.startsWith('-') ? '-' : '';
  const digits = BigInt(sign ? base.slice(1) : base).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  let end = digits.length;
  while (end > digits.length - decimals && digits[end - 1] === '0') end--;
  const fraction = digits.slice(digits.length - decimals, end);
  return `${sign}${groupByThrees(whole)}${fraction ? `.${fraction}` : ''}`;
}

/** `15000` → `15 000`: cut from the right, by a loop rather than a lookahead pattern (linear on any input). */
function groupByThrees(whole: string): string {
  const groups: string[] = [];
  for (let end = whole.length; end > 0; end -= 3) groups.unshift(whole.slice(Math.max(0, end - 3), end));
  return groups.join(' ');
}

/** An amount of a token the document names, as every view shows it. */
export interface TokenAmount {
  readonly symbol: string;
  readonly decimals: number;
  /** The amount in the token's units (`15 000`, `0.5`): formatUnits. */
  readonly units: string;
  /** `15 000 TUSD (15000000000)`: the units, the symbol and the base units as signed. */
  readonly text: string;
}

/** `base` (decimal base units) of `token` as the document's `tokens` names it; null when it names it not. */
export function tokenAmountOf(policy: Pick<PolicyDocument, 'tokens'> | null, token: string, base: unknown): TokenAmount | null {
  const info = tokenOf(policy, token);
  if (info === null || typeof base !== 'string') return null;
  const units = formatUnits(base, info.decimals);
  return units === null ? null : { symbol: info.symbol, decimals: info.decimals, units, text: `${units} ${info.symbol} (${base})` };
}

/**
 * Where a token call's amount is: the argument position of the ERC-20 functions that move (or let another
 * move) an amount of the token called, by a transaction calldata's selector, or by a Sign call's function
 * as its arguments read without the signature parameter (`transfer(address,uint256)`). Other functions'
 * integers are not the token's units.
 */
export const TOKEN_AMOUNT_ARGUMENT: ReadonlyMap<string, number> = new Map([
  ['0xa9059cbb', 1],
  ['transfer(address,uint256)', 1],
  ['0x23b872dd', 2],
  ['transferFrom(address,address,uint256)', 2],
  ['0x095ea7b3', 1],
  ['approve(address,uint256)', 1],
]);

/** The typed-data message fields that hold an amount of the domain's token (EIP-2612, EIP-3009). */
export const TOKEN_AMOUNT_FIELD: ReadonlyMap<string, string> = new Map([
  ['Permit', 'value'],
  ['TransferWithAuthorization', 'value'],
  ['ReceiveWithAuthorization', 'value'],
]);
