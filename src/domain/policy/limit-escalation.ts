import { parseAddress } from '../address.js';
import { parseApproverGroup } from '../approval-rules.js';
import { DomainError, invalidArgument } from '../errors.js';

/**
 * What a limit may say beyond its count (docs/policy.md, "Past a limit" and "Limits in dollars"): what
 * happens past it (`onExceed`), and a bound in a reference currency (`maxValueUsd`) priced by the
 * document's operator-set `prices` or on-chain `priceFeeds`. Kept apart from the document's parser, which
 * calls these for the fields they name.
 */

/** Past the limit, the request is held for `required` approvers (of `group`) instead of refused. */
export interface LimitOnExceed {
  readonly hold: { readonly required: number; readonly group?: string };
}

/** What `prices` and `priceFeeds` are keyed by: an ERC-20 contract (EIP-55), or the chain's native unit. */
export const NATIVE = 'native';

/** An operator-set price: US dollars for one whole unit (10^decimals base units), a decimal. */
export interface FixedPrice {
  readonly usd: string;
}

/** A Chainlink AggregatorV3 on the request's chain, read at every USD-limited sign; older than `maxAgeSeconds` fails closed. */
export interface PriceFeed {
  readonly feed: string;
  readonly maxAgeSeconds: number;
}

export const LIMIT_ESCALATION_FIELDS = ['onExceed', 'maxValueUsd'] as const;
export const PRICE_DOCUMENT_FIELDS = ['prices', 'priceFeeds'] as const;

/** Fractional digits a dollar amount may have: what every USD value is counted in (atto-dollars). */
export const USD_DECIMALS = 18;
const USD = /^(0|[1-9][0-9]{0,29})(?:\.([0-9]{1,18}))?$/;
const MAX_PRICE_ENTRIES = 1000;
/** A day: a feed older than that is stale whatever the operator says (Chainlink's heartbeats are at most a day). */
const MAX_FEED_AGE_SECONDS = 86_400;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function unknownField(raw: Record<string, unknown>, known: readonly string[], at: string): void {
  const extra = Object.keys(raw).find((k) => !known.includes(k));
  if (extra !== undefined) throw invalidArgument(`${at}.${extra}: is not a field here (fields: ${known.join(', ')})`);
}

/** A decimal dollar amount as atto-dollars (exact: at most 18 fractional digits). */
export function usdUnits(text: string): bigint {
  const match = USD.exec(text);
  if (match === null) throw invalidArgument(`${JSON.stringify(text)} is not a decimal dollar amount (digits, at most 18 after the point)`);
  return BigInt(match[1]!) * 10n ** BigInt(USD_DECIMALS) + BigInt((match[2] ?? '').padEnd(USD_DECIMALS, '0'));
}

function usdText(raw: unknown, at: string): string {
  const given = typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : raw;
  if (typeof given !== 'string' || !USD.test(given)) throw invalidArgument(`${at}: must be a decimal dollar amount as a string ("10000", "0.25"; at most 18 digits after the point)`);
  return given;
}

/** `onExceed` and `maxValueUsd` of the limit `raw` at `at`, into `limit`. */
export function parseLimitEscalation(raw: Record<string, unknown>, at: string, limit: Record<string, unknown>): void {
  if (raw.onExceed !== undefined) limit.onExceed = parseOnExceed(raw.onExceed, `${at}.onExceed`);
  if (raw.maxValueUsd !== undefined) {
    if (raw.maxValue !== undefined) throw invalidArgument(`${at}.maxValueUsd: give maxValue or maxValueUsd, not both (two limits say both)`);
    limit.maxValueUsd = usdText(raw.maxValueUsd, `${at}.maxValueUsd`);
  }
}

function parseOnExceed(raw: unknown, at: string): LimitOnExceed {
  if (!isObject(raw) || !isObject(raw.hold) || Object.keys(raw).length !== 1) throw invalidArgument(`${at}: must be {"hold": {"required": M, "group"?: G}}`);
  const hold = raw.hold;
  unknownField(hold, ['required', 'group'], `${at}.hold`);
  if (!Number.isSafeInteger(hold.required) || (hold.required as number) < 1 || (hold.required as number) > 10) throw invalidArgument(`${at}.hold.required: must be a whole number from 1 to 10`);
  if (hold.group === undefined) return { hold: { required: hold.required as number } };
  if (typeof hold.group !== 'string' || hold.group.length === 0) throw invalidArgument(`${at}.hold.group: must be a non-empty string`);
  try {
    return { hold: { required: hold.required as number, group: parseApproverGroup(hold.group) } };
  } catch (error) {
    if (error instanceof DomainError && error.code === 'INVALID_ARGUMENT') throw invalidArgument(`${at}.hold: ${error.message}`);
    throw error;
  }
}

