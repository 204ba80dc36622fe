import { ErrorCode } from '../../src/domain/errors.js';

/** The only table that turns an error code into an HTTP status. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  [ErrorCode.INVALID_ARGUMENT]: 400,
  [ErrorCode.MALFORMED_JSON]: 400,
  [ErrorCode.UNAUTHENTICATED]: 401,
  [ErrorCode.POLICY_DENIED]: 403,
  [ErrorCode.ROLE_REQUIRED]: 403,
  [ErrorCode.FORBIDDEN_NETWORK]: 403,
  [ErrorCode.WALLET_NOT_FOUND]: 404,
  [ErrorCode.VAULT_NOT_FOUND]: 404,
  [ErrorCode.SUBMISSION_NOT_FOUND]: 404,
  [ErrorCode.ROUTE_NOT_FOUND]: 404,
  [ErrorCode.IDEMPOTENCY_CONFLICT]: 409,
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [ErrorCode.HEADERS_TOO_LARGE]: 431,
  [ErrorCode.REQUEST_TIMEOUT]: 408,
  [ErrorCode.RATE_LIMITED]: 429,
  [ErrorCode.SIGN_LIMIT_REACHED]: 429,
  [ErrorCode.CHAIN_UNAVAILABLE]: 502,
  [ErrorCode.KEYSTORE_UNAVAILABLE]: 503,
  [ErrorCode.DATABASE_UNAVAILABLE]: 503,
  [ErrorCode.INTERNAL]: 500,
};
