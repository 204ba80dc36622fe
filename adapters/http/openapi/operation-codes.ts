import { ErrorCode } from '../../../src/domain/errors.js';

/*
 * Which error codes each operation can answer: the one table to extend when a code is added or an
 * operation learns a new refusal. The OpenAPI document derives each operation's error statuses from it
 * (through STATUS_BY_CODE) and lists, per status, exactly these codes; the conformance check the HTTP
 * tests run on every answer then refuses a code an operation does not list.
 */

const C = ErrorCode;

/** Refused by node before any route (a malformed or slow request, headers over the limit), or unexpected. */
const ANY_REQUEST = [C.INVALID_ARGUMENT, C.REQUEST_TIMEOUT, C.HEADERS_TOO_LARGE, C.INTERNAL] as const;
/**
 * Every route under /api/v1/vaults/{vaultId}: authentication (which reads the database), a key bound to
 * other networks, a key without the route's role, the per-address and per-key rate limits, a path that
 * does not percent-decode.
 */
const IN_VAULT = [...ANY_REQUEST, C.UNAUTHENTICATED, C.FORBIDDEN_NETWORK, C.ROLE_REQUIRED, C.RATE_LIMITED, C.ROUTE_NOT_FOUND, C.DATABASE_UNAVAILABLE] as const;
/** A write (any method but GET, HEAD, OPTIONS) while VAULT_AUDIT_REQUIRE_SINK is set and no audit sink accepts records. */
const AUDITED_WRITE = [C.AUDIT_SINK_UNAVAILABLE] as const;
/** Routes that read a JSON body (every one of them a POST or PUT, so an audited write). */
const WITH_BODY = [...IN_VAULT, C.MALFORMED_JSON, C.PAYLOAD_TOO_LARGE, ...AUDITED_WRITE] as const;
/**
 * A vault whose signed governance does not verify (docs/governance.md) or that is frozen refuses every
 * sign, wherever it is asked: the routes, a release, the dry run.
 */
const GOVERNED = [C.GOVERNANCE_UNVERIFIED, C.VAULT_FROZEN] as const;
/** A signature of a wallet whose row does not match its key's binding (docs/security.md): refused at the key store, wherever it is asked but the dry run. */
const BOUND = [C.WALLET_BINDING_INVALID, C.VAULT_SEALED] as const;
/** A sign under the vault's limits: one over a limit, or whose counts in the database are fewer than this instance counted. */
const LIMITED = [C.SIGN_LIMIT_REACHED, C.SIGN_LIMIT_RECORDS_MISSING, C.PRICE_FEED_STALE, C.PRICE_FEED_UNAVAILABLE] as const;
/** Standard signing with a wallet: the policy, the wallet (unknown or expired), its key store. */
// A limit counts every kind; a repeat of a held request (its Idempotency-Key) answers as Sign's does.
const STANDARD_SIGN = [
  ...WITH_BODY,
  ...GOVERNED,
  ...BOUND,
  C.POLICY_DENIED,
  C.SIGN_LIMIT_REACHED,
  // A limit in dollars priced by a feed that is stale or cannot be read.
  C.PRICE_FEED_STALE,
  C.PRICE_FEED_UNAVAILABLE,
  C.WALLET_NOT_FOUND,
  C.KEYSTORE_UNAVAILABLE,
  C.IDEMPOTENCY_CONFLICT,
  C.APPROVAL_REJECTED,
  C.APPROVAL_EXPIRED,
  C.CONFLICT,
] as const;
/** Rename, expire, unexpire: the wallet must exist, and a change that loses its race too often is 409. */
const CHANGE = [C.WALLET_NOT_FOUND, C.CONFLICT] as const;

/** A vote: the approval must exist, be open, and the key be neither its requester nor outside its group, nor have voted. */
const VOTE = [C.APPROVAL_NOT_FOUND, C.APPROVAL_SELF_VOTE, C.APPROVER_NOT_IN_GROUP, C.APPROVAL_ALREADY_VOTED, C.APPROVAL_CLOSED, C.APPROVAL_EXPIRED, C.APPROVAL_SIGNATURE_INVALID, C.APPROVAL_RECORD_INVALID] as const;