function assetKey(key: string, at: string): string {
  return key === NATIVE ? NATIVE : parseAddress(key, at);
}

/** The document's `prices` and `priceFeeds` into `document`; then every USD limit must have a price for what it counts. */
export function parseReferencePrices(raw: Record<string, unknown>, document: Record<string, unknown>, limits: readonly { readonly id: string; readonly token?: string; readonly maxValueUsd?: string }[]): void {
  if (raw.prices !== undefined) {
    if (!isObject(raw.prices)) throw invalidArgument('prices: must be an object {"<token address or native>": {"usd": "<decimal>"}}');
    const entries = Object.entries(raw.prices);
    if (entries.length > MAX_PRICE_ENTRIES) throw invalidArgument(`prices: ${entries.length} entries is more than the limit of ${MAX_PRICE_ENTRIES}`);
    const prices: Record<string, FixedPrice> = {};
    for (const [key, value] of entries) {
      const at = `prices.${key.slice(0, 42)}`;
      const asset = assetKey(key, at);
      if (prices[asset] !== undefined) throw invalidArgument(`${at}: prices ${asset} a second time (another spelling of the same address)`);
      if (!isObject(value)) throw invalidArgument(`${at}: must be {"usd": "<decimal>"}`);
      unknownField(value, ['usd'], at);
      prices[asset] = { usd: usdText(value.usd, `${at}.usd`) };
      if (usdUnits(prices[asset].usd) === 0n) throw invalidArgument(`${at}.usd: must be more than 0`);
    }
    if (entries.length > 0) document.prices = prices;
  }
  if (raw.priceFeeds !== undefined) {
    if (!isObject(raw.priceFeeds)) throw invalidArgument('priceFeeds: must be an object {"<token address or native>": {"feed": "<aggregator>", "maxAgeSeconds": N}}');
    const entries = Object.entries(raw.priceFeeds);
    if (entries.length > MAX_PRICE_ENTRIES) throw invalidArgument(`priceFeeds: ${entries.length} entries is more than the limit of ${MAX_PRICE_ENTRIES}`);
    const feeds: Record<string, PriceFeed> = {};
    for (const [key, value] of entries) {
      const at = `priceFeeds.${key.slice(0, 42)}`;
      const asset = assetKey(key, at);
      if (feeds[asset] !== undefined) throw invalidArgument(`${at}: names ${asset} a second time (another spelling of the same address)`);
      if ((document.prices as Record<string, unknown> | undefined)?.[asset] !== undefined) throw invalidArgument(`${at}: ${asset} has a price in prices too; give one source of its price`);
      if (!isObject(value)) throw invalidArgument(`${at}: must be {"feed": "<aggregator>", "maxAgeSeconds": N}`);
      unknownField(value, ['feed', 'maxAgeSeconds'], at);
      if (typeof value.feed !== 'string') throw invalidArgument(`${at}.feed: must be the aggregator's address`);
      const age = value.maxAgeSeconds;
      if (!Number.isSafeInteger(age) || (age as number) < 1 || (age as number) > MAX_FEED_AGE_SECONDS) throw invalidArgument(`${at}.maxAgeSeconds: must be a whole number of seconds from 1 to ${MAX_FEED_AGE_SECONDS}`);
      feeds[asset] = { feed: parseAddress(value.feed, `${at}.feed`), maxAgeSeconds: age as number };
    }
    if (entries.length > 0) document.priceFeeds = feeds;
  }
  for (const [i, limit] of limits.entries()) {
    if (limit.maxValueUsd === undefined) continue;
    const asset = limit.token ?? NATIVE;
    const priced = (document.prices as Record<string, unknown> | undefined)?.[asset] ?? (document.priceFeeds as Record<string, unknown> | undefined)?.[asset];
    if (priced === undefined) throw invalidArgument(`limits[${i}].maxValueUsd: ${asset} has no price: give it in prices or priceFeeds`);
    if (limit.token !== undefined && tokenDecimals(document, limit.token) === null) {
      throw invalidArgument(`limits[${i}].maxValueUsd: the dollar value of token ${limit.token} needs its decimals: name them in the document's tokens`);
    }
  }
}

/** The decimals the document's `tokens` gives `token`, or null (native amounts are wei: 18). */
export function tokenDecimals(document: object, token: string): number | null {
  const decimals = (document as { tokens?: Record<string, { decimals?: unknown } | undefined> }).tokens?.[token]?.decimals;
  return Number.isSafeInteger(decimals) && (decimals as number) >= 0 && (decimals as number) <= 77 ? (decimals as number) : null;
}
