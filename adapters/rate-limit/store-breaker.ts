import type { Clock } from '../../src/ports/clock.port.js';
import type { RequestRateCounter } from '../../src/ports/request-rate-store.port.js';

/**
 * Longest wait for one count by the shared store, well under the outbound bound (5 s): a store that
 * hangs costs a request this much, not the outbound timeout (docs/configuration.md).
 */
export const STORE_CALL_TIMEOUT_MS = 250;
/** How long the store is skipped after it failed or timed out, before one request tries it again. */
export const STORE_SKIP_MS = 5000;

export interface StoreBreakerOptions {
  /** The time the skip window is measured on (tests move it). */
  readonly clock: Clock;
  readonly callTimeoutMs?: number;
  readonly skipMs?: number;
  /** Each count the store failed or did not answer in time. */
  readonly failed?: () => void;
  /** Seconds the store was skipped, reported as they pass (at each trial and at the recovery). */
  readonly skipped?: (seconds: number) => void;
}

/** The rejection of a count while the store is skipped: it was not asked. */
export class StoreSkippedError extends Error {
  constructor() {
    super('the rate-limit store is skipped after a failure');
  }
}

/**
 * A counter that stops asking a failing store for a while (a circuit breaker, one per store counter):
 * after a count fails or takes longer than `callTimeoutMs`, every count is rejected at once with
 * StoreSkippedError for `skipMs`; then one count tries the store (the others are still rejected while it
 * is under way): answered, the store is used again; failed, it is skipped for another `skipMs`. So a
 * hung store costs one request per `skipMs` the call timeout, besides those already waiting on it.
 * The caller counts rejected requests in process (SharedRateLimiter).
 */
export function skipFailingStore(counter: RequestRateCounter, options: StoreBreakerOptions): RequestRateCounter {
  const callTimeoutMs = options.callTimeoutMs ?? STORE_CALL_TIMEOUT_MS;
  const skipMs = options.skipMs ?? STORE_SKIP_MS;
  const now = () => options.clock.now().getTime();
  // Skipping since when (undefined: the store is asked), up to when, and the moment up to which the
  // skipped time has been reported.
  let skipping: { until: number; reportedTo: number } | undefined;
  let trialUnderWay = false;

  const reportSkipped = (s: { reportedTo: number }, at: number) => {
    if (at > s.reportedTo) options.skipped?.((at - s.reportedTo) / 1000);
    s.reportedTo = at;
  };

  return {
    async consume(key) {
      let trial = false;
      if (skipping) {
        const at = now();
        if (trialUnderWay || at < skipping.until) throw new StoreSkippedError();
        trial = trialUnderWay = true;
        reportSkipped(skipping, at);
      }
      try {
        const count = await withinMs(counter.consume(key), callTimeoutMs);
        // Only the trial closes the breaker: a count started before the store failed proves nothing now.
        if (trial && skipping) {
          reportSkipped(skipping, now());
          skipping = undefined;
        }
        return count;
      } catch (error) {
        options.failed?.();
        const at = now();
        if (skipping) skipping.until = Math.max(skipping.until, at + skipMs);
        else skipping = { until: at + skipMs, reportedTo: at };
        throw error;
      } finally {
        if (trial) trialUnderWay = false;
      }
    },
  };
}

/**
 * `promise`, or a rejection once `ms` have passed without it settling (what it settles to later is
 * dropped). The rejection waits for the event loop's next check phase: after a stall of this process
 * (timers run before I/O is read), an answer that arrived meanwhile is read first and wins, so only a
 * store that did not answer counts as timed out.
 */
function withinMs<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let afterIo: NodeJS.Immediate | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      afterIo = setImmediate(() => reject(new Error(`the rate-limit store did not answer within ${ms} ms`)));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    clearImmediate(afterIo);
  });
}
