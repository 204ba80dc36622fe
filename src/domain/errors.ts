/**
 * The one error type of the service. `code` is stable and machine-readable (every error answer carries
 * it beside the message, and the client's VaultErrorCode lists the same values); the HTTP adapter holds
 * the only table that maps codes to statuses. Messages are for people and must never carry key material,
 * API keys or secrets.
 */
export const ErrorCode = {
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  MALFORMED_JSON: 'MALFORMED_JSON',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  POLICY_DENIED: 'POLICY_DENIED',
  /** The API key lacks the role the operation needs (admin, signer, reader, approver). */
  ROLE_REQUIRED: 'ROLE_REQUIRED',
  /** The API key is bound to networks the client address is not in. */
  FORBIDDEN_NETWORK: 'FORBIDDEN_NETWORK',
  WALLET_NOT_FOUND: 'WALLET_NOT_FOUND',
  VAULT_NOT_FOUND: 'VAULT_NOT_FOUND',
  SUBMISSION_NOT_FOUND: 'SUBMISSION_NOT_FOUND',
  ROUTE_NOT_FOUND: 'ROUTE_NOT_FOUND',
  IDEMPOTENCY_CONFLICT: 'IDEMPOTENCY_CONFLICT',
  CONFLICT: 'CONFLICT',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  RATE_LIMITED: 'RATE_LIMITED',
  SIGN_LIMIT_REACHED: 'SIGN_LIMIT_REACHED',
  CHAIN_UNAVAILABLE: 'CHAIN_UNAVAILABLE',
  KEYSTORE_UNAVAILABLE: 'KEYSTORE_UNAVAILABLE',
  DATABASE_UNAVAILABLE: 'DATABASE_UNAVAILABLE',
  INTERNAL: 'INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class DomainError extends Error {
  override readonly name = 'DomainError';
  /** When a retry could succeed, for a refusal that passes with time (a limit): `Retry-After` over HTTP. */
  readonly retryAfterSeconds?: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options);
    if (options?.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const invalidArgument = (message: string): DomainError =>
  new DomainError(ErrorCode.INVALID_ARGUMENT, message);

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
