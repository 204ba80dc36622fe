import { expect } from 'vitest';
import type { ReplayGuard } from '../../src/ports/replay-guard.port.js';
import { MovableClock } from './clocks.js';

/** A guard over shared storage that can also be swept, as both database guards are. */
type SweepingGuard = ReplayGuard & { sweep(now: Date): Promise<number> };

export interface SharedReplayGuardWorld {
  /** A guard on connection `which` (0 or 1) of the same database, with this clock and sweep interval. */
  guard(which: 0 | 1, now: () => number, sweepEveryMs: number): SweepingGuard;
  /** The nonces stored, in any order. */
  nonces(): Promise<string[]>;
  /** Moves every stored nonce's expiry into the past (as wall-clock time passing would). */
  expireAll(): Promise<void>;
}

/**
 * What a replay guard shared by several processes promises (PostgreSQL instances, SQLite workers): one of
 * two connections taking the same nonce wins, a replay is refused on either, an expired nonce may be
 * taken again, and expired rows are swept, also by themselves after the interval.
 */
export async function expectSharedReplayGuard(world: SharedReplayGuardWorld): Promise<void> {
  const clock = new MovableClock();
  const now = () => clock.now().getTime();
  const guardA = world.guard(0, now, Number.POSITIVE_INFINITY);
  const guardB = world.guard(1, now, Number.POSITIVE_INFINITY);
  const until = new Date(clock.now().getTime() + 120_000);
  for (let i = 0; i < 20; i++) {
    const results = await Promise.all([guardA.firstUse(`n${i}`, until), guardB.firstUse(`n${i}`, until)]);
    expect(results.filter(Boolean)).toHaveLength(1);
  }
  expect(await guardB.firstUse('n0', until)).toBe(false);
  clock.advance(120_000);
  expect(await guardA.firstUse('n0', new Date(clock.now().getTime() + 120_000))).toBe(true);
  expect(await guardB.firstUse('n0', new Date(clock.now().getTime() + 120_000))).toBe(false);
  expect(await guardA.sweep(clock.now())).toBe(19);
  expect(await world.nonces()).toEqual(['n0']);
  // In service the sweep runs by itself, from the first request after its interval.
  await world.expireAll();
  const swept = world.guard(0, Date.now, 0);
  expect(await swept.firstUse('fresh', new Date(Date.now() + 120_000))).toBe(true);
  await expect.poll(() => world.nonces()).toEqual(['fresh']);
}
