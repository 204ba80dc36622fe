import { isIP } from 'node:net';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { RequestCount, RequestRateCounter } from '../../src/ports/request-rate-store.port.js';
import { KnownWindows } from './known-windows.js';

/*
 * The request rate limits of the admission sequence (pipeline.ts): per client address before
 * authentication (takeAddressLimit), per API key after it (takeRateLimit); the token bucket that counts
 * them in this process (RateLimiter), and the per-key limit counted in a store every instance shares
 * (SharedRateLimiter).
 */

/** A refusal by a rate limit; the HTTP layer turns `retryAfterSeconds` into `Retry-After`. */
export class RateLimitedError extends DomainError {
  declare readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, scope = 'this API key') {
    super(ErrorCode.RATE_LIMITED, `rate limit exceeded for ${scope}; retry after ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

export interface RateLimiterOptions {
  /**
   * Buckets kept at most. Past it the least recently used bucket is forgotten (its owner starts again
   * with a full bucket): memory stays bounded whatever the number of distinct keys or addresses.
   */
  readonly maxKeys?: number;
  /** What the limit applies to, for the message: `this API key`, `this client address`. */
  readonly scope?: string;
}

/**
 * Token bucket per key (an API key id, a client address): `perMinute` requests a minute on average, with
 * bursts of up to `perMinute` (a full bucket). In memory, per process: with N instances behind a load
 * balancer a key gets up to N times the limit (docs/configuration.md). Buckets live only for keys that
 * made a request; a bucket that has refilled is dropped, and there are never more than `maxKeys`.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private readonly maxKeys: number;
  private readonly scope: string | undefined;
  private lastSweep: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    options: RateLimiterOptions = {},
  ) {
    this.perMs = perMinute / 60_000;
    this.maxKeys = options.maxKeys ?? 100_000;
    this.scope = options.scope;
    this.lastSweep = now();
  }

  /** Takes one request from the key's bucket; throws RateLimitedError when it is empty. */
  take(key: string): void {
    const now = this.now();
    this.sweep(now);
    let b = this.buckets.get(key);
    if (b) {
      // Re-inserted, so the map's order is least recently used first.
      this.buckets.delete(key);
    } else {
      b = { tokens: this.perMinute, at: now };
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    }
    b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * this.perMs);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return;
    }
    throw new RateLimitedError(Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)), this.scope);
  }

  /** Buckets currently held (for tests of the bound). */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, b] of this.buckets) {
      if (b.tokens + (now - b.at) * this.perMs >= this.perMinute) this.buckets.delete(key);
    }
  }
}

/** Where a shared limiter reports that its store stopped or started answering again. */
export interface SharedLimitWatch {
  readonly logger: { info(o: object, m?: string): void; warn(o: object, m?: string): void };
}

/**
 * The per-API-key limit counted in a store every instance shares (the PostgreSQL database, Redis):
 * `perMinute` requests per key in each fixed minute window, whichever instance receives them. When the
 * store fails (or is skipped after failing: rate-limit/store-breaker.ts), the request is counted in this
 * process instead, in the same fixed window, counting on from the last count the store gave for the key
 * (KnownWindows): signing goes on, each instance then limits on its own, and a store that flaps does not
 * hand out a fresh allowance. The first failure and the recovery are logged.
 */
export class SharedRateLimiter {
  private readonly windows: KnownWindows;
  private storeDown = false;

  constructor(
    private readonly counter: RequestRateCounter,
    private readonly perMinute: number,
    private readonly watch: SharedLimitWatch,
    private readonly store: string,
    private readonly clock: Clock = { now: () => new Date() },
  ) {
    this.windows = new KnownWindows(perMinute, 60_000);
  }

  async take(key: string): Promise<void> {
    let count: RequestCount;
    try {
      count = await this.counter.consume(key);
    } catch (error) {
      if (!this.storeDown) {
        this.storeDown = true;
        const err = error instanceof Error ? error.message : String(error);
        this.watch.logger.warn({ store: this.store, err }, 'the shared rate-limit store did not answer: API keys are limited per instance until it does');
      }
      return refuseAfter(this.windows.take(key, this.clock.now().getTime()));
    }
    if (this.storeDown) {
      this.storeDown = false;
      this.watch.logger.info({ store: this.store }, 'the shared rate-limit store answers again: API keys are limited across instances');
    }
    const now = this.clock.now().getTime();
    this.windows.remember(key, count.counted, now + count.windowEndsInMs, now);
    if (count.counted > this.perMinute) refuseAfter(count.windowEndsInMs);
  }
}

/** Nothing when `waitMs` is 0; else RateLimitedError with the seconds to wait, rounded up. */
function refuseAfter(waitMs: number): void {
  if (waitMs > 0) throw new RateLimitedError(Math.max(1, Math.ceil(waitMs / 1000)));
}

/** What the per-address guard needs from the HTTP dependencies. */
export interface AddressGuardDeps {
  /**
   * Per-client-address limit taken before authentication on every vault route and on Sign (IPv6 per
   * /64, see rateLimitKey); absent: none.
   */
  addressRateLimiter?: { take(address: string): void };
  metrics?: { observeAddressRateLimited?(): void };
}

/**
 * Takes one request from the address's limit, before anything else is done for the request: a flood
 * without credentials is refused here for the price of a map lookup, without a database read or an
 * audit write.
 */
export function takeAddressLimit(deps: AddressGuardDeps, address: string): void {
  if (!deps.addressRateLimiter) return;
  try {
    deps.addressRateLimiter.take(rateLimitKey(address));
  } catch (error) {
    if (error instanceof RateLimitedError) deps.metrics?.observeAddressRateLimited?.();
    throw error;
  }
}

/**
 * The key an address is rate-limited under: an IPv4 address itself, an IPv6 address's /64 network.
 * One IPv6 host usually holds a whole /64 and can send from any address in it, so a limit per /128
 * would be no limit at all.
 */
export function rateLimitKey(address: string): string {
  return isIP(address) === 6 ? ipv6Network(address, 4) : address;
}

/**
 * The client a console challenge counts against (sign-in-challenges.ts): an IPv4 address itself, an IPv6
 * address's /48 network. Challenges are held for minutes, not counted per minute, so the unit is what one
 * party gets for nothing: a site's usual allocation, and what a free tunnel broker hands out (65 536 /64s,
 * which counted apiece would hold every challenge the vault keeps).
 */
export function challengeClientKey(address: string): string {
  return isIP(address) === 6 ? ipv6Network(address, 3) : address;
}

/** An IPv6 address's network of its first `kept` 16-bit groups: `2001:db8:1::/48` for 3. */
function ipv6Network(address: string, kept: number): string {
  const bare = address.split('%')[0]!.toLowerCase();
  const [head = '', tail] = bare.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 address (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) fills the last two groups.
  const width = (g: string[]) => g.reduce((n, x) => n + (x.includes('.') ? 2 : 1), 0);
  const full = [...h, ...Array<string>(Math.max(0, 8 - width(h) - width(t))).fill('0'), ...t];
  return `${full
    .slice(0, kept)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/${kept * 16}`;
}

/** What the per-key limit needs from the HTTP dependencies (a structural part of HttpDeps). */
export interface ApiKeyLimitDeps {
  rateLimiter?: { take(apiKeyId: string): void | Promise<void> };
  metrics?: { observeRateLimited(): void };
}

/**
 * Takes one request from the API key's rate limit: the step after authentication in the pipeline's
 * admission sequence (pipeline.ts). The in-process limiter answers at once (undefined or a throw: no
 * promise, no microtask on the sign path); a shared one returns a promise the pipeline awaits.
 */
export function takeRateLimit(deps: ApiKeyLimitDeps, apiKeyId: string): void | Promise<void> {
  if (!deps.rateLimiter) return;
  const refused = (error: unknown): never => {
    if (error instanceof RateLimitedError) deps.metrics?.observeRateLimited();
    throw error;
  };
  try {
    const pending = deps.rateLimiter.take(apiKeyId);
    if (pending) return pending.catch(refused);
  } catch (error) {
    refused(error);
  }
}
