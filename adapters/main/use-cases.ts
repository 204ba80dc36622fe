import { audit } from '../../src/application/audit/audit-actor.js';
import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import { ContainerModule } from 'inversify';
import { ExpireApprovals } from '../../src/application/approvals/expire-approvals.use-case.js';
import { GetApproval } from '../../src/application/approvals/get-approval.use-case.js';
import { ListApprovals } from '../../src/application/approvals/list-approvals.use-case.js';
import { ReleaseByKind } from '../../src/application/approvals/approval-releaser.js';
import { useCasesByKind } from '../../src/application/signing/kinds/registered-application-kinds.js';
import { VoteOnApproval, type InvalidVoteObserver } from '../../src/application/approvals/vote-on-approval.use-case.js';
import { PasskeyVotes } from '../../src/application/approvals/passkey-votes.js';
import type { ConsoleDeps } from '../../src/application/console/console-room.js';
import { ConsoleInvites } from '../../src/application/console/console-invites.js';
import { ConsoleEnrolment } from '../../src/application/console/console-enrolment.js';
import { ConsoleSessions } from '../../src/application/console/console-sessions.js';
import { ConsoleReview } from '../../src/application/console/console-review.js';
import { ConsoleVotes } from '../../src/application/console/console-votes.js';
import { Authenticate } from '../../src/application/access/authenticate.use-case.js';
import { Authorize } from '../../src/application/access/authorize.use-case.js';
import { BindWallets } from '../../src/application/wallets/bind-wallets.use-case.js';
import { CreateWallet } from '../../src/application/wallets/create-wallet.use-case.js';
import { ExpireWallet } from '../../src/application/wallets/expire-wallet.use-case.js';
import { GetSubmission } from '../../src/application/signing/get-submission.use-case.js';
import { GetVaultStatus } from '../../src/application/vaults/get-vault-status.use-case.js';
import { GetWallet } from '../../src/application/wallets/get-wallet.use-case.js';
import { ImportKey } from '../../src/application/wallets/import-key.use-case.js';
import { ExportKey } from '../../src/application/keys/export-key.use-case.js';
import { hpkeKeyExportSealer } from '../system/key-export-hpke.js';
import { ListAuditRecords } from '../../src/application/audit/list-audit-records.use-case.js';
import { ListWallets } from '../../src/application/wallets/list-wallets.use-case.js';
import { Governance } from '../../src/application/governance/governance.use-case.js';
import { GovernanceVerifier } from '../../src/application/governance/governance-verifier.js';
import type { GovernanceStore } from '../../src/ports/governance-store.port.js';
import { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import { ManageQuarantine } from '../../src/application/keys/manage-quarantine.use-case.js';
import { ManageVaults } from '../../src/application/vaults/manage-vaults.use-case.js';
import { ManageOperators } from '../../src/application/access/manage-operators.use-case.js';
import { ManageWebhooks } from '../../src/application/vaults/manage-webhooks.use-case.js';
import { PolicyCache } from '../../src/application/signing/policy-cache.js';
import { governedKeysOf, governedKeysStateOf, governedVotersOf } from '../../src/application/governance/governed-entries.js';
import { EvaluatePolicy } from '../../src/application/signing/evaluate-policy.use-case.js';
import { SignPolicyGate } from '../../src/application/signing/sign-policy-gate.js';
import type { KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import { chainDirectory } from '../../src/domain/policy/chain-directory.js';
import { PurgeExpiredIdempotency } from '../../src/application/shared/purge-expired-idempotency.use-case.js';
import { PurgeExpiredWallets } from '../../src/application/wallets/purge-expired-wallets.use-case.js';
import { RecordSubmission } from '../../src/application/signing/record-submission.use-case.js';
import { RefusedAuthSummary, type RefusedAuthObserver } from '../../src/application/access/refused-auth-summary.js';
import { ReleaseCall } from '../../src/application/approvals/release-call.use-case.js';
import { RenameWallet } from '../../src/application/wallets/rename-wallet.use-case.js';
import { RewrapKeys } from '../../src/application/keys/rewrap-keys.use-case.js';
import { SignCall } from '../../src/application/signing/sign-call.use-case.js';
import { SignMessage } from '../../src/application/signing/sign-message.use-case.js';
import { SignTransaction } from '../../src/application/signing/sign-transaction.use-case.js';
import { SignAuthorization } from '../../src/application/signing/sign-authorization.use-case.js';
import { SignTypedData } from '../../src/application/signing/sign-typed-data.use-case.js';
import type { StandardSigningDeps } from '../../src/application/signing/standard-signing.js';
import { JsonRpcSigner } from '../../src/application/signing/json-rpc.use-case.js';
import { TransactionSimulator, type SimulationObserver } from '../../src/application/signing/transaction-simulation.js';
import { SweepOrphanKeys } from '../../src/application/keys/sweep-orphan-keys.use-case.js';
import { UnexpireWallet } from '../../src/application/wallets/unexpire-wallet.use-case.js';
import { VerifyAuditChain } from '../../src/application/audit/verify-audit-chain.use-case.js';
import { VerifyAuthSignature } from '../../src/application/access/verify-auth-signature.use-case.js';
import type { ChallengeBounds } from '../../src/application/console/sign-in-challenges.js';
import { WalletBindings } from '../../src/application/wallets/wallet-binding.js';
import { HeldRequestSeals } from '../../src/application/approvals/held-request-seals.js';
import { PORT_TOKENS, type PortOf } from './tokens.js';
import type { RelyingParty } from '../../src/ports/relying-party.port.js';
import { simpleWebAuthnRelyingParty } from '../webauthn/simplewebauthn.relying-party.js';
import type { OperatorIdentityProvider } from '../../src/ports/operator-identity.port.js';
import { openIdConnectIdentityProvider } from '../oidc/openid-client.identity-provider.js';
import { DEFAULT_OIDC_OPERATOR_CLAIM } from './setting-rules.js';
import { webhookUrlProblem } from '../webhooks/webhook-url.js';
import { pooledRandom } from '../system/pooled-random.js';

/** What the use cases are built from besides the ports: the root's settings. */
export interface UseCaseSettings {
  /** The chain names Sign and sign policies accept: the interface's and the ones the caller added. */
  readonly chains: readonly string[];
  /** Those chains' ids (decimal) by name, for policy rules that name a chain either way (`local` has none). */
  readonly chainIds: Readonly<Record<string, string>>;
  readonly authSecret?: string;
  /** Told of each refused authentication besides the audit summary. */
  readonly authRefused?: RefusedAuthObserver;
  /** Told of votes a release found without a valid signature, besides the audit record. */
  readonly invalidVotes?: InvalidVoteObserver;
  /** What `GET …/status` reports. */
  readonly version: string;
  /** VAULT_GOVERNANCE_PINS: each governed vault's genesis hash, from outside the database (docs/governance.md). */
  readonly governancePins?: ReadonlyMap<string, string>;
  /** Told the outcome of each simulation before a signature (ok, reverted, failed). */
  readonly simulations?: SimulationObserver;
  /** VAULT_PUBLIC_URL: the approvers' console's origin and WebAuthn relying party; absent: no console. */
  readonly publicUrl?: string;
  /** The console's challenges one client may hold, and all may (VAULT_CONSOLE_CHALLENGES_PER_CLIENT, VAULT_CONSOLE_CHALLENGES). */
  readonly consoleChallenges: ChallengeBounds;
  /** VAULT_OIDC_*: the operators' identity provider, each call bounded by VAULT_OUTBOUND_TIMEOUT_MS; absent: operator credentials only. */
  readonly oidc?: { readonly issuer: string; readonly clientId: string; readonly clientSecret?: string; readonly operatorClaim?: string; readonly timeoutMs: number };
}

/**
 * What a use case is built from, by the name its factory reads: a port's token (the port's type comes
 * with it) or a shared service's class. Each is resolved from the container when a factory first reads it.
 */
const PORTS = {
  repo: PORT_TOKENS.WALLET_REPOSITORY,
  clock: PORT_TOKENS.CLOCK,
  audit: PORT_TOKENS.AUDIT_LOG,
  ids: PORT_TOKENS.ID_GENERATOR,
  keys: PORT_TOKENS.KEY_STORE_REGISTRY,
  chain: PORT_TOKENS.CHAIN_READER,
  signatures: PORT_TOKENS.SIGNATURE_LOG,
  policies: PORT_TOKENS.POLICY_REPOSITORY,
  replay: PORT_TOKENS.REPLAY_GUARD,
  quarantine: PORT_TOKENS.KEY_QUARANTINE,
  signCounter: PORT_TOKENS.SIGN_COUNTER,
  approvals: PORT_TOKENS.APPROVAL_STORE,
  webhooks: PORT_TOKENS.WEBHOOK_OUTBOX,
  governance: PORT_TOKENS.GOVERNANCE_STORE,
  deploymentId: PORT_TOKENS.DEPLOYMENT_ID,
  payloads: PORT_TOKENS.STANDARD_PAYLOADS,
  chainRpc: PORT_TOKENS.CHAIN_RPC,
  keystores: PORT_TOKENS.KEYSTORE_DECRYPTOR,
  console: PORT_TOKENS.CONSOLE_STORE,
  operators: PORT_TOKENS.OPERATOR_STORE,
  /** Proves governed vaults' states (and applies what their quorum made effective). */
  verifier: GovernanceVerifier,
  policyCache: PolicyCache,
  /** The one policy decision (and limits) every signature passes. */
  gate: SignPolicyGate,
  /** The wallets' keys, reached only through the check of their bindings (and the keys' signatures of new ones). */
  bindings: WalletBindings,
  refusedAuth: RefusedAuthSummary,
} as const;

type Ports = { readonly [K in keyof typeof PORTS]: PortOf<(typeof PORTS)[K]> } & {
  /** Another entry of USE_CASES, for a use case built on others (the JSON-RPC endpoint). */
  resolve<T>(type: abstract new (...args: any[]) => T): T;
};

interface UseCaseEntry<T> {
  /** The class: the container's key for it. */
  readonly type: abstract new (...args: any[]) => T;
  /** Works on keys: built on first use, so a vault without key stores (operator tools) still builds. */
  readonly needsKeyStores: boolean;
  readonly build: (ports: Ports, settings: UseCaseSettings) => T;
}

/** One relying party per VAULT_PUBLIC_URL (the console's and the release's checks agree on origin and rpId). */
const relyingParties = new Map<string, RelyingParty>();
function relyingPartyOf(s: UseCaseSettings): RelyingParty | undefined {
  if (s.publicUrl === undefined) return undefined;
  let rp = relyingParties.get(s.publicUrl);
  if (rp === undefined) relyingParties.set(s.publicUrl, (rp = simpleWebAuthnRelyingParty(s.publicUrl)));
  return rp;
}

/** One identity provider per settings object (its discovery and signing keys are read once, cached). */
const identityProviders = new WeakMap<object, OperatorIdentityProvider>();
function identityProviderOf(s: UseCaseSettings): OperatorIdentityProvider | undefined {
  if (s.oidc === undefined) return undefined;
  let provider = identityProviders.get(s.oidc);
  if (provider === undefined) identityProviders.set(s.oidc, (provider = openIdConnectIdentityProvider({ ...s.oidc, operatorClaim: s.oidc.operatorClaim ?? DEFAULT_OIDC_OPERATOR_CLAIM })));
  return provider;
}

const entry = <T>(type: UseCaseEntry<T>['type'], build: UseCaseEntry<T>['build'], needsKeyStores = false): UseCaseEntry<T> => ({ type, build, needsKeyStores });
const KEYS = true;
/** What every room of the approvers' console is built on (docs/console.md). */
const consoleDeps = (p: Ports, s: UseCaseSettings): ConsoleDeps => ({
  store: p.console,
  relyingParty: relyingPartyOf(s),
  publicUrl: s.publicUrl,
  repository: p.repo,
  clock: p.clock,
  auditLog: p.audit,
  payloads: p.payloads,
  policies: p.policyCache,
  chainIds: s.chainIds,
  governed: (vaultId) => governedKeysStateOf(p.policyCache, vaultId),
  listApprovals: p.resolve(ListApprovals),
  getApproval: p.resolve(GetApproval),
  // Resolved at the first vote: the CLI's invite and list open no key store.
  voteOnApproval: { execute: (command) => p.resolve(VoteOnApproval).execute(command) },
  governance: p.resolve(Governance),
  challengeBounds: s.consoleChallenges,
});

/** What SignMessage, SignTypedData and SignTransaction share: the policy Sign reads, the payloads' encoding. */
const standardSigning = (p: Ports, s: UseCaseSettings): StandardSigningDeps => ({
  repository: p.repo,
  bindings: p.bindings,
  payloads: p.payloads,
  gate: p.gate,
  chains: chainDirectory(s.chainIds),
  auditLog: p.audit,
  clock: p.clock,
  approvals: p.approvals,
  ids: p.ids,
});

/**
 * Every use case of the vault, listed once: the in-process API (`Vault`, one property per entry), the
 * container's bindings and the HTTP routes (which name these properties) all come from this table.
 * Adding a use case is one line here.
 */
export const USE_CASES = {
  // Wallets
  /** Creates a wallet and its key in the default key store; with an Idempotency-Key, once per key. */
  createWallet: entry(CreateWallet, (p) => new CreateWallet(p.repo, p.keys, p.bindings, p.clock, p.ids, p.audit, p.deploymentId), KEYS),
  /** A page of the vault's wallets that are not deleted, oldest first. */
  listWallets: entry(ListWallets, (p) => new ListWallets(p.repo, p.clock)),
  /** One wallet by address; a deleted or foreign one is WALLET_NOT_FOUND. */
  getWallet: entry(GetWallet, (p) => new GetWallet(p.repo, p.clock)),
  /** Renames a wallet (audited). */
  renameWallet: entry(RenameWallet, (p) => new RenameWallet(p.repo, p.clock)),
  /** Marks a wallet expired (DELETE): it may be unexpired until the purge removes it. */
  expireWallet: entry(ExpireWallet, (p) => new ExpireWallet(p.repo, p.clock)),
  /** Lifts an expiry that has not been purged yet. */
  unexpireWallet: entry(UnexpireWallet, (p) => new UnexpireWallet(p.repo, p.clock)),
  // Sign and submissions
  /** Signs a contract call for a wallet under the vault's sign policy, durably logged first. */
  signCall: entry(
    SignCall,
    (p, s) =>
      new SignCall({
        repository: p.repo,
        bindings: p.bindings,
        chainReader: p.chain,
        signatureLog: p.signatures,
        clock: p.clock,
        random: pooledRandom(),
        gate: p.gate,
        chains: s.chains,
        chainIds: chainDirectory(s.chainIds),
        approvals: p.approvals,
        ids: p.ids,
        simulator: new TransactionSimulator(p.chainRpc, s.simulations),
      }),
    KEYS,
  ),
  // Approvals: signs an approval rule holds until a quorum of approver keys approves them
  /** A page of the vault's approvals, oldest first, optionally of one status. */
  listApprovals: entry(ListApprovals, (p) => new ListApprovals(p.approvals, p.clock, p.policyCache)),
  /** One approval: what is asked, the votes, and once approved the Sign result. */
  getApproval: entry(GetApproval, (p) => new GetApproval(p.approvals, p.clock, p.policyCache, p.repo)),
  /** An approver key's vote; the approve that completes the quorum releases the signature (once), by the request's kind. */
  voteOnApproval: entry(
    VoteOnApproval,
    (p, s) =>
      new VoteOnApproval(
        p.approvals,
        // Each kind's use case releases it, but a call: ReleaseCall re-reads Sign's request round SignCall.
        new ReleaseByKind({ ...useCasesByKind((type) => p.resolve(type)), call: new ReleaseCall({ signCall: p.resolve(SignCall), approvals: p.approvals, clock: p.clock, gate: p.gate, bindings: p.bindings }) }),
        p.clock,
        p.audit,
        p.repo,
        p.payloads,
        s.invalidVotes,
        // A governed vault's votes count only from the approvers and credentials its verified state names.
        (vaultId: string) => governedVotersOf(p.policyCache, vaultId),
        new PasskeyVotes(p.console, relyingPartyOf(s), p.payloads),
        // The quorum and group a vote is judged by: the holding rule's in the verified policy in force.
        p.policyCache,
        new HeldRequestSeals({ bindings: p.bindings, recovery: p.payloads, wallets: p.repo }),
      ),
    KEYS,
  ),
  // The approvers' console (docs/console.md), one use case per room over the same deps
  /** `approvers invite|list`: one-time enrolment URLs, and the vault's enrolled approvers. */
  consoleInvites: entry(ConsoleInvites, (p, s) => new ConsoleInvites(consoleDeps(p, s))),
  /** An invite's passkey registered as a new approver key, signed in at once. */
  consoleEnrolment: entry(ConsoleEnrolment, (p, s) => new ConsoleEnrolment(consoleDeps(p, s))),
  /** Passkey sign-in, the session each console request finds, the sign-out. */
  consoleSessions: entry(ConsoleSessions, (p, s) => new ConsoleSessions(consoleDeps(p, s))),
  /** Approvals decoded and proposals, as a signed-in approver reads them. */
  consoleReview: entry(ConsoleReview, (p, s) => new ConsoleReview(consoleDeps(p, s))),
  /** A signed-in approver's vote with its passkey, then counted as any approver's. */
  consoleVotes: entry(ConsoleVotes, (p, s) => new ConsoleVotes(consoleDeps(p, s))),
  /** Marks pending approvals past their expiry as expired, on record (run by the server's scheduler). */
  expireApprovals: entry(ExpireApprovals, (p) => new ExpireApprovals(p.approvals, p.clock)),
  /** Signs an EIP-191 personal message with a wallet, when the vault's policy allows messages (deny by default). */
  signMessage: entry(SignMessage, (p, s) => new SignMessage(standardSigning(p, s)), KEYS),
  /** Signs EIP-712 typed data with a wallet, when the vault's policy allows its domain (deny by default). */
  signTypedData: entry(SignTypedData, (p, s) => new SignTypedData(standardSigning(p, s)), KEYS),
  /** Signs a legacy, eip2930 or eip1559 transaction with a wallet under the vault's transaction policy (deny by default). */
  signTransaction: entry(SignTransaction, (p, s) => new SignTransaction({ ...standardSigning(p, s), simulator: new TransactionSimulator(p.chainRpc, s.simulations) }), KEYS),
  /** Signs an EIP-7702 authorization (a delegation of the wallet's account to a contract) under the policy's `authorization` rules (deny by default). */
  signAuthorization: entry(SignAuthorization, (p, s) => new SignAuthorization(standardSigning(p, s)), KEYS),
  /** The dry run: what the one policy would decide for a request of any kind; nothing signed, recorded or counted. */
  evaluatePolicy: entry(
    EvaluatePolicy,
    (p) => new EvaluatePolicy(useCasesByKind((type) => p.resolve(type))),
    KEYS,
  ),
  /** The vault's wallets behind Ethereum JSON-RPC: the signing methods answered, eth_sendTransaction filled and sent, the rest relayed. */
  jsonRpc: entry(
    JsonRpcSigner,
    (p) =>
      new JsonRpcSigner(
        { listWallets: p.resolve(ListWallets), signMessage: p.resolve(SignMessage), signTypedData: p.resolve(SignTypedData), signTransaction: p.resolve(SignTransaction) },
        p.chainRpc,
      ),
    KEYS,
  ),
  /** Checks `X-Vault-Auth-Signature` over a request's raw bytes, when the vault has an auth secret. */
  verifyAuthSignature: entry(VerifyAuthSignature, (p, s) => new VerifyAuthSignature(s.authSecret, p.replay, p.clock, p.audit)),
  /** Records the transaction that carried a signature. */
  recordSubmission: entry(RecordSubmission, (p) => new RecordSubmission(p.signatures, p.clock)),
  /** A signature's record by its submission hash. */
  getSubmission: entry(GetSubmission, (p) => new GetSubmission(p.signatures)),
  // Status, vaults and API keys, policies, audit
  /** The vault's counts and version (`GET …/status`). */
  getVaultStatus: entry(GetVaultStatus, (p, s) => new GetVaultStatus(p.repo, p.clock, s.version)),
  /** An API key of a vault to the principal it stands for; refusals are summarised per client address. */
  authenticate: entry(Authenticate, (p, s) => {
    const also = s.authRefused;
    return new Authenticate(p.repo, p.clock, also ? { refused: (e) => (p.refusedAuth.refused(e), also.refused(e)) } : p.refusedAuth, (vaultId) => governedKeysOf(p.policyCache, vaultId));
  }),
  /** Whether a principal's key holds the role an operation needs; a refusal is audited (ROLE_REQUIRED). */
  authorize: entry(Authorize, (p) => new Authorize(p.clock, p.audit)),
  /** Vaults and their API keys (create, list, revoke). */
  manageVaults: entry(ManageVaults, (p) => new ManageVaults(p.repo, p.clock, p.ids, p.audit, p.resolve(Governance))),
  /** Named operators (docs/operators.md): made and revoked by the local operator; their credentials checked by the admin API. */
  manageOperators: entry(ManageOperators, (p, s) => new ManageOperators(p.operators, p.repo, p.clock, p.audit, identityProviderOf(s), s.publicUrl)),
  /** A vault's sign policy (show, set, clear); a change reaches every sign at once. */
  managePolicies: entry(
    ManagePolicies,
    (p, s) =>
      new ManagePolicies(p.repo, p.policies, p.clock, p.audit, (vaultId) => p.policyCache.invalidate(vaultId), s.chains, chainDirectory(s.chainIds), p.resolve(Governance)),
  ),
  /** Governance of a vault's changes (docs/governance.md): genesis, proposals and their signed votes, freezes. */
  governance: entry(
    Governance,
    (p, s) =>
      new Governance({
        vaults: p.repo,
        store: p.governance,
        verifier: p.verifier,
        cache: p.policyCache,
        clock: p.clock,
        ids: p.ids,
        auditLog: p.audit,
        pins: s.governancePins ?? new Map(),
        apiKeys: p.repo,
        ...(p.webhooks ? { webhooks: p.webhooks } : {}),
        ...(p.console ? { passkeys: (vaultId: string) => p.console!.passkeys(vaultId) } : {}),
      }),
  ),
  /** The audit trail, filtered and paged. */
  listAuditRecords: entry(ListAuditRecords, (p) => new ListAuditRecords(p.audit, p.repo)),
  /** Recomputes the audit chain and names the first record that breaks it. */
  verifyAuditChain: entry(VerifyAuditChain, (p) => new VerifyAuditChain(p.audit)),
  // Key maintenance
  /** Re-wraps every local key under the current master key. */
  rewrapKeys: entry(RewrapKeys, (p) => new RewrapKeys(p.repo, p.keys, p.bindings, p.audit, p.clock), KEYS),
  /** Removes wallets whose expiry passed, and destroys their keys. */
  purgeExpiredWallets: entry(PurgeExpiredWallets, (p) => new PurgeExpiredWallets(p.repo, p.keys, p.clock), KEYS),
  /** Removes idempotency records older than their 24 hours. */
  purgeExpiredIdempotency: entry(PurgeExpiredIdempotency, (p) => new PurgeExpiredIdempotency(p.repo, p.clock)),
  /** Quarantines this deployment's keys that no wallet record names. */
  sweepOrphanKeys: entry(SweepOrphanKeys, (p) => new SweepOrphanKeys(p.repo, p.keys, p.quarantine, p.clock), KEYS),
  /** `wallet-vault keys import` (`vault.keys.import`): a wallet of an existing key (raw or a V3 keystore) in the default key store. */
  keys: entry(ImportKey, (p) => new ImportKey({ repository: p.repo, keyStores: p.keys, bindings: p.bindings, decryptor: p.keystores, clock: p.clock, ids: p.ids, auditLog: p.audit, deploymentId: p.deploymentId }), KEYS),
  /**
   * `wallet-vault keys export` (`vault.exportKeys.export`): a wallet's key or the vault's HD seed, encrypted
   * to a recipient's X25519 key (HPKE); on a governed vault only as a proposal M approvers sign.
   */
  exportKeys: entry(
    ExportKey,
    (p) => new ExportKey({ repository: p.repo, keyStores: p.keys, sealer: hpkeKeyExportSealer, governance: p.resolve(Governance), policies: p.policyCache, clock: p.clock, ids: p.ids, auditLog: p.audit }),
    KEYS,
  ),
  /**
   * Wallets without a binding bound by their keys: once by the upgrade that introduced bindings (createVault
   * runs it), and by an operator (`wallet-vault wallets bind`).
   */
  bindWallets: entry(BindWallets, (p) => new BindWallets({ repository: p.repo, bindings: p.bindings, clock: p.clock }), KEYS),
  /** `wallet-vault keys quarantine`: list, restore or destroy the keys the sweep quarantined. */
  manageQuarantine: entry(ManageQuarantine, (p) => new ManageQuarantine(p.repo, p.keys, p.bindings, p.quarantine, p.clock, p.ids), KEYS),
  // Webhooks
  /** `wallet-vault webhooks`: a vault's endpoints (add, list, remove) and the events given up on. */
  manageWebhooks: entry(ManageWebhooks, (p) => new ManageWebhooks(p.repo, p.webhooks, p.clock, p.ids, p.audit, webhookUrlProblem, p.resolve(Governance))),
} as const;

/** The in-process API: one property per use case of USE_CASES, the instance the container built. */
export type UseCases = { readonly [K in keyof typeof USE_CASES]: ReturnType<(typeof USE_CASES)[K]['build']> };

type Resolver = { get<T>(id: symbol | (abstract new (...args: any[]) => T)): T };

function portsOf(ctx: Resolver): Ports {
  const ports = { resolve: <T>(type: abstract new (...args: any[]) => T) => ctx.get(type) };
  for (const [name, id] of Object.entries(PORTS)) Object.defineProperty(ports, name, { enumerable: true, get: () => ctx.get(id as symbol) });
  return ports as Ports;
}

/**
 * The application's container module: every entry of USE_CASES, and the services they share (the
 * governance verifier, the sign-policy cache and gate, the wallets' bindings, the refused-authentication summary). The core's classes take plain constructor
 * arguments (src/ never imports inversify), so they are bound with factories over the port tokens
 * rather than with decorators.
 */
export function useCasesModule(settings: UseCaseSettings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(GovernanceVerifier).toDynamicValue(
      (ctx) =>
        new GovernanceVerifier({
          store: ctx.get(PORT_TOKENS.GOVERNANCE_STORE),
          policies: ctx.get(PORT_TOKENS.POLICY_REPOSITORY),
          payloads: ctx.get(PORT_TOKENS.STANDARD_PAYLOADS),
          clock: ctx.get(PORT_TOKENS.CLOCK),
          auditLog: ctx.get(PORT_TOKENS.AUDIT_LOG),
          pins: settings.governancePins ?? new Map(),
          chains: chainDirectory(settings.chainIds),
        }),
    );
    bind(PolicyCache).toDynamicValue((ctx) => {
      const store = ctx.get<GovernanceStore | undefined>(PORT_TOKENS.GOVERNANCE_STORE);
      const clock = ctx.get<Clock>(PORT_TOKENS.CLOCK);
      const auditLog = ctx.get<AuditLog>(PORT_TOKENS.AUDIT_LOG);
      const freezesMissing = (vaultId: string, seen: number, held: number) =>
        audit(auditLog, 'records.missing', clock.now(), 'system', vaultId, vaultId, { table: 'vault_freezes', witnessedFreezes: String(seen), heldFreezes: String(held) });
      return new PolicyCache(ctx.get(PORT_TOKENS.POLICY_REPOSITORY), clock, chainDirectory(settings.chainIds), undefined, ctx.get(GovernanceVerifier), store, freezesMissing);
    });
    bind(SignPolicyGate).toDynamicValue((ctx) => {
      const ports = portsOf(ctx as Resolver);
      // Unbound where no store is open (the operator commands): nothing can sign there, nothing refuses ahead.
      const registry = ctx.get<KeyStoreRegistry | undefined>(PORT_TOKENS.KEY_STORE_REGISTRY, { optional: true });
      const refusesEverySign = () => {
        for (const store of registry?.all() ?? []) {
          const refusal = store.refusesEverySign?.();
          if (refusal) return refusal;
        }
        return null;
      };
      const feeds = ports.chain.readPriceFeed === undefined ? {} : { priceFeeds: { readPriceFeed: ports.chain.readPriceFeed.bind(ports.chain) } };
      return new SignPolicyGate({ policies: ports.policyCache, auditLog: ports.audit, clock: ports.clock, signCounter: ports.signCounter, refusesEverySign, ...feeds });
    });
    bind(WalletBindings).toDynamicValue(
      (ctx) =>
        new WalletBindings({
          keyStores: ctx.get(PORT_TOKENS.KEY_STORE_REGISTRY),
          recovery: ctx.get(PORT_TOKENS.STANDARD_PAYLOADS),
          auditLog: ctx.get(PORT_TOKENS.AUDIT_LOG),
          clock: ctx.get(PORT_TOKENS.CLOCK),
        }),
    );
    bind(RefusedAuthSummary).toDynamicValue((ctx) => new RefusedAuthSummary(ctx.get(PORT_TOKENS.WALLET_REPOSITORY), ctx.get(PORT_TOKENS.CLOCK), ctx.get(PORT_TOKENS.AUDIT_LOG)));
    for (const { type, build } of Object.values(USE_CASES) as UseCaseEntry<unknown>[]) {
      bind(type).toDynamicValue((ctx) => build(portsOf(ctx as Resolver), settings));
    }
  });
}

/**
 * The use cases as one object, each a property resolved from the container: at once (so a bad rebind in
 * `configure` fails createVault), or on first read for those that need key stores.
 */
export function useCasesFrom(container: Resolver): UseCases {
  const api = {};
  for (const [name, { type, needsKeyStores }] of Object.entries(USE_CASES) as [string, UseCaseEntry<unknown>][]) {
    if (needsKeyStores) {
      let resolved: unknown;
      Object.defineProperty(api, name, { enumerable: true, get: () => (resolved ??= container.get(type)) });
    } else {
      Object.defineProperty(api, name, { enumerable: true, value: container.get(type) });
    }
  }
  return api as UseCases;
}
