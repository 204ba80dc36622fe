import { isDomainError } from '../../src/domain/errors.js';
import { STATUS_BY_CODE } from './error-status.js';
import type { HttpDeps } from './http-app.js';
import { RateLimitedError } from './rate-limiter.js';

/**
 * Any error as the status and message a client sees. DomainErrors keep their message; anything else is
 * a 500 that says only "internal error" and the request id, and is logged here.
 */
export function toErrorResponse(
  error: unknown,
  requestId: string,
  logger: HttpDeps['logger'],
): { status: number; message: string; headers?: Record<string, string> } {
  if (error instanceof RateLimitedError) {
    return { status: STATUS_BY_CODE[error.code], message: error.message, headers: { 'Retry-After': String(error.retryAfterSeconds) } };
  }
  if (isDomainError(error)) {
    const status = STATUS_BY_CODE[error.code];
    if (status >= 500) {
      // A message made safe for an unauthenticated caller keeps the details in its cause, for the log.
      const cause = error.cause instanceof Error ? error.cause.message : undefined;
      logger.warn({ requestId, code: error.code, err: error.message, ...(cause === undefined ? {} : { cause }) }, 'dependency failure');
    }
    // The code only: messages echo the caller's input, which has no place in the logs.
    else logger.debug?.({ requestId, code: error.code, status }, 'request refused');
    return { status, message: error.message };
  }
  if (error instanceof URIError) {
    // Express could not percent-decode a path parameter (`/vaults/%/wallets`): as the sign fast path does.
    return { status: STATUS_BY_CODE.ROUTE_NOT_FOUND, message: 'no route: malformed percent-encoding in path' };
  }
  if (isBodyParserError(error)) {
    return error.status === 413
      ? { status: 413, message: `request body is larger than the limit of ${error.limit ?? 'the configured'} bytes` }
      : { status: 400, message: 'request body could not be read' };
  }
  const e = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { message: String(error) };
  logger.error({ requestId, err: e }, 'unexpected error');
  return { status: 500, message: `internal error (request id ${requestId})` };
}

function isBodyParserError(e: unknown): e is { status: number; type: string; limit?: number } {
  return typeof e === 'object' && e !== null && typeof (e as { type?: unknown }).type === 'string' && typeof (e as { status?: unknown }).status === 'number';
}
