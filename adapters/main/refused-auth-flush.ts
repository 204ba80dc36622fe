import type { VaultLogger } from './vault-options.js';

/**
 * Flushes the refused-authentication summary (src/application/refused-auth-summary.ts) every `everyMs`,
 * and once more on `stop`, so a shutdown loses no refusal it had counted. A failed flush is logged; its
 * tallies are gone, the counter in /metrics still has them.
 */
export function startRefusedAuthFlush(summary: { flush(): Promise<number> }, everyMs: number, logger: VaultLogger): { stop(): Promise<void> } {
  const flush = () =>
    summary.flush().then(
      () => undefined,
      (error: unknown) => logger.error({ err: error instanceof Error ? error.message : String(error) }, 'could not record the summary of refused authentications'),
    );
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(flush);
  }, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await (running = running.then(flush));
    },
  };
}
