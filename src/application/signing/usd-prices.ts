import { DomainError, ErrorCode } from '../../domain/errors.js';
import { USD_DECIMALS, usdUnits } from '../../domain/policy/limit-escalation.js';
import type { PolicyDocument } from '../../domain/policy/policy-document.js';
import { pricedLimits } from '../../domain/policy/policy-limits.js';
import type { SignIntent } from '../../domain/policy/sign-intent.js';
import type { PriceFeedPort } from '../../ports/chain-reader.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { Principal } from '../access/principal.js';

export type PriceFeedReader = PriceFeedPort;

export interface UsdPricesDeps<R> {
  readonly clock: Clock;
  readonly feeds?: PriceFeedReader;
  /** Records the refusal (sign.denied) and throws it with `code`. */
  readonly refuse: (principal: Principal, code: ErrorCode, message: string, record: R) => Promise<never>;
}

/**
 * The dollar prices (atto-dollars a whole unit) a request's limits in dollars need, by asset (`native` or
 * a token): the document's `prices` as the operator set them, or its `priceFeeds` read now on the
 * request's chain. A feed read is never cached: a limit is only as good as its price at the sign. A feed
 * older than its maxAgeSeconds, or one that answers 0 or less, is PRICE_FEED_STALE; one that cannot be
 * read PRICE_FEED_UNAVAILABLE; both refuse the request (fail closed), naming the feed.
 */
export class UsdPrices<R> {
  constructor(private readonly deps: UsdPricesDeps<R>) {}

  async pricesFor(principal: Principal, document: PolicyDocument, intent: SignIntent, record: R): Promise<ReadonlyMap<string, bigint>> {
    const prices = new Map<string, bigint>();
    for (const { limit, asset } of pricedLimits(document, intent)) {
      if (prices.has(asset)) continue;
      const fixed = document.prices?.[asset];
      if (fixed !== undefined) {
        prices.set(asset, usdUnits(fixed.usd));
        continue;
      }
      const feed = document.priceFeeds?.[asset];
      // The parser refuses a limit in dollars without a price; a document stored otherwise prices nothing (never fits).
      if (feed !== undefined) prices.set(asset, await this.read(principal, limit.id, asset, feed, intent.chain, record));
    }
    return prices;
  }

  private async read(principal: Principal, limit: string, asset: string, feed: { feed: string; maxAgeSeconds: number }, chain: string | null, record: R): Promise<bigint> {
    const named = `limit ${limit}: price feed ${feed.feed} of ${asset} on chain ${chain ?? '(none)'}`;
    const reader = this.deps.feeds;
    if (chain === null) return this.deps.refuse(principal, ErrorCode.PRICE_FEED_UNAVAILABLE, `${named} cannot be read (the request names no chain); nothing was signed`, record);
    if (reader === undefined) return this.deps.refuse(principal, ErrorCode.PRICE_FEED_UNAVAILABLE, `${named} cannot be read (no chain reader); nothing was signed`, record);
    let answer;
    try {
      answer = await reader.readPriceFeed(chain, feed.feed);
    } catch (error) {
      const why = error instanceof DomainError ? error.message : 'the call failed';
      return this.deps.refuse(principal, ErrorCode.PRICE_FEED_UNAVAILABLE, `${named} cannot be read (${why}); nothing was signed`, record);
    }
    const now = BigInt(Math.floor(this.deps.clock.now().getTime() / 1000));
    const updated = new Date(Number(answer.updatedAt) * 1000);
    if (answer.updatedAt + BigInt(feed.maxAgeSeconds) < now || answer.updatedAt > now + 300n) {
      const when = Number.isFinite(updated.getTime()) ? updated.toISOString() : String(answer.updatedAt);
      return this.deps.refuse(principal, ErrorCode.PRICE_FEED_STALE, `${named} answered at ${when}, older than its maxAgeSeconds ${feed.maxAgeSeconds}; nothing was signed`, record);
    }
    if (answer.answer <= 0n) return this.deps.refuse(principal, ErrorCode.PRICE_FEED_STALE, `${named} answers ${answer.answer}, not a price; nothing was signed`, record);
    return scaled(answer.answer, answer.decimals);
  }
}

/** `answer` of `decimals` fractional digits in atto-dollars, rounded up (a price never reads lower than it is). */
function scaled(answer: bigint, decimals: number): bigint {
  if (decimals <= USD_DECIMALS) return answer * 10n ** BigInt(USD_DECIMALS - decimals);
  const divisor = 10n ** BigInt(decimals - USD_DECIMALS);
  return (answer + divisor - 1n) / divisor;
}
