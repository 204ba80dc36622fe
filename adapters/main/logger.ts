import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stdout. Lines written while serving a request name its `requestId` themselves (the HTTP
 * adapter's request line and error lines); no async context supplies it, because AsyncLocalStorage costs
 * the sign path 10 to 15 % of its CPU on Node 20 (adapters/http/observed-requests.ts). Redaction is a second line of defence: no code path
 * logs headers or bodies, but should one ever do, credentials are blanked before they reach the sink.
 */
export function createLogger(level: string, destination: 1 | 2 | DestinationStream = 1): Logger {
  return pino(
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
    typeof destination === 'number' ? pino.destination(destination) : destination,
  );
}