/**
 * A signed vote on a governance proposal (docs/governance.md): the proposal must exist and be pending, the
 * signature recover to an approver of the state in force (missing or wrong: APPROVAL_SIGNATURE_INVALID),
 * once per address; a vault whose governance does not verify takes no vote; a persistence of an earlier
 * release keeps no governance (CONFLICT).
 */
const PROPOSAL_VOTE = [
  ...WITH_BODY,
  C.PROPOSAL_NOT_FOUND,
  C.PROPOSAL_CLOSED,
  C.APPROVAL_SIGNATURE_INVALID,
  C.APPROVAL_ALREADY_VOTED,
  C.GOVERNANCE_UNVERIFIED,
  C.CONFLICT,
] as const;

/**
 * The admin API (docs/operators.md): the operator's credential or OpenID Connect token (401; 503 OIDC_UNAVAILABLE when the
 * identity provider cannot be reached to check a token), its role or vault scope (403
 * ROLE_REQUIRED), the per-address limit, a database that cannot answer; with a body, its reading.
 */
const ADMIN = [...ANY_REQUEST, C.UNAUTHENTICATED, C.ROLE_REQUIRED, C.RATE_LIMITED, C.DATABASE_UNAVAILABLE, C.OIDC_UNAVAILABLE] as const;
const ADMIN_WITH_BODY = [...ADMIN, C.MALFORMED_JSON, C.PAYLOAD_TOO_LARGE] as const;
/** An action on one vault: the vault must exist. */
const ADMIN_VAULT = [...ADMIN, C.VAULT_NOT_FOUND] as const;
const ADMIN_VAULT_WITH_BODY = [...ADMIN_WITH_BODY, C.VAULT_NOT_FOUND] as const;
/** A change a governed vault's state owns: its governance must verify (else 503), and a proposal can conflict. */
const ADMIN_GOVERNED = [C.GOVERNANCE_UNVERIFIED, C.CONFLICT] as const;

