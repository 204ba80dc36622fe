import type { Authenticate } from '../../src/application/access/authenticate.use-case.js';
import type { Authorize } from '../../src/application/access/authorize.use-case.js';
import type { CreateWallet } from '../../src/application/wallets/create-wallet.use-case.js';
import type { ListWallets } from '../../src/application/wallets/list-wallets.use-case.js';
import type { GetWallet } from '../../src/application/wallets/get-wallet.use-case.js';
import type { RenameWallet } from '../../src/application/wallets/rename-wallet.use-case.js';
import type { ExpireWallet } from '../../src/application/wallets/expire-wallet.use-case.js';
import type { UnexpireWallet } from '../../src/application/wallets/unexpire-wallet.use-case.js';
import type { GetVaultStatus } from '../../src/application/vaults/get-vault-status.use-case.js';
import type { SignCall } from '../../src/application/signing/sign-call.use-case.js';
import type { GetApproval } from '../../src/application/approvals/get-approval.use-case.js';
import type { ListApprovals } from '../../src/application/approvals/list-approvals.use-case.js';
import type { VoteOnApproval } from '../../src/application/approvals/vote-on-approval.use-case.js';
import type { Governance } from '../../src/application/governance/governance.use-case.js';
import type { ConsoleEnrolment } from '../../src/application/console/console-enrolment.js';
import type { ConsoleSessions } from '../../src/application/console/console-sessions.js';
import type { ConsoleReview } from '../../src/application/console/console-review.js';
import type { ConsoleVotes } from '../../src/application/console/console-votes.js';
import type { EvaluatePolicy } from '../../src/application/signing/evaluate-policy.use-case.js';
import type { JsonRpcSigner } from '../../src/application/signing/json-rpc.use-case.js';
import type { VerifyAuthSignature } from '../../src/application/access/verify-auth-signature.use-case.js';
import type { RecordSubmission } from '../../src/application/signing/record-submission.use-case.js';
import type { GetSubmission } from '../../src/application/signing/get-submission.use-case.js';
import type { ManageOperators } from '../../src/application/access/manage-operators.use-case.js';
import type { ManageVaults } from '../../src/application/vaults/manage-vaults.use-case.js';
import type { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import type { KindUseCase } from '../../src/application/signing/kinds/registered-application-kinds.js';
import type { RegisteredSigningKind } from '../../src/domain/signing/kinds/registered-signing-kinds.js';
import type { ManageWebhooks } from '../../src/application/vaults/manage-webhooks.use-case.js';
import type { ConsoleInvites } from '../../src/application/console/console-invites.js';
import type { ClientAddressDeps } from './caller.js';
import type { JsonBounds } from './json-shape.js';
import type { AddressGuardDeps } from './rate-limits.js';

type StandardKind = Extract<RegisteredSigningKind, { readonly standard: true }>;

/**
 * Standard signing with a wallet (deny by default: the vault's policy must allow the payload), one entry
 * per standard kind of the registry, named by its route's operationId: each answers its result or, held
 * by a hold rule, `{ approval }` (202).
 */
export type StandardSigners = { readonly [K in StandardKind as K['route']['operationId']]: Pick<KindUseCase<K['name']>, 'execute'> };

/**
 * The use cases the routes and the pipeline call, each as the methods they call of the use case's own
 * class (a type-only import of src/application): a changed parameter fails to compile at the route that
 * passes the old ones, and nothing here restates a signature. The property names are USE_CASES' (the
 * composition root checks at compile time that its registry serves this).
 */
export interface UseCasePorts extends StandardSigners {
  /** `apiKey` from `Authorization: Bearer` (caller.ts); `source` is the client address (clientAddressOf), under which refusals are summarised. */
  authenticate: Pick<Authenticate, 'execute'>;
  /** Whether the caller's key holds the role a route declares (ROLE_REQUIRED, audited, when not). */
  authorize: Pick<Authorize, 'execute'>;
  createWallet: Pick<CreateWallet, 'execute'>;
  listWallets: Pick<ListWallets, 'execute'>;
  getWallet: Pick<GetWallet, 'execute'>;
  renameWallet: Pick<RenameWallet, 'execute'>;
  expireWallet: Pick<ExpireWallet, 'execute'>;
  unexpireWallet: Pick<UnexpireWallet, 'execute'>;
  getVaultStatus: Pick<GetVaultStatus, 'execute'>;
  /** `chains`: the chain names a Sign may give (its body's schema names them in its refusal). */
  signCall: Pick<SignCall, 'executeBody'>;
  /** Approvals: signs held for a quorum of approver keys. */
  listApprovals: Pick<ListApprovals, 'execute'>;
  getApproval: Pick<GetApproval, 'execute' | 'shownPolicy' | 'keyLabels'>;
  voteOnApproval: Pick<VoteOnApproval, 'execute'>;
  /** Governance (docs/governance.md): the state in force, proposals and their signed votes, freezes (`actor`: who, for the audit trail). */
  governance: Pick<Governance, 'show' | 'list' | 'get' | 'vote' | 'freeze' | 'set' | 'unfreeze'>;
  evaluatePolicy: Pick<EvaluatePolicy, 'execute'>;
  /** The JSON-RPC endpoint (`POST …/rpc`): one call at a time; `defaultChain` when a request names none. */
  jsonRpc: Pick<JsonRpcSigner, 'defaultChain' | 'answerBudget' | 'execute'>;
  verifyAuthSignature: Pick<VerifyAuthSignature, 'execute'>;
  /** The approvers' console (docs/console.md), by room: passkey enrolment, sessions, approvals decoded, and decided with a passkey. */
  consoleEnrolment?: Pick<ConsoleEnrolment, 'enrolOptions' | 'enrol'>;
  consoleSessions?: Pick<ConsoleSessions, 'publicUrl' | 'sessionOptions' | 'signIn' | 'session' | 'endSession'>;
  consoleReview?: Pick<ConsoleReview, 'approvals' | 'approval' | 'typedDataFields' | 'proposals' | 'proposal' | 'history'>;
  consoleVotes?: Pick<ConsoleVotes, 'decisionOptions' | 'vote'>;
  recordSubmission: Pick<RecordSubmission, 'execute'>;
  getSubmission: Pick<GetSubmission, 'execute'>;
  /** The admin API (docs/operators.md): an operator's credential checked, its roles and scope, each refusal audited. */
  manageOperators: Pick<ManageOperators, 'authenticate' | 'authorize' | 'beginSignIn' | 'completeSignIn' | 'signInPublicUrl'>;
  /** The admin API's vaults and API keys, each change audited under the operator's name. */
  manageVaults: Pick<ManageVaults, 'create' | 'list' | 'listApiKeys' | 'createApiKey' | 'revokeApiKey' | 'rotateApiKey' | 'setApiKeyRoles'>;
  /** The admin API's policy: the document in force, a whole document applied (a proposal on a governed vault). */
  managePolicies: Pick<ManagePolicies, 'export' | 'apply'>;
  /** The admin API's webhook endpoints (add, list, remove, replay), each change audited under the operator's name. */
  manageWebhooks: Pick<ManageWebhooks, 'add' | 'list' | 'remove' | 'replay'>;
  /** The admin API's approvers: one-time enrolment URLs (needs VAULT_PUBLIC_URL) and the enrolled approvers. */
  consoleInvites: Pick<ConsoleInvites, 'invite' | 'list'>;
}

/** What `GET /api/v1/sys/seal-status`, the unseal and the seal answer. */
export interface SealStatusView {
  readonly sealed: boolean;
  /** The threshold of the split whose shares are (or were last) submitted; null until one is. */
  readonly threshold: number | null;
  readonly progress: number;
}

/** The seal as the routes drive it (the local store's ShamirUnseal, given by the composition root). */
export interface SealControl {
  status(): SealStatusView;
  /** One share (a share file's text); refused INVALID_ARGUMENT or CONFLICT naming `share`. `client`: the caller's address, for the audit trail. */
  submit(share: unknown, client: string): Promise<SealStatusView>;
  /** Drops the key; `actor` is recorded. */
  seal(actor: string): Promise<SealStatusView>;
}

/**
 * What the HTTP layer needs: the use cases it calls (UseCasePorts) and its own settings and services.
 * A module of its own, so the error responses and the routes can name it without importing the pipeline.
 */
export interface HttpDeps extends UseCasePorts, ClientAddressDeps, AddressGuardDeps {
  /** The JWKS of the key webhook deliveries are signed with (`GET /.well-known/wallet-vault-webhook-keys`). */
  webhookKeys?: () => Promise<unknown>;
  /** The JWKS of the audit checkpoint key (`GET /.well-known/wallet-vault-audit-checkpoint-keys`); null: no checkpoints. */
  auditCheckpointKeys?: () => unknown;
  /** Resolves when the database and key stores answer; rejects otherwise. */
  readiness: () => Promise<void>;
  /**
   * VAULT_AUDIT_REQUIRE_SINK: throws AUDIT_SINK_UNAVAILABLE while no audit sink accepts records; the
   * pipeline asks it before a vault write (any method but GET, HEAD, OPTIONS) reads its body. Absent: never refused.
   */
  auditSinkGate?: () => void;
  /** Governed vaults whose state does not verify (each signs nothing), for `/readyz`'s body; absent: not reported. */
  governanceHealth?: () => Promise<{ readonly unverified: ReadonlyArray<{ readonly vault: string; readonly problem: string }> }>;
  logger: {
    debug?(o: object, m?: string): void;
    info(o: object, m?: string): void;
    warn(o: object, m?: string): void;
    error(o: object, m?: string): void;
  };
  bodyLimitBytes: number;
  /** Prometheus text for `GET /metrics`; without it the route does not exist. */
  metrics?: {
    exposition(): Promise<{ contentType: string; text: string }>;
    observeRateLimited(): void;
    observeAddressRateLimited?(): void;
    /** The shared rate-limit store failed a count or did not answer in time (the request was counted in this process instead). */
    observeRateLimitStoreFailed?(): void;
    /** Seconds the shared rate-limit store was skipped after failing (requests counted in this process meanwhile). */
    observeRateLimitStoreSkipped?(seconds: number): void;
  };
  /**
   * VAULT_METRICS_TOKEN: when set, `/metrics` answers only `Authorization: Bearer <token>`, and `/readyz`
   * says why a dependency is down only to that caller (others learn which one, never hosts or modules).
   */
  operatorToken?: string;
  /**
   * Per-API-key limit, taken after authentication on every vault route and on Sign; absent: no limit.
   * In process it answers synchronously; counted in a shared store it returns a promise.
   */
  rateLimiter?: { take(apiKeyId: string): void | Promise<void> };
  /**
   * VAULT_SEAL=shamir: the unseal of this process (`/api/v1/sys/…`); absent: no seal, the routes answer
   * unsealed and refuse a share or a seal (CONFLICT).
   */
  seal?: SealControl;
  /** Shape limits on Sign's `args` and `abi`, and from them those of every body (request-body.ts; default: DEFAULT_ARGS_BOUNDS). */
  argsBounds?: JsonBounds;
}
