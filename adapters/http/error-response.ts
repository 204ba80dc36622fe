import { describeCauses, ErrorCode, isDomainError } from '../../src/domain/errors.js';
import { STATUS_BY_CODE } from './error-status.js';
import type { HttpDeps } from './http-deps.js';

/** A refusal as the client reads it: the status follows from the code (STATUS_BY_CODE), never chosen apart. */
export interface ErrorResponse {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly headers?: Record<string, string>;
}

/**
 * The error envelope, written by every path that refuses a request (the Express app, Sign, node's
 * client errors, health and metrics): `success` and `error` as the interface defines them, then the
 * stable `code` a program acts on (decisions.md), in that order.
 */
export const errorEnvelope = (code: ErrorCode, message: string): { success: false; error: string; code: ErrorCode } => ({
  success: false,
  error: message,
  code,
});

/**
 * `Retry-After` of every 503: a dependency (the database, the key store) is away or the database pool
 * is full. A second is about one failover's reconnect attempt; clients that honour it spread their
 * retries instead of hammering a database that is coming back.
 */
export const UNAVAILABLE_RETRY_AFTER = { 'Retry-After': '1' } as const;

const refusal = (code: ErrorCode, message: string, headers?: Record<string, string>): ErrorResponse =>
  headers === undefined ? { status: STATUS_BY_CODE[code], code, message } : { status: STATUS_BY_CODE[code], code, message, headers };

/**
 * Any error as the status, code and message a client sees. DomainErrors keep their message; anything
 * else is a 500 that says only "internal error" and the request id, and is logged here.
 */
export function toErrorResponse(error: unknown, requestId: string, logger: HttpDeps['logger']): ErrorResponse {
  // A refusal that passes with time (a rate limit, a sign limit) says when.
  if (isDomainError(error) && error.retryAfterSeconds !== undefined) {
    return refusal(error.code, error.message, { 'Retry-After': String(error.retryAfterSeconds) });
  }
  if (isDomainError(error)) {
    const status = STATUS_BY_CODE[error.code];
    if (status >= 500) {
      // A message made safe for an unauthenticated caller keeps the details in its causes, for the log:
      // the driver's code and message under the vault's own (`database unavailable`).
      const cause = describeCauses(error);
      logger.warn({ requestId, code: error.code, err: error.message, ...(cause === undefined ? {} : { cause }) }, 'dependency failure');
    }
    // The code only: messages echo the caller's input, which has no place in the logs.
    else logger.debug?.({ requestId, code: error.code, status }, 'request refused');
    return refusal(error.code, error.message, status === 503 ? UNAVAILABLE_RETRY_AFTER : undefined);
  }
  if (error instanceof URIError) {
    // Express could not percent-decode a path parameter (`/vaults/%/wallets`): as the sign fast path does.
    return refusal(ErrorCode.ROUTE_NOT_FOUND, 'no route: malformed percent-encoding in path');
  }
  if (isBodyParserError(error)) {
    return error.status === 413
      ? refusal(ErrorCode.PAYLOAD_TOO_LARGE, `request body is larger than the limit of ${error.limit ?? 'the configured'} bytes`)
      : refusal(ErrorCode.MALFORMED_JSON, 'request body could not be read');
  }
  const e = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { message: String(error) };
  logger.error({ requestId, err: e }, 'unexpected error');
  return refusal(ErrorCode.INTERNAL, `internal error (request id ${requestId})`);
}

function isBodyParserError(e: unknown): e is { status: number; type: string; limit?: number } {
  return typeof e === 'object' && e !== null && typeof (e as { type?: unknown }).type === 'string' && typeof (e as { status?: unknown }).status === 'number';
}
