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
  [ErrorCode.METHOD_NOT_ALLOWED]: 405,
  [ErrorCode.IDEMPOTENCY_CONFLICT]: 409,
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [ErrorCode.HEADERS_TOO_LARGE]: 431,
  [ErrorCode.REQUEST_TIMEOUT]: 408,
  [ErrorCode.RATE_LIMITED]: 429,
  [ErrorCode.SIGN_LIMIT_REACHED]: 429,
  [ErrorCode.APPROVAL_NOT_FOUND]: 404,
  [ErrorCode.APPROVAL_REJECTED]: 403,
  [ErrorCode.APPROVAL_EXPIRED]: 403,
  [ErrorCode.APPROVAL_SELF_VOTE]: 403,
  [ErrorCode.APPROVER_NOT_IN_GROUP]: 403,
  [ErrorCode.APPROVAL_ALREADY_VOTED]: 409,
  [ErrorCode.APPROVAL_CLOSED]: 409,
  [ErrorCode.APPROVAL_SIGNATURE_INVALID]: 403,
  [ErrorCode.CHAIN_UNAVAILABLE]: 502,
  // The upstream's answer is what cannot be passed on (the JSON-RPC endpoint answers it inside its 200).
  [ErrorCode.RPC_ANSWER_TOO_LARGE]: 502,
  [ErrorCode.KEYSTORE_UNAVAILABLE]: 503,
  [ErrorCode.DATABASE_UNAVAILABLE]: 503,
  [ErrorCode.INTERNAL]: 500,
  // The vault's own state is what cannot be trusted, not the request: an operator must act (docs/governance.md).
  [ErrorCode.GOVERNANCE_UNVERIFIED]: 503,
  [ErrorCode.AUDIT_SINK_UNAVAILABLE]: 503,
  [ErrorCode.VAULT_FROZEN]: 403,
  // Refused for good, whoever asks: the row was changed in the database, and no retry or other request fixes that.
  [ErrorCode.WALLET_BINDING_INVALID]: 403,
  [ErrorCode.SIGN_LIMIT_RECORDS_MISSING]: 403,
  [ErrorCode.APPROVAL_RECORD_INVALID]: 403,
  [ErrorCode.PROPOSAL_NOT_FOUND]: 404,
  [ErrorCode.PROPOSAL_CLOSED]: 409,
  // Well formed and allowed, but it would fail on chain: the request, not the service, is what to change.
  [ErrorCode.SIMULATION_REVERTED]: 422,
  // The request is understood and the store answers; this store cannot do it (another store can).
  [ErrorCode.KEYSTORE_IMPORT_UNSUPPORTED]: 422,
  [ErrorCode.KEYSTORE_EXPORT_UNSUPPORTED]: 422,
  [ErrorCode.EXPORT_NOT_AUTHORIZED]: 403,
  [ErrorCode.CONSOLE_UNAVAILABLE]: 503,
  [ErrorCode.CONSOLE_CSRF_HEADER_MISSING]: 403,
  // The service cannot sign until custodians unseal it: retry once unsealed (another instance may be).
  [ErrorCode.VAULT_SEALED]: 503,
  // The identity provider (or its configuration) is what is missing: the operator's token may be fine.
  [ErrorCode.OIDC_UNAVAILABLE]: 503,
  // A limit in dollars cannot be held without its price: the feed (a dependency) is what must answer again.
  [ErrorCode.PRICE_FEED_STALE]: 503,
  [ErrorCode.PRICE_FEED_UNAVAILABLE]: 502,
};