export const ERROR_CODES_BY_OPERATION = {
  // A repeat of a held sign (its Idempotency-Key) answers the approval's end: rejected or expired.
  sign: [
    ...WITH_BODY,
    ...GOVERNED,
    ...BOUND,
    C.POLICY_DENIED,
    ...LIMITED,
    C.WALLET_NOT_FOUND,
    C.CHAIN_UNAVAILABLE,
    C.KEYSTORE_UNAVAILABLE,
    C.IDEMPOTENCY_CONFLICT,
    C.APPROVAL_REJECTED,
    C.APPROVAL_EXPIRED,
    C.CONFLICT,
    // `simulate: true`: the call run with its signature in place reverts.
    C.SIMULATION_REVERTED,
  ],
  listWallets: [...IN_VAULT],
  createWallet: [...WITH_BODY, C.IDEMPOTENCY_CONFLICT, C.VAULT_NOT_FOUND, C.KEYSTORE_UNAVAILABLE, C.VAULT_SEALED, ...BOUND],
  getWallet: [...IN_VAULT, C.WALLET_NOT_FOUND],
  renameWallet: [...WITH_BODY, ...CHANGE],
  expireWallet: [...IN_VAULT, ...AUDITED_WRITE, ...CHANGE],
  unexpireWallet: [...IN_VAULT, ...AUDITED_WRITE, ...CHANGE],
  status: [...IN_VAULT],
  recordSubmission: [...WITH_BODY, C.SUBMISSION_NOT_FOUND, C.CONFLICT],
  getSubmission: [...IN_VAULT, C.SUBMISSION_NOT_FOUND],
  signMessage: [...STANDARD_SIGN],
  signTypedData: [...STANDARD_SIGN],
  // Simulated before signing on a chain with an RPC: a revert is 422, an RPC that cannot answer 502.
  signTransaction: [...STANDARD_SIGN, C.CHAIN_UNAVAILABLE, C.SIMULATION_REVERTED],
  // EIP-7702: decided and signed as a message is (nothing asked of the chain).
  signAuthorization: [...STANDARD_SIGN],
  // A refusal of one call (policy, params, an unknown wallet) is a JSON-RPC error inside the 200; these are the service's,
  // but RPC_ANSWER_TOO_LARGE, listed here as the one operation whose calls can be refused with it (as data.code of a
  // JSON-RPC error inside the 200, never as an HTTP status: it is one call's refusal, the batch's others answered).
  jsonRpc: [...WITH_BODY, ...GOVERNED, ...BOUND, C.CHAIN_UNAVAILABLE, C.KEYSTORE_UNAVAILABLE, C.RPC_ANSWER_TOO_LARGE],
  // The dry run reads the request as its route would (a call's uniq and signer from the chain): it refuses what that route refuses, never POLICY_DENIED (a deny is its answer).
  evaluatePolicy: [...WITH_BODY, ...GOVERNED, C.WALLET_NOT_FOUND, C.CHAIN_UNAVAILABLE],
  listApprovals: [...IN_VAULT],
  getApproval: [...IN_VAULT, C.APPROVAL_NOT_FOUND],
  // A vote, and for the approve that completes the quorum, the release: what Sign can answer besides.
  approveApproval: [...WITH_BODY, ...VOTE, ...GOVERNED, ...BOUND, C.POLICY_DENIED, ...LIMITED, C.WALLET_NOT_FOUND, C.CHAIN_UNAVAILABLE, C.KEYSTORE_UNAVAILABLE, C.CONFLICT, C.SIMULATION_REVERTED],
  rejectApproval: [...WITH_BODY, ...VOTE],
  getGovernance: [...IN_VAULT, C.CONFLICT],
  // A vault whose governance does not verify shows no proposal: what they would change is measured against a state that cannot be trusted.
  listProposals: [...IN_VAULT, C.GOVERNANCE_UNVERIFIED],
  getProposal: [...IN_VAULT, C.PROPOSAL_NOT_FOUND, C.GOVERNANCE_UNVERIFIED],
  approveProposal: [...PROPOSAL_VOTE],
  rejectProposal: [...PROPOSAL_VOTE],
  // No quorum, and a vault frozen already takes another freeze.
  freezeVault: [...WITH_BODY, C.CONFLICT],
  readyz: [C.DATABASE_UNAVAILABLE, C.KEYSTORE_UNAVAILABLE, C.VAULT_SEALED, C.INTERNAL],
  metrics: [C.UNAUTHENTICATED],
  // The key kept in the database is read on first use (none configured).
  webhookKeys: [C.DATABASE_UNAVAILABLE, C.INTERNAL],
  // Served only where the vault signs checkpoints: 404 with VAULT_SEAL=shamir (the key derives from the master key) or the interval 0.
  auditCheckpointKeys: [C.ROUTE_NOT_FOUND, C.INTERNAL],
  // VAULT_SEAL=shamir (docs/keystores.md#sealed-start): anyone may read the status and submit a share (a share is its own credential).
  sealStatus: [C.INTERNAL],
  unseal: [C.INVALID_ARGUMENT, C.MALFORMED_JSON, C.PAYLOAD_TOO_LARGE, C.RATE_LIMITED, C.CONFLICT, C.DATABASE_UNAVAILABLE, C.INTERNAL, ...AUDITED_WRITE],
  seal: [C.UNAUTHENTICATED, C.RATE_LIMITED, C.CONFLICT, C.DATABASE_UNAVAILABLE, C.INTERNAL, ...AUDITED_WRITE],
  adminListVaults: [...ADMIN],
  adminCreateVault: [...ADMIN_WITH_BODY, ...AUDITED_WRITE],
  adminListApiKeys: [...ADMIN_VAULT],
  adminCreateApiKey: [...ADMIN_VAULT_WITH_BODY, ...ADMIN_GOVERNED, ...AUDITED_WRITE],
  adminRevokeApiKey: [...ADMIN_VAULT, ...ADMIN_GOVERNED, ...AUDITED_WRITE],
  adminRotateApiKey: [...ADMIN_VAULT_WITH_BODY, ...ADMIN_GOVERNED, ...AUDITED_WRITE],
  adminSetApiKeyRoles: [...ADMIN_VAULT_WITH_BODY, ...ADMIN_GOVERNED, ...AUDITED_WRITE],
  adminGetPolicy: [...ADMIN_VAULT],
  adminSetPolicy: [...ADMIN_VAULT_WITH_BODY, ...ADMIN_GOVERNED, ...AUDITED_WRITE],
  // No quorum, and a vault frozen already takes another freeze.
  adminFreezeVault: [...ADMIN_VAULT_WITH_BODY, C.CONFLICT, ...AUDITED_WRITE],
  // The operators' OpenID Connect sign-in: not configured or the provider unreachable (503), the way back refused (401).
  adminSignIn: [...ANY_REQUEST, C.RATE_LIMITED, C.OIDC_UNAVAILABLE],
  adminSignInCallback: [...ANY_REQUEST, C.UNAUTHENTICATED, C.RATE_LIMITED, C.OIDC_UNAVAILABLE, C.DATABASE_UNAVAILABLE, AUDITED_WRITE[0]],
  // A proposal on a governed vault (its state must verify); lifted at once on another.
  adminUnfreezeVault: [...ADMIN_VAULT, ...ADMIN_GOVERNED, ...AUDITED_WRITE],
  // The console's tables and VAULT_PUBLIC_URL: without them, 503 CONSOLE_UNAVAILABLE.
  adminListApprovers: [...ADMIN_VAULT, C.CONSOLE_UNAVAILABLE, C.GOVERNANCE_UNVERIFIED],
  adminInviteApprover: [...ADMIN_VAULT_WITH_BODY, C.CONSOLE_UNAVAILABLE, C.GOVERNANCE_UNVERIFIED, ...AUDITED_WRITE],
  adminRevokeApprover: [...ADMIN_VAULT, ...ADMIN_GOVERNED, ...AUDITED_WRITE],
  adminListWebhooks: [...ADMIN_VAULT],
  adminAddWebhook: [...ADMIN_VAULT_WITH_BODY, ...ADMIN_GOVERNED, ...AUDITED_WRITE],
  adminRemoveWebhook: [...ADMIN_VAULT, ...ADMIN_GOVERNED, ...AUDITED_WRITE],
  adminReplayWebhook: [...ADMIN_VAULT_WITH_BODY, ...AUDITED_WRITE],
  adminGetGovernance: [...ADMIN_VAULT],
  adminSetGovernance: [...ADMIN_VAULT_WITH_BODY, ...ADMIN_GOVERNED, ...AUDITED_WRITE],
  adminListProposals: [...ADMIN_VAULT, C.GOVERNANCE_UNVERIFIED],
  adminGetProposal: [...ADMIN_VAULT, C.PROPOSAL_NOT_FOUND, C.GOVERNANCE_UNVERIFIED],
} as const satisfies Record<string, readonly ErrorCode[]>;

export type OperationWithErrors = keyof typeof ERROR_CODES_BY_OPERATION;

/** An unknown route: always this code. */
export const UNKNOWN_ROUTE_CODE = C.ROUTE_NOT_FOUND;

/**
 * A known path asked with a method it does not serve (405 with `Allow`): always this code, on every path,
 * before any authentication. Not an operation's own refusal, so not in the table above: the document
 * lists it once, as the shared response `MethodNotAllowed` every operation refers to for its path.
 */
export const WRONG_METHOD_CODE = C.METHOD_NOT_ALLOWED;
