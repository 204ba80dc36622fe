// @ts-check
import { parentPort } from 'node:worker_threads';

/*
 * The linear baseline of test/support/linear-cost.ts, and the worker that times regular expressions
 * against it: plain JavaScript, so a worker thread runs it as it is.
 */

/**
 * A linear reading of `text`: every character once (the baseline).
 * @param {string} text
 */
export function scanEveryCharacter(text) {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  return h;
}

/**
 * The shortest of `runs` timings of `work()` (the least disturbed by the machine).
 * @param {number} runs
 * @param {() => unknown} work
 */
export function fastestOf(runs, work) {
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    work();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

/**
 * An adversary's input of `size` characters, flattened: a regex flattens a rope on first use, which is not
 * the pattern's cost.
 * @param {{ prefix: string, pump: string, suffix: string }} a
 * @param {number} size
 */
function inputOf(a, size) {
  const reps = Math.max(1, Math.ceil((size - a.prefix.length - a.suffix.length) / a.pump.length));
  const text = a.prefix + a.pump.repeat(reps) + a.suffix;
  scanEveryCharacter(text);
  /^/.test(text);
  return text;
}

/**
 * A pattern's baseline: the engine itself matching every character once over the same input, linear and
 * as much work per character as a global replace of any linear pattern does (a loop over the characters
 * is some thirty times less, and a busy machine widens that). It depends on the length alone, so it is
 * kept per size and measured again once it is half a second old (the machine's load changes).
 */
const EVERY_CHARACTER = /[\s\S]/g;
/** @type {Map<number, { ms: number, at: number }>} */
const baselines = new Map();
/** @param {string} text */
function baselineOf(text) {
  const kept = baselines.get(text.length);
  if (kept !== undefined && performance.now() - kept.at < 500) return kept.ms;
  const ms = fastestOf(text.length > 65_536 ? 1 : 3, () => text.replace(EVERY_CHARACTER, ''));
  baselines.set(text.length, { ms, at: performance.now() });
  return ms;
}

/*
 * As a worker: for each batch (one pattern's cases at one size) it posts the baseline over the first input
 * (the parent arms its timer from it), then runs each case first-match (`exec`, as `test` and `match` do)
 * and over the whole input (a global `replace`, as `split`, `replace` and `matchAll` do), posting each time
 * as it is known (the parent re-arms its timer for the next).
 */
const port = parentPort;
if (port !== null) {
  port.on('message', (/** @type {{ batch: number, size: number, cases: { pattern: string, flags: string, adversary: { prefix: string, pump: string, suffix: string } }[] }} */ { batch, size, cases }) => {
    const [head] = cases;
    if (head === undefined) return;
    port.postMessage({ batch, baselineMs: baselineOf(inputOf(head.adversary, size)) });
    cases.forEach((c, k) => {
      const text = inputOf(c.adversary, size);
      const once = new RegExp(c.pattern, c.flags.replace(/[gy]/g, ''));
      const all = new RegExp(c.pattern, `${c.flags.replace(/[gy]/g, '')}g`);
      port.postMessage({ batch, starting: k });
      const t = performance.now();
      once.exec(text);
      text.replace(all, '');
      port.postMessage({ batch, k, ms: performance.now() - t });
    });
  });
}
