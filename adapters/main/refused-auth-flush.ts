import type { FlushResult } from '../../src/application/access/refused-auth-summary.js';
import { escapeControlCharacters } from '../../src/domain/unicode.js';
import type { VaultLogger } from './vault-logger.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Flushes the refused-authentication summary (src/application/access/refused-auth-summary.ts) every `everyMs`,
 * and once more on `stop`, so a shutdown loses no refusal it had counted. Each source's record stands
 * alone: one that could not be written is logged (its source, count and error; never a key), the others
 * are written. A lost record's tally is gone; the counter in /metrics still has it.
 */
export function startRefusedAuthFlush(summary: { flush(): Promise<FlushResult> }, everyMs: number, logger: VaultLogger): { stop(): Promise<void> } {
  const flush = () =>
    summary.flush().then(
      ({ lost }) => {
        for (const { source, count, error } of lost) {
          logger.error({ source: escapeControlCharacters(source), count, err: messageOf(error) }, 'could not record the summary of refused authentications of one source');
        }
      },
      (error: unknown) => logger.error({ err: messageOf(error) }, 'could not record the summary of refused authentications'),
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
