import { describe, expect, it } from 'vitest';
import { KnownWindows } from '../../adapters/http/known-windows.js';
import { RateLimitedError, SharedRateLimiter } from '../../adapters/http/rate-limits.js';
import { skipFailingStore, StoreSkippedError, STORE_SKIP_MS } from '../../adapters/rate-limit/store-breaker.js';
import type { RequestCount, RequestRateCounter } from '../../src/ports/request-rate-store.port.js';
import { FixedClock } from '../support/movable-clock.js';

/**
 * A stand-in for the shared store: counts per key in fixed minute windows on the test's clock, like the
 * real ones (a key's window opens at its first request), and on demand fails each count at once or hangs
 * it (a hung count settles only when `release()` is called).
 */
class StandInStore implements RequestRateCounter {
  mode: 'answers' | 'fails' | 'hangs' = 'answers';
  calls = 0;
  private readonly windows = new Map<string, { counted: number; endsAt: number }>();
  private readonly hung: (() => void)[] = [];

  constructor(private readonly clock: FixedClock) {}

  consume(key: string): Promise<RequestCount> {
    this.calls++;
    if (this.mode === 'fails') return Promise.reject(new Error('connection refused'));
    const count = (): RequestCount => {
      const now = this.clock.now().getTime();
      const known = this.windows.get(key);
      const window = known && known.endsAt > now ? known : { counted: 0, endsAt: now + 60_000 };
      window.counted++;
      this.windows.set(key, window);
      return { counted: window.counted, windowEndsInMs: window.endsAt - now };
    };
    if (this.mode === 'answers') return Promise.resolve(count());
    return new Promise((resolve) => this.hung.push(() => resolve(count())));
  }

  /** Lets every hung count answer. */
  release(): void {
    for (const answer of this.hung.splice(0)) answer();
  }
}

const SILENT = { logger: { info() {}, warn() {} } };

/** What a request got: 'ok', or '429 after N s'. */
async function outcome(limiter: SharedRateLimiter, key = 'key'): Promise<string> {
  try {
    await limiter.take(key);
    return 'ok';
  } catch (error) {
    if (error instanceof RateLimitedError) return `429 after ${error.retryAfterSeconds} s`;
    throw error;
  }
}

function setUp(points: number, options: { callTimeoutMs?: number } = {}) {
  const clock = new FixedClock(new Date('2026-01-01T00:00:00Z'));
  const store = new StandInStore(clock);
  const seen = { failures: 0, skippedSeconds: 0 };
  const counter = skipFailingStore(store, {
    clock,
    ...options,
    failed: () => seen.failures++,
    skipped: (s) => (seen.skippedSeconds += s),
  });
  const limiter = new SharedRateLimiter(counter, points, SILENT, 'stand-in', clock);
  return { clock, store, seen, counter, limiter };
}

