import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignCountDemand } from '../../src/domain/sign-limits.js';
import type { SignCounter } from '../../src/ports/sign-counter.port.js';

export interface SignCounterFixture {
  /** Two counters on the same storage (two connections, as two instances would have; or one twice). */
  readonly counters: readonly [SignCounter, SignCounter];
  cleanup(): Promise<void>;
}

const T0 = new Date('2026-06-01T00:00:00Z').getTime();
const at = (ms: number) => new Date(T0 + ms);
const demand = (key: string, max: number, windowMs: number): SignCountDemand => ({ key, max, windowMs, label: key });
const moving = (key: string, amount: bigint, max: bigint, windowMs: number): SignCountDemand => ({ key, max: 0, windowMs, label: key, value: { amount, max } });

/** What every sign counter must do: a rolling window per key, all or nothing, one count for all connections. */
export function describeSignCounterContract(name: string, make: () => Promise<SignCounterFixture>): void {
  describe(`SignCounter contract: ${name}`, () => {
    let f: SignCounterFixture;
    beforeAll(async () => {
      f = await make();
    });
    afterAll(async () => {
      await f?.cleanup();
    });

    it('allows max signs in a rolling window, then says when the oldest leaves it', async () => {
      const [counter] = f.counters;
      const limit = [demand(randomUUID(), 3, 60_000)];
      for (const ms of [0, 10_000, 20_000]) expect(await counter.take(limit, at(ms))).toEqual({ allowed: true, retryAfterMs: 0 });
      expect(await counter.take(limit, at(30_000))).toEqual({ allowed: false, retryAfterMs: 30_000, refusedBy: limit[0]!.key });
      expect((await counter.take(limit, at(59_999))).retryAfterMs).toBe(1);
      // The first sign leaves the window at exactly 60 s: one more fits, and then the second's turn.
      expect((await counter.take(limit, at(60_000))).allowed).toBe(true);
      expect(await counter.take(limit, at(60_001))).toEqual({ allowed: false, retryAfterMs: 9_999, refusedBy: limit[0]!.key });
    });

    it('counts all demands or none: a full one refuses the sign and the others keep their room', async () => {
      const [counter] = f.counters;
      const roomy = demand(randomUUID(), 2, 60_000);
      const full = demand(randomUUID(), 1, 3_600_000);
      expect((await counter.take([full], at(0))).allowed).toBe(true);
      const refused = await counter.take([roomy, full], at(1_000));
      expect(refused).toEqual({ allowed: false, retryAfterMs: 3_599_000, refusedBy: full.key });
      expect((await counter.take([roomy], at(2_000))).allowed).toBe(true);
      expect((await counter.take([roomy], at(3_000))).allowed).toBe(true);
      expect((await counter.take([roomy], at(4_000))).allowed).toBe(false);
    });

    it('keeps keys apart', async () => {
      const [counter] = f.counters;
      const a = demand(randomUUID(), 1, 60_000);
      const b = demand(randomUUID(), 1, 60_000);
      expect((await counter.take([a], at(0))).allowed).toBe(true);
      expect((await counter.take([b], at(0))).allowed).toBe(true);
      expect((await counter.take([a], at(1))).allowed).toBe(false);
    });

    // 30 at once: within what a small pool lets wait (4 connections and 16 waiting each), so every take is answered.
    it('never lets two connections both take the last sign: 30 concurrent takes, max 10, exactly 10 counted', async () => {
      const key = demand(randomUUID(), 10, 60_000);
      const takes = Array.from({ length: 30 }, (_, i) => f.counters[i % 2]!.take([key], at(i)));
      const decisions = await Promise.all(takes);
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterMs > 0)).toBe(true);
    });

    it('refuses a demand whose witnessed signs are not all held after its instant (rows deleted), counting nothing, even where the limit has room', async () => {
      const [counter, other] = f.counters;
      const key = randomUUID();
      for (const ms of [0, 10_000]) expect((await counter.take([demand(key, 10, 60_000)], at(ms))).allowed).toBe(true);
      const witnessed = (signs: number, after: number) => ({ ...demand(key, 10, 60_000), witnessed: { after: at(after), signs, amount: 0n } });
      expect(await other.take([witnessed(2, -1)], at(20_000))).toEqual({ allowed: true, retryAfterMs: 0 });
      // Three counted (0, 10 s, 20 s): three after -1 are held, four are not; two after 5 s are held, three are not.
      expect(await counter.take([witnessed(4, -1)], at(30_000))).toEqual({ allowed: false, retryAfterMs: 60_000, refusedBy: key, missing: true });
      expect(await counter.take([witnessed(3, 5_000)], at(30_000))).toEqual({ allowed: false, retryAfterMs: 60_000, refusedBy: key, missing: true });
      expect((await counter.take([witnessed(2, 5_000)], at(30_000))).allowed).toBe(true);
      expect((await counter.take([witnessed(4, -1)], at(30_000))).allowed).toBe(true); // the take just counted makes four
    });

    it('refuses a value demand whose witnessed amount is not held (rows deleted or rewritten), counting nothing', async () => {
      const [counter] = f.counters;
      const key = randomUUID();
      const pay = (amount: bigint, witnessed?: { signs: number; amount: bigint }) => ({
        ...moving(key, amount, 1000n, 60_000),
        ...(witnessed ? { witnessed: { after: at(-1), ...witnessed } } : {}),
      });
      expect((await counter.take([pay(300n)], at(0))).allowed).toBe(true);
      expect(await counter.take([pay(1n, { signs: 1, amount: 301n })], at(1_000))).toEqual({ allowed: false, retryAfterMs: 60_000, refusedBy: key, missing: true });
      expect(await counter.take([pay(1n, { signs: 2, amount: 300n })], at(1_000))).toEqual({ allowed: false, retryAfterMs: 60_000, refusedBy: key, missing: true });
      expect((await counter.take([pay(1n, { signs: 1, amount: 300n })], at(1_000))).allowed).toBe(true);
    });

    it('holds a limit in value: amounts add up in the rolling window, and the wait is until enough of them leave', async () => {
      const [counter] = f.counters;
      const key = randomUUID();
      const limit = (amount: bigint) => [moving(key, amount, 1000n, 60_000)];
      expect(await counter.take(limit(400n), at(0))).toEqual({ allowed: true, retryAfterMs: 0 });
      expect(await counter.take(limit(500n), at(10_000))).toEqual({ allowed: true, retryAfterMs: 0 });
      // 900 held: 101 does not fit until the 400 leaves at 60 s; 100 fits now.
      expect(await counter.take(limit(101n), at(20_000))).toEqual({ allowed: false, retryAfterMs: 40_000, refusedBy: key });
      expect((await counter.take(limit(100n), at(20_000))).allowed).toBe(true);
      // 1000 held: 600 waits for both the 400 and the 500 to leave (at 70 s).
      expect(await counter.take(limit(600n), at(30_000))).toEqual({ allowed: false, retryAfterMs: 40_000, refusedBy: key });
      // An amount over the limit alone never fits: refused for a whole window.
      expect(await counter.take(limit(1001n), at(30_000))).toEqual({ allowed: false, retryAfterMs: 60_000, refusedBy: key });
      // Amounts beyond 64 bits are kept exactly (wei, token units).
      const big = randomUUID();
      const huge = 10n ** 30n;
      expect((await counter.take([moving(big, huge, 2n * huge, 60_000)], at(0))).allowed).toBe(true);
      expect((await counter.take([moving(big, huge, 2n * huge, 60_000)], at(1))).allowed).toBe(true);
      expect((await counter.take([moving(big, 1n, 2n * huge, 60_000)], at(2))).allowed).toBe(false);
    });

    it('counts signs and amounts in one take, all or nothing', async () => {
      const [counter] = f.counters;
      const signs = demand(randomUUID(), 5, 60_000);
      const value = moving(randomUUID(), 600n, 1000n, 60_000);
      expect((await counter.take([signs, value], at(0))).allowed).toBe(true);
      expect((await counter.take([signs, value], at(1))).allowed).toBe(false);
      // The refused take counted no sign: four more fit.
      for (let i = 0; i < 4; i++) expect((await counter.take([signs], at(2 + i))).allowed).toBe(true);
      expect((await counter.take([signs], at(10))).allowed).toBe(false);
    });

    // 20 at once on both connections, 100 each against 1000: exactly 10 reserved.
    it('never lets two connections both reserve the last of a value: 20 concurrent takes of 100 against 1000, exactly 10', async () => {
      const key = randomUUID();
      const takes = Array.from({ length: 20 }, (_, i) => f.counters[i % 2]!.take([moving(key, 100n, 1000n, 86_400_000)], at(i)));
      const decisions = await Promise.all(takes);
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    });
  });
}
