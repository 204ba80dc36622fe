import type { UnreadableCredential } from '../../src/application/authenticate.use-case.js';

/**
 * The API key of `Authorization: Bearer <key>`, or why the header holds none (missing, malformed, another
 * scheme), in the words the interface has always used: the use case counts the refusal, the wording is HTTP's.
 */
export function bearerCredential(authorization: string | undefined): string | UnreadableCredential {
  if (authorization === undefined || authorization.trim() === '') {
    return { reason: 'missing_header', message: 'missing Authorization header (expected "Bearer <API key>")' };
  }
  const match = /^(\S+)\s+(\S+)$/.exec(authorization.trim());
  if (!match) return { reason: 'malformed_header', message: 'malformed Authorization header (expected "Bearer <API key>")' };
  if (match[1]!.toLowerCase() !== 'bearer') return { reason: 'not_bearer', message: 'Authorization must use the Bearer scheme' };
  return match[2]!;
}