describe('a hung rate-limit store', () => {
  it('costs one request the call timeout; the next requests do not ask the store until the skip ends, then one tries it', async () => {
    // The timeout is short so the test is quick; nothing here depends on how long anything takes.
    const { clock, store, seen, limiter } = setUp(100, { callTimeoutMs: 20 });
    store.mode = 'hangs';
    expect(await outcome(limiter)).toBe('ok');
    expect(store.calls).toBe(1);
    expect(seen.failures).toBe(1);
    for (let i = 0; i < 5; i++) expect(await outcome(limiter)).toBe('ok');
    expect(store.calls).toBe(1);

    clock.advance(STORE_SKIP_MS - 1);
    expect(await outcome(limiter)).toBe('ok');
    expect(store.calls).toBe(1);

    // The skip is over: one request tries the store; answered, the store is asked again from then on.
    clock.advance(1);
    store.release();
    store.mode = 'answers';
    expect(await outcome(limiter)).toBe('ok');
    expect(store.calls).toBe(2);
    expect(await outcome(limiter)).toBe('ok');
    expect(store.calls).toBe(3);
    expect(seen.skippedSeconds).toBe(STORE_SKIP_MS / 1000);
  });

  it('while the trial request waits on the store, the others are counted in process without asking it', async () => {
    // A timeout that never fires here: the trial settles when the test releases it.
    const { clock, store, counter } = setUp(100, { callTimeoutMs: 600_000 });
    store.mode = 'fails';
    await expect(counter.consume('key')).rejects.toThrow('connection refused');
    clock.advance(STORE_SKIP_MS);
    store.mode = 'hangs';
    const trial = counter.consume('key');
    await expect(counter.consume('key')).rejects.toBeInstanceOf(StoreSkippedError);
    await expect(counter.consume('other key')).rejects.toBeInstanceOf(StoreSkippedError);
    expect(store.calls).toBe(2);
    store.release();
    await expect(trial).resolves.toMatchObject({ counted: 1 });
    store.mode = 'answers';
    await expect(counter.consume('key')).resolves.toMatchObject({ counted: 2 });
    expect(store.calls).toBe(3);
  });

  it('a trial that fails skips the store for another while, and the skipped time is reported as it passes', async () => {
    const { clock, store, seen, counter } = setUp(100);
    store.mode = 'fails';
    await expect(counter.consume('key')).rejects.toThrow('connection refused');
    clock.advance(STORE_SKIP_MS);
    await expect(counter.consume('key')).rejects.toThrow('connection refused');
    expect(seen).toEqual({ failures: 2, skippedSeconds: 5 });
    clock.advance(STORE_SKIP_MS - 1);
    await expect(counter.consume('key')).rejects.toBeInstanceOf(StoreSkippedError);
    clock.advance(1);
    store.mode = 'answers';
    await expect(counter.consume('key')).resolves.toMatchObject({ counted: 1 });
    expect(seen).toEqual({ failures: 2, skippedSeconds: 10 });
    expect(store.calls).toBe(3);
  });
});

describe('a rate-limit store that flaps', () => {
  it('does not hand out a fresh allowance: the fallback counts on from the last count the store gave', async () => {
    const { clock, store, limiter } = setUp(5);
    for (let i = 0; i < 3; i++) expect(await outcome(limiter)).toBe('ok');
    clock.advance(20_000);
    store.mode = 'fails';
    // Two more make five; the sixth is refused until the store's window ends (60 s after its first count).
    expect([await outcome(limiter), await outcome(limiter), await outcome(limiter)]).toEqual(['ok', 'ok', '429 after 40 s']);
  });

  it('refuses in process a key the store refused, until the store’s window ends', async () => {
    const { clock, store, limiter } = setUp(2);
    expect([await outcome(limiter), await outcome(limiter), await outcome(limiter)]).toEqual(['ok', 'ok', '429 after 60 s']);
    store.mode = 'fails';
    clock.advance(10_000);
    expect(await outcome(limiter)).toBe('429 after 50 s');
    // The window the store gave is over: the key starts a window of its own in process.
    clock.advance(50_000);
    expect([await outcome(limiter), await outcome(limiter), await outcome(limiter)]).toEqual(['ok', 'ok', '429 after 60 s']);
  });

  it('keeps, within a window, the count this process reached alone above the lower one the store gives when back', async () => {
    const { clock, store, limiter } = setUp(5);
    for (let i = 0; i < 3; i++) expect(await outcome(limiter)).toBe('ok');
    store.mode = 'fails';
    expect([await outcome(limiter), await outcome(limiter)]).toEqual(['ok', 'ok']);
    // Back after the skip: the store, which saw 3, counts a 4th (its decision), then fails again.
    clock.advance(STORE_SKIP_MS);
    store.mode = 'answers';
    expect(await outcome(limiter)).toBe('ok');
    store.mode = 'fails';
    // Five were counted in this process in this window, so nothing more is allowed in it.
    expect(await outcome(limiter)).toBe('429 after 55 s');
  });
});

describe('the windows the fallback remembers', () => {
  it('are at most maxKeys, the least recently counted forgotten first', () => {
    const windows = new KnownWindows(1, 60_000, 100);
    for (let i = 0; i < 10_000; i++) windows.remember(`key ${i}`, 1, 60_000, 0);
    expect(windows.size).toBe(100);
    expect(windows.take('key 9999', 0)).toBe(60_000);
    // Forgotten: a window of its own, from zero.
    expect(windows.take('key 0', 0)).toBe(0);
    expect(windows.size).toBe(100);
  });
});
