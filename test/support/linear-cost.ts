import { Worker } from 'node:worker_threads';
import { fastestOf, scanEveryCharacter } from './linear-cost.worker.mjs';
import type { Adversary } from './regex-adversaries.js';

export { fastestOf, scanEveryCharacter };

/*
 * Whether work on a hostile input costs about what reading it does: the time of the work against a
 * linear baseline measured in the same run over an input of the same length (a loop over every
 * character; for a regular expression, the engine matching every character once), with generous slack:
 * at most FACTOR times the baseline plus FLOOR_MS. The floor absorbs what a busy machine adds to a short
 * run (a pause, a descheduled thread); the factor lets linear work be many times slower per character
 * than the baseline. A quadratic pattern on a 1 MiB input is a million times over, so the slack never
 * decides the verdict, and no bound is a fixed number of milliseconds.
 *
 * A regular expression runs in a worker thread that is terminated once the bound has passed, so a
 * pattern that would backtrack for hours fails the test in a fraction of a second instead of hanging it.
 */

export const FACTOR = 50;
export const FLOOR_MS = 100;

/** The bound of work over an input whose baseline took `baselineMs`. */
export const boundOf = (baselineMs: number): number => FACTOR * baselineMs + FLOOR_MS;

export interface CostVerdict {
  readonly size: number;
  readonly baselineMs: number;
  /** null: stopped at the bound. */
  readonly ms: number | null;
  readonly withinBound: boolean;
}

/**
 * `work` over inputs of `sizes` (smallest first, e.g. doubling up to 1 MiB), each against the baseline over
 * the same text (`textOf`, what the work reads), in this thread: the first size where it goes over the
 * bound ends it, before a super-linear cost grows past a fraction of a second. For work whose cost is
 * known not to explode between two sizes (what runs here cannot be stopped from outside); patterns on
 * their own go through regexCosts' worker.
 */
export function costsBySize<T>(sizes: readonly number[], inputOf: (size: number) => T, textOf: (input: T) => string, work: (input: T) => unknown): CostVerdict[] {
  const verdicts: CostVerdict[] = [];
  for (const size of sizes) {
    const input = inputOf(size);
    const text = textOf(input);
    const baselineMs = fastestOf(3, () => scanEveryCharacter(text));
    const ms = fastestOf(1, () => work(input));
    const withinBound = ms <= boundOf(baselineMs);
    verdicts.push({ size, baselineMs, ms, withinBound });
    if (!withinBound) break;
  }
  return verdicts;
}

export interface PatternCase {
  readonly pattern: string;
  readonly flags: string;
  readonly adversary: Adversary;
}

export interface PatternCost extends PatternCase {
  readonly size: number;
  readonly baselineMs: number;
  /** null: the worker was stopped at the bound. */
  readonly ms: number | null;
}

/**
 * Every batch of cases (each batch one pattern's, at one size) timed in a worker against the baseline,
 * each case stopped at boundOf(baseline): its worker is then terminated, the case and the rest of its
 * batch are reported with `ms: null`, and a fresh worker takes the next batch.
 */
export async function regexCosts(batches: readonly { size: number; cases: readonly PatternCase[] }[]): Promise<PatternCost[]> {
  const results: PatternCost[] = [];
  let worker: Worker | undefined;
  try {
    for (const [batch, { size, cases }] of batches.entries()) {
      if (cases.length === 0) continue;
      worker ??= new Worker(new URL('./linear-cost.worker.mjs', import.meta.url));
      const w = worker;
      const times: (number | null)[] = cases.map(() => null);
      let baselineMs = 0;
      const finished = await new Promise<boolean>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        let left = cases.length;
        const end = (done: boolean) => {
          clearTimeout(timer);
          w.off('message', onMessage);
          w.off('error', reject);
          resolve(done);
        };
        const onMessage = (m: { batch: number; baselineMs?: number; starting?: number; k?: number; ms?: number }) => {
          if (m.batch !== batch) return;
          if (m.baselineMs !== undefined) baselineMs = m.baselineMs;
          else if (m.starting !== undefined) timer = setTimeout(() => end(false), boundOf(baselineMs));
          else {
            clearTimeout(timer);
            times[m.k!] = m.ms!;
            if (--left === 0) end(true);
          }
        };
        w.on('message', onMessage);
        w.on('error', reject);
        w.postMessage({ batch, size, cases });
      });
      if (!finished) {
        await w.terminate();
        worker = undefined;
      }
      cases.forEach((c, k) => results.push({ ...c, size, baselineMs, ms: times[k] ?? null }));
    }
  } finally {
    await worker?.terminate();
  }
  return results;
}
