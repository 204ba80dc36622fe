/**
 * The `code` of every error answer: the server's ErrorCode values, written out here because the client
 * imports nothing of the server (test/client/error-codes.test.ts holds the two lists equal, so a code the
 * server gains fails that test until it is listed here). Stable across releases: a program acts on these,
 * not on the wording of `message`.
 */
export const VAULT_ERROR_CODES = [
  'INVALID_ARGUMENT',
  'MALFORMED_JSON',
  'UNAUTHENTICATED',
  'POLICY_DENIED',
  'ROLE_REQUIRED',
  'FORBIDDEN_NETWORK',
  'WALLET_NOT_FOUND',
  'VAULT_NOT_FOUND',
  'SUBMISSION_NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'IDEMPOTENCY_CONFLICT',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'HEADERS_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'RATE_LIMITED',
  'SIGN_LIMIT_REACHED',
  'APPROVAL_NOT_FOUND',
  'APPROVAL_REJECTED',
  'APPROVAL_EXPIRED',
  'APPROVAL_SELF_VOTE',
  'APPROVER_NOT_IN_GROUP',
  'APPROVAL_SIGNATURE_INVALID',
  'APPROVAL_ALREADY_VOTED',
  'APPROVAL_CLOSED',
  'CHAIN_UNAVAILABLE',
  'RPC_ANSWER_TOO_LARGE',
  'KEYSTORE_UNAVAILABLE',
  'DATABASE_UNAVAILABLE',
  'INTERNAL',
  'GOVERNANCE_UNVERIFIED',
  'VAULT_FROZEN',
  'WALLET_BINDING_INVALID',
  'SIGN_LIMIT_RECORDS_MISSING',
  'APPROVAL_RECORD_INVALID',
  'PROPOSAL_NOT_FOUND',
  'PROPOSAL_CLOSED',
  'SIMULATION_REVERTED',
  'KEYSTORE_IMPORT_UNSUPPORTED',
  'KEYSTORE_EXPORT_UNSUPPORTED',
  'EXPORT_NOT_AUTHORIZED',
  'CONSOLE_UNAVAILABLE',
  'CONSOLE_CSRF_HEADER_MISSING',
  'VAULT_SEALED',
  'AUDIT_SINK_UNAVAILABLE',
  'OIDC_UNAVAILABLE',
  'PRICE_FEED_STALE',
  'PRICE_FEED_UNAVAILABLE',
  // Not an ErrorCode of an answer's envelope: a request held for approval (202), the JSON-RPC endpoint's
  // `data.code` for it and every ApprovalPendingError's code, so a program branches on it as on the others.
  'APPROVAL_PENDING',
] as const;

export type VaultErrorCode = (typeof VAULT_ERROR_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(VAULT_ERROR_CODES);

export const isVaultErrorCode = (value: unknown): value is VaultErrorCode => typeof value === 'string' && KNOWN.has(value);
