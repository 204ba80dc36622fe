import type { SignCountDemand } from '../sign-limits.js';
import { parseWindow } from '../sign-limits.js';
import type { PolicyDocument, PolicyLimit } from './policy-document.js';
import { filtersMatch } from './policy-evaluation.js';
import type { SignIntent } from './sign-intent.js';
import { tokenMovement } from './token-movements.js';
import { NATIVE, tokenDecimals, usdUnits } from './limit-escalation.js';

/** More than any token amount: what an amount that cannot be read counts as (it never fits a limit). */
const UNREADABLE = 1n << 256n;

/** What a request moves of a limit's token, and to whom; null when it moves none of it. */
interface Moved {
  readonly amount: bigint;
  readonly recipient: string | null;
}

/**
 * What `intent` moves that a limit in value counts: without `token`, the wei a transaction moves (its
 * value plus the most its fee can be); with `token`, the amount of that token what reaches the token
 * moves (token-movements.ts). What reaches the token and cannot be read as a movement counts as more
 * than any limit holds: an amount the vault cannot read is never let through a limit on it (the
 * decision refuses it first, naming why; this holds the limit whatever asks).
 */
function movedBy(limit: PolicyLimit, intent: SignIntent): Moved | null {
  if (limit.token === undefined) return intent.kind === 'transaction' ? { amount: intent.value + intent.fee, recipient: intent.contract } : null;
  const moved = tokenMovement(limit, intent);
  if (moved === null) return null;
  return 'unreadable' in moved ? { amount: UNREADABLE, recipient: null } : moved;
}

/** What a limit counts `each` of, for a request: the wallet, the contract, the function, the recipient. */
function eachValue(limit: PolicyLimit, intent: SignIntent, moved: Moved | null): string {
  switch (limit.each!) {
    case 'wallet':
      return intent.wallet;
    case 'contract':
      return intent.contract ?? '(none)';
    case 'function':
      return intent.selector ?? (intent.typedData === null ? `(${intent.kind})` : `typed-data:${intent.typedData.primaryType}`);
    case 'recipient':
      // A token's recipient is the one its calldata or typed data names; a transfer's, its `to`.
      return (moved?.recipient ?? (intent.kind === 'transaction' ? intent.contract : null))?.toLowerCase() ?? '(none)';
  }
}

/**
 * The counts a request must fit in, one per limit of the document whose filters match it: signs under
 * `maxSigns`, amounts under `maxValue`. A limit with `each` counts signs under
 * `<vault>/<each>/<value>/<window>`, the key the limits of earlier releases counted under (a count in
 * flight carries on, and limits of one window on one thing share a count: the strictest binds); one
 * without counts everything it matches under its own id. Amounts count under keys of their own.
 */
export function limitDemands(document: PolicyDocument | null, intent: SignIntent, vaultId: string, usdPrices: ReadonlyMap<string, bigint> = new Map()): SignCountDemand[] {
  if (document === null || document.limits.length === 0) return [];
  const byKey = new Map<string, SignCountDemand>();
  for (const limit of document.limits) {
    if (!filtersMatch(limit, intent)) continue;
    const windowMs = parseWindow(limit.per);
    const moved = limit.maxValue === undefined && limit.maxValueUsd === undefined ? null : movedBy(limit, intent);
    const value = limit.each === undefined ? null : eachValue(limit, intent, moved);
    const of = value === null ? 'in all' : `for ${limit.each} ${value}`;
    const escalate = limit.onExceed === undefined ? {} : { escalate: { limit: limit.id, ...limit.onExceed.hold } };
    if (limit.maxSigns !== undefined) {
      const key = value === null ? `${vaultId}/limit:${limit.id}/${windowMs}` : `${vaultId}/${limit.each}/${value}/${windowMs}`;
      const held = byKey.get(key);
      if (held === undefined || held.max > limit.maxSigns) {
        byKey.set(key, { key, max: limit.maxSigns, windowMs, label: `limit ${limit.id}: at most ${limit.maxSigns} sign${limit.maxSigns === 1 ? '' : 's'} per ${limit.per} ${of}`, ...escalate });
      }
    }
    if (moved !== null && moved.amount > 0n && limit.maxValueUsd !== undefined) {
      const asset = limit.token ?? NATIVE;
      const key = `${vaultId}/usd:${asset}:${limit.id}/${value ?? 'all'}/${windowMs}`;
      const amount = usdValue(moved.amount, usdPrices.get(asset), limit.token === undefined ? 18 : tokenDecimals(document, limit.token));
      byKey.set(key, { key, max: 0, windowMs, label: `limit ${limit.id}: at most ${limit.maxValueUsd} USD of ${asset === NATIVE ? 'the native unit' : `token ${asset}`} per ${limit.per} ${of}`, value: { amount, max: usdUnits(limit.maxValueUsd) }, ...escalate });
    } else if (moved !== null && moved.amount > 0n) {
      const unit = limit.token === undefined ? 'wei' : `of token ${limit.token}`;
      const key = `${vaultId}/value:${limit.token ?? 'native'}:${limit.id}/${value ?? 'all'}/${windowMs}`;
      byKey.set(key, { key, max: 0, windowMs, label: `limit ${limit.id}: at most ${limit.maxValue} ${unit} per ${limit.per} ${of}`, value: { amount: moved.amount, max: BigInt(limit.maxValue!) }, ...escalate });
    }
  }
  // In key order: a counter that locks per key always locks in this order, so two signs never deadlock.
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The dollar value of `amount` base units (atto-dollars, rounded up: a remainder never lets a sign
 * through), at `price` atto-dollars a whole unit of `decimals`. Without a price or decimals, or an
 * amount that could not be read, more than any limit holds: what cannot be priced never fits.
 */
function usdValue(amount: bigint, price: bigint | undefined, decimals: number | null): bigint {
  if (amount >= UNREADABLE || price === undefined || decimals === null) return UNREADABLE;
  const scale = 10n ** BigInt(decimals);
  return (amount * price + scale - 1n) / scale;
}

/**
 * The limits in dollars that count something of `intent` (matching it and moving more than 0 of their
 * asset, readably): the only ones whose price is read. A sign that moves nothing a feed prices is never
 * refused by that feed.
 */
export function pricedLimits(document: PolicyDocument, intent: SignIntent): { readonly limit: PolicyLimit; readonly asset: string }[] {
  return document.limits.flatMap((limit) => {
    if (limit.maxValueUsd === undefined || !filtersMatch(limit, intent)) return [];
    const moved = movedBy(limit, intent);
    return moved === null || moved.amount === 0n || moved.amount >= UNREADABLE ? [] : [{ limit, asset: limit.token ?? NATIVE }];
  });
}
