import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stdout. Redaction is a second line of defence: no code path logs headers or bodies, but
 * should one ever do, credentials are blanked before they reach the sink.
 */
export function createLogger(level: string, destination: 1 | 2 = 1): Logger {
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
    pino.destination(destination),
  );
}
