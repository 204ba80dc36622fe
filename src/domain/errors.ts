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
  /** A known path asked with a method it does not serve (`Allow` lists those it does). */
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  IDEMPOTENCY_CONFLICT: 'IDEMPOTENCY_CONFLICT',
  CONFLICT: 'CONFLICT',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  RATE_LIMITED: 'RATE_LIMITED',
  SIGN_LIMIT_REACHED: 'SIGN_LIMIT_REACHED',
  /** No approval of this id in the vault. */
  APPROVAL_NOT_FOUND: 'APPROVAL_NOT_FOUND',
  /** The approval was rejected: its sign is never made. */
  APPROVAL_REJECTED: 'APPROVAL_REJECTED',
  /** The approval expired before its quorum: its sign is never made. */
  APPROVAL_EXPIRED: 'APPROVAL_EXPIRED',
  /** The requesting key voting on its own request. */
  APPROVAL_SELF_VOTE: 'APPROVAL_SELF_VOTE',
  /** The voting key is not of the approver group the approval's rule names. */
  APPROVER_NOT_IN_GROUP: 'APPROVER_NOT_IN_GROUP',
  /** The key has already voted on this approval. */
  APPROVAL_ALREADY_VOTED: 'APPROVAL_ALREADY_VOTED',
  /** The approval is decided (approved or rejected): it takes no more votes. */
  APPROVAL_CLOSED: 'APPROVAL_CLOSED',
  /** A vote of an approver key with a credential whose signature is missing, malformed or not its EIP-712 Decision. */
  APPROVAL_SIGNATURE_INVALID: 'APPROVAL_SIGNATURE_INVALID',
  CHAIN_UNAVAILABLE: 'CHAIN_UNAVAILABLE',
  /** A chain RPC's answer the JSON-RPC endpoint relays is over its byte cap (per call, or per batch). */
  RPC_ANSWER_TOO_LARGE: 'RPC_ANSWER_TOO_LARGE',
  KEYSTORE_UNAVAILABLE: 'KEYSTORE_UNAVAILABLE',
  DATABASE_UNAVAILABLE: 'DATABASE_UNAVAILABLE',
  INTERNAL: 'INTERNAL',
  // Signed decisions (docs/governance.md).
  /** A governed vault whose state in force does not verify (pin, chain of signed changes, policy row): it signs nothing. */
  GOVERNANCE_UNVERIFIED: 'GOVERNANCE_UNVERIFIED',
  /** The vault is frozen (`wallet-vault freeze`): it signs nothing until the freeze is lifted. */
  VAULT_FROZEN: 'VAULT_FROZEN',
  /**
   * The wallet's row does not match the vault, key store and key its key was bound to (or carries no
   * binding): a change made in the database. The wallet signs nothing until an operator acts (docs/security.md).
   */
  WALLET_BINDING_INVALID: 'WALLET_BINDING_INVALID',
  /**
   * The database holds fewer signs under a sign limit than this instance counted in its window: its rows
   * were deleted or changed in the database. Refused until those signs leave the window (docs/security.md).
   */
  SIGN_LIMIT_RECORDS_MISSING: 'SIGN_LIMIT_RECORDS_MISSING',
  /**
   * A held request's row does not carry its wallet's seal over its requester, expiry and request (a change
   * made in the database, or a request held before seals): it is never released (docs/security.md).
   */
  APPROVAL_RECORD_INVALID: 'APPROVAL_RECORD_INVALID',
  PROPOSAL_NOT_FOUND: 'PROPOSAL_NOT_FOUND',
  /** The proposal is applied, rejected or superseded: it takes no more votes. */
  PROPOSAL_CLOSED: 'PROPOSAL_CLOSED',
  /** The transaction (or Sign call) was simulated on its chain before signing and reverts: nothing signed. */
  SIMULATION_REVERTED: 'SIMULATION_REVERTED',
  /** A key import (`wallet-vault keys import`, vault.keys.import) into a key store that cannot take keys in: the message names the store. */
  KEYSTORE_IMPORT_UNSUPPORTED: 'KEYSTORE_IMPORT_UNSUPPORTED',
  /** The approvers' console is not enabled (no VAULT_PUBLIC_URL) or this persistence holds no console tables. */
  CONSOLE_UNAVAILABLE: 'CONSOLE_UNAVAILABLE',
  /** A state-changing console request without `X-Requested-With: wallet-vault-console` (CSRF belt and braces). */
  CONSOLE_CSRF_HEADER_MISSING: 'CONSOLE_CSRF_HEADER_MISSING',
  /** VAULT_SEAL=shamir and the master key not (yet, or no longer) unsealed: nothing is signed (docs/keystores.md#sealed-start). */
  VAULT_SEALED: 'VAULT_SEALED',
  /** VAULT_AUDIT_REQUIRE_SINK: a write refused, nothing written, while no configured audit sink accepts records. */
  AUDIT_SINK_UNAVAILABLE: 'AUDIT_SINK_UNAVAILABLE',
  /** Operator sign-in with OpenID Connect is not configured (VAULT_OIDC_ISSUER), or the identity provider cannot be reached. */
  OIDC_UNAVAILABLE: 'OIDC_UNAVAILABLE',
  /** A key export (`wallet-vault keys export`) from a key store whose keys never leave it (KMS, HSM): the message names the store. */
  KEYSTORE_EXPORT_UNSUPPORTED: 'KEYSTORE_EXPORT_UNSUPPORTED',
  /** A key export of a governed vault without a proposal in force that allows it (M signatures and the delay): the message names the proposal. */
  EXPORT_NOT_AUTHORIZED: 'EXPORT_NOT_AUTHORIZED',
  /** A limit in dollars priced by a feed whose last answer is older than its maxAgeSeconds (or not positive): nothing signed, the message names the feed. */
  PRICE_FEED_STALE: 'PRICE_FEED_STALE',
  /** A limit in dollars priced by a feed that cannot be read (no RPC for the chain, a call that fails or answers nonsense): fails closed, naming the feed. */
  PRICE_FEED_UNAVAILABLE: 'PRICE_FEED_UNAVAILABLE',
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

const CAUSE_DEPTH = 4;
const CAUSE_LENGTH = 300;

/**
 * What caused `error`, for a log line: each cause's code and message, outermost first (`SQLITE_ERROR: no
 * such column: approver_address`), where a DomainError's own message (`database unavailable`) hides the
 * driver's. Undefined when it has no cause. Bounded in depth and length, and runs of 40 or more hex digits
 * (keys, signatures, hashes a driver may quote from a statement's values) are elided: never key material.
 */
export function describeCauses(error: unknown): string | undefined {
  const causes: string[] = [];
  for (let e = (error as { cause?: unknown } | null)?.cause; e !== undefined && e !== null && causes.length < CAUSE_DEPTH; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    const message = e instanceof Error ? e.message : String(e);
    causes.push(typeof code === 'string' && !message.startsWith(code) ? `${code}: ${message}` : message);
  }
  if (causes.length === 0) return undefined;
  return causes
    .join(' <- ')
    .replace(/(0x)?[0-9a-fA-F]{40,}/g, '[hex elided]')
    .slice(0, CAUSE_LENGTH);
}
