import { describe, expect, it } from 'vitest';
import { SignCountWitness } from '../../src/application/signing/sign-count-witness.js';
import type { SignCountDemand } from '../../src/domain/sign-limits.js';

const T0 = new Date('2026-06-01T00:00:00Z').getTime();
const at = (ms: number) => new Date(T0 + ms);
const HOUR = 3_600_000;
const count = (key: string, windowMs = HOUR): SignCountDemand => ({ key, max: 100, windowMs, label: key });
const value = (key: string, amount: bigint): SignCountDemand => ({ key, max: 0, windowMs: HOUR, label: key, value: { amount, max: 1000n } });

describe('what an instance witnessed under a limit', () => {
  it('is nothing for a key it never counted (the demands go to the counter as they are)', () => {
    const witness = new SignCountWitness();
    const demands = [count('a')];
    expect(witness.witness(demands, at(0))).toBe(demands);
    witness.counted([count('b')], at(0));
    expect(witness.witness(demands, at(1))[0]!.witnessed).toBeUndefined();
  });

  it('counts the signs and value it counted, claiming only slices wholly after the window start plus the clock skew', () => {
    const witness = new SignCountWitness(60_000);
    witness.counted([count('a'), value('v', 300n)], at(0));
    witness.counted([count('a'), value('v', 200n)], at(10 * 60_000));
    // At 30 min both are claimed, after 30 min - 1 h + 1 min.
    expect(witness.witness([count('a')], at(30 * 60_000))[0]!.witnessed).toEqual({ after: at(-29 * 60_000), signs: 2, amount: 0n });
    expect(witness.witness([value('v', 1n)], at(30 * 60_000))[0]!.witnessed).toEqual({ after: at(-29 * 60_000), signs: 2, amount: 500n });
    // At 59 min the first (its slice starts at 0, not after -0 min... +1 min - 1 h) is no longer claimed: a skewed clock may have pruned it.
    expect(witness.witness([count('a')], at(59 * 60_000))[0]!.witnessed).toMatchObject({ signs: 1 });
    expect(witness.witness([count('a')], at(75 * 60_000))[0]!.witnessed).toBeUndefined();
  });

  it('never claims more than was counted after its instant, wherever a slice starts (each sign at or after its slice start)', () => {
    const witness = new SignCountWitness(0);
    for (let i = 0; i < 200; i++) witness.counted([count('a')], at(i * 37_000));
    const now = 200 * 37_000;
    for (let t = now; t < now + HOUR; t += 61_000) {
      const w = witness.witness([count('a')], at(t))[0]!.witnessed;
      const after = t - HOUR;
      const truly = Array.from({ length: 200 }, (_, i) => i * 37_000).filter((s) => s > after).length;
      expect(w === undefined ? 0 : w.signs).toBeLessThanOrEqual(truly);
      if (w !== undefined) expect(w.after.getTime()).toBe(T0 + after);
    }
  });

  it('starts a key anew when its window changes, and forgets the least recently counted keys past its bound', () => {
    const witness = new SignCountWitness(0, 2);
    witness.counted([count('a')], at(0));
    expect(witness.witness([count('a', 2 * HOUR)], at(1))[0]!.witnessed).toBeUndefined();
    witness.counted([count('b')], at(0));
    witness.counted([count('c')], at(0));
    expect(witness.witness([count('a'), count('b'), count('c')], at(1)).map((d) => d.witnessed?.signs)).toEqual([undefined, 1, 1]);
  });
});
