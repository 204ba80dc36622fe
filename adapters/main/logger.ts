import { pino, type DestinationStream, type Logger } from 'pino';
import { currentRequestContext } from '../http/request-context.js';

export type { Logger };

/**
 * JSON logs on stdout. Every line written while serving a request carries its `requestId` (from the
 * request's async context), whichever code wrote it. Redaction is a second line of defence: no code path
 * logs headers or bodies, but should one ever do, credentials are blanked before they reach the sink.
 */
export function createLogger(level: string, destination: 1 | 2 | DestinationStream = 1): Logger {
  return pino(
    {
    level,
    base: { service: 'wallet-vault' },
    mixin: () => {
      const context = currentRequestContext();
      return context ? { requestId: context.requestId } : {};
    },
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
    typeof destination === 'number' ? pino.destination(destination) : destination,
  );
}
