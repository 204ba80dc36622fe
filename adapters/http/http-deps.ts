import type { SignAuthorizationCommand, SignedAuthorizationResult } from '../../src/application/sign-authorization.use-case.js';
import type { EvaluatePolicyCommand, PolicyVerdict } from '../../src/application/evaluate-policy.use-case.js';
import type { Principal, UnreadableCredential } from '../../src/application/authenticate.use-case.js';
import type { CreateWalletCommand } from '../../src/application/create-wallet.use-case.js';
import type { RecordSubmissionCommand } from '../../src/application/record-submission.use-case.js';
import type { ApprovalRequested, SignCallCommand, SignOutcome } from '../../src/application/sign-call.use-case.js';
import type { VoteCommand } from '../../src/application/approvals.use-case.js';
import type { GovernanceView, ProposalView } from '../../src/application/governance.use-case.js';
import type { Approval, ApprovalStatus } from '../../src/domain/approval.js';
import type { ApprovalPage } from '../../src/ports/approval-store.port.js';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import type { AnswerBudget, JsonRpcCommand } from '../../src/application/json-rpc.use-case.js';
import type { RpcAnswer } from '../../src/ports/chain-rpc.port.js';
import type { SignMessageCommand } from '../../src/application/sign-message.use-case.js';
import type { SignTransactionCommand } from '../../src/application/sign-transaction.use-case.js';
import type { SignTypedDataCommand } from '../../src/application/sign-typed-data.use-case.js';
import type { Wallet } from '../../src/domain/wallet.js';
import type { SignatureRecord } from '../../src/ports/signature-log.port.js';
import type { ClientAddressDeps } from './caller.js';
import type { JsonBounds } from './json-shape.js';
import type { AddressGuardDeps } from './rate-limits.js';

/**
 * What the HTTP layer needs from the application, as structural types: it depends on no concrete class.
 * A module of its own, so the error responses and the routes can name it without importing the pipeline.
 */
export interface HttpDeps extends ClientAddressDeps, AddressGuardDeps {
  /** `apiKey` from `Authorization: Bearer` (caller.ts); `source` is the client address (clientAddressOf), under which refusals are summarised. */
  authenticate: { execute(apiKey: string | UnreadableCredential | undefined, vaultId: string, source: string): Promise<Principal> };
  /** Whether the caller's key holds the role a route declares (ROLE_REQUIRED, audited, when not). */
  authorize: { execute(principal: Principal, role: ApiKeyRole | readonly ApiKeyRole[], operation: string): Promise<void> };
  createWallet: { execute(command: CreateWalletCommand): Promise<Wallet> };
  listWallets: { execute(vaultId: string, offset?: number, count?: number): Promise<{ count: number; page: Wallet[] }> };
  getWallet: { execute(vaultId: string, address: string): Promise<Wallet> };
  renameWallet: { execute(principal: Principal, address: string, name: string): Promise<Wallet> };
  expireWallet: { execute(principal: Principal, address: string): Promise<Wallet> };
  unexpireWallet: { execute(principal: Principal, address: string): Promise<Wallet> };
  getVaultStatus: {
    execute(vaultId: string): Promise<{ timestamp: Date; online: boolean; vaultKeys: number; wallets: number; version: string }>;
  };
  /** `chains`: the chain names a Sign may give (its body's schema names them in its refusal). */
  signCall: { readonly chains: readonly string[]; execute(command: SignCallCommand): Promise<SignOutcome> };
  /** Approvals (issue 25): signs held for a quorum of approver keys. */
  listApprovals: { execute(vaultId: string, query: { status?: ApprovalStatus; offset?: number; count?: number }): Promise<ApprovalPage> };
  getApproval: { execute(vaultId: string, id: string): Promise<Approval> };
  voteOnApproval: { execute(command: VoteCommand): Promise<Approval> };
  /** Governance (docs/governance.md): the state in force, proposals and their signed votes, freezes (`actor`: who, for the audit trail). */
  governance: {
    show(vaultId: string): Promise<GovernanceView>;
    list(vaultId: string): Promise<ProposalView[]>;
    get(vaultId: string, id: string): Promise<ProposalView>;
    vote(vaultId: string, id: string, decision: 'approve' | 'reject', signature: unknown, actor: string): Promise<ProposalView>;
    freeze(vaultId: string, reason: string | null, actor: string): Promise<{ freezes: number }>;
  };
  /** Standard signing with a wallet (deny by default: the vault's policy must allow the payload). */
  // Each answers its result or, held by a hold rule, `{ approval }` (202).
  signMessage: { execute(command: SignMessageCommand): Promise<{ signature: string } | ApprovalRequested> };
  signTypedData: { execute(command: SignTypedDataCommand): Promise<{ signature: string } | ApprovalRequested> };
  signTransaction: { execute(command: SignTransactionCommand): Promise<{ serialized: string; hash: string } | ApprovalRequested> };
  signAuthorization: { execute(command: SignAuthorizationCommand): Promise<SignedAuthorizationResult | ApprovalRequested> };
  evaluatePolicy: { execute(command: EvaluatePolicyCommand): Promise<PolicyVerdict> };
  /** The JSON-RPC endpoint (`POST …/rpc`): one call at a time; `defaultChain` when a request names none. */
  jsonRpc: { defaultChain(): string | undefined; answerBudget(): AnswerBudget; execute(command: JsonRpcCommand): Promise<RpcAnswer> };
  verifyAuthSignature: { execute(signature: string | undefined, rawBody: Buffer, principal: Principal): Promise<void> };
  recordSubmission: { execute(command: RecordSubmissionCommand): Promise<SignatureRecord> };
  getSubmission: { execute(vaultId: string, submissionHash: string): Promise<SignatureRecord> };
  /** The JWKS of the key webhook deliveries are signed with (`GET /.well-known/wallet-vault-webhook-keys`). */
  webhookKeys?: () => Promise<unknown>;
  /** The JWKS of the audit checkpoint key (`GET /.well-known/wallet-vault-audit-checkpoint-keys`); null: no checkpoints. */
  auditCheckpointKeys?: () => unknown;
  /** Resolves when the database and key stores answer; rejects otherwise. */
  readiness: () => Promise<void>;
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
  /** Shape limits on Sign's `args` and `abi`, and from them those of every body (request-body.ts; default: DEFAULT_ARGS_BOUNDS). */
  argsBounds?: JsonBounds;
}
