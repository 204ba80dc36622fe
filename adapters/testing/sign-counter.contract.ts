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
  });
}
