import { pino, type DestinationStream, type Logger } from 'pino';
import { GuardedLogDestination } from './log-destination.js';

export type { Logger };

/**
 * JSON logs on stdout. Lines written while serving a request name its `requestId` themselves (the HTTP
 * adapter's request line and error lines); no async context supplies it, because AsyncLocalStorage costs
 * the sign path 10 to 15 % of its CPU on Node 20 (adapters/http/observed-requests.ts). Redaction is a second line of defence: no code path
 * logs headers or bodies, but should one ever do, credentials are blanked before they reach the sink.
 */
export function createLogger(level: string, destination: 1 | 2 | DestinationStream = 1): Logger {
  const guarded = typeof destination === 'number' ? guardedStdio(destination) : undefined;
  const logger = pino(
    {
    level,
    base: { service: 'wallet-vault' },
    redact: {
      paths: [
        'authorization',
        '*.authorization',
        'headers.authorization',
        '*.headers.authorization',
        '*["x-vault-auth-signature"]',
        'headers["x-vault-auth-signature"]',
        'apiKey',
        '*.apiKey',
        'secret',
        '*.secret',
        'masterKey',
        '*.masterKey',
        'privateKey',
        '*.privateKey',
      ],
      censor: '[redacted]',
    },
    },
    guarded ?? (destination as DestinationStream),
  );
  if (guarded) guarded.onCaughtUp = (dropped) => logger.warn({ dropped }, 'log lines dropped: stdout was not read (its reader was slow or stalled)');
  return logger;
}

/**
 * stdout (1) or stderr (2) behind the guard of log-destination.ts, one guard for each in the process (every
 * logger on stdout shares its queue, its bound and its count). Neither stream may ever throw at the
 * process: an error on either (EPIPE once the reader is gone) is the guard's to count, or ignored.
 */
const guards = new Map<1 | 2, GuardedLogDestination>();
function guardedStdio(fd: 1 | 2): GuardedLogDestination {
  if (guards.size === 0) process.stderr.on('error', () => {});
  let guard = guards.get(fd);
  if (!guard) guards.set(fd, (guard = new GuardedLogDestination(fd === 1 ? process.stdout : process.stderr)));
  return guard;
}

/** The guarded destination of a logger createLogger made for stdout or stderr (its children share it). */
export function logDestinationOf(logger: Logger): GuardedLogDestination | undefined {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  return stream instanceof GuardedLogDestination ? stream : undefined;
}

/**
 * Waits for the log lines still queued for a slow reader, at most `withinMs`: exit never waits longer on
 * stdout, whatever its reader does.
 */
export async function settleLog(logger: Logger, withinMs: number): Promise<void> {
  await logDestinationOf(logger)?.settle(withinMs);
}
