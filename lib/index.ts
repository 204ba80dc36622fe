/**
 * `wallet-vault`: the vault as a library. `createVault` is the one composition root; the ports are
 * here so a third party can write an adapter (a KeyStore, a persistence, a chain reader, a clock).
 * Nothing this module loads needs an optional driver (better-sqlite3, pg, the AWS SDK, node-vault, pkcs11js).
 */
import { installKeccak256 } from '../adapters/system/keccak.js';
export { type Vault } from '../adapters/main/create-vault.js';
export { createVault, type ConfiguredVaultOptions } from '../adapters/main/create-vault-entry.js';
export { prometheusMetrics, type VaultMetrics } from '../adapters/main/vault-metrics.js';
export { VaultOptionsError, type VaultLogger, type VaultOptions } from '../adapters/main/vault-options.js';
export { NativeBindingError } from '../adapters/native-bindings.js';
export type { AddedChain } from '../adapters/chain/chains.js';
export { TOKENS } from '../adapters/main/tokens.js';
export { DomainError, ErrorCode, isDomainError } from '../src/domain/errors.js';
// What an API key may do and where from (manageVaults.createApiKey's `roles` and `allowCidrs`).
export { API_KEY_ROLES, parseCidrs, parseRoles, type ApiKeyRole, type Cidr } from '../src/domain/api-key-access.js';
export type { CreatedKey, KeyOwner, KeyStore, KeyStoreRegistry, RecoverableSignature, StoredKey } from '../src/ports/key-store.port.js';
export type { KeyQuarantine, QuarantinedKey } from '../src/ports/key-quarantine.port.js';
export { WEBHOOK_EVENT_TYPES, type UndeliverableWebhook, type WebhookEndpoint, type WebhookEventType, type WebhookOutbox } from '../src/ports/webhook-outbox.port.js';
export type { WebhookJwk, WebhookKeySet } from '../adapters/webhooks/webhook-signing-key.js';
export type { SignCountDecision, SignCounter } from '../src/ports/sign-counter.port.js';
export type { SignCountDemand, SignLimit } from '../src/domain/sign-limits.js';
export type { Persistence } from '../src/ports/persistence.port.js';
export type { WalletRepository } from '../src/ports/wallet-repository.port.js';
export type { VaultStore } from '../src/ports/vault-store.port.js';
export type { ApiKeyStore } from '../src/ports/api-key-store.port.js';
export type { WalletPage, WalletStore } from '../src/ports/wallet-store.port.js';
export type { IdempotencyRecord, IdempotencyStore } from '../src/ports/idempotency-store.port.js';
export type { SignatureLog, SignatureRecord } from '../src/ports/signature-log.port.js';
export type { AuditLog, AuditEvent, AuditRecord } from '../src/ports/audit-log.port.js';
export type { PolicyRepository } from '../src/ports/policy-repository.port.js';
export type { JobLock } from '../src/ports/job-lock.port.js';
export type { ReplayGuard } from '../src/ports/replay-guard.port.js';
export type { ChainReader, SignableValues } from '../src/ports/chain-reader.port.js';
export type { Clock } from '../src/ports/clock.port.js';

// The in-process API (docs/library.md, "The Vault's methods"): who calls, and each use case's command and result.
export type { Principal } from '../src/application/access/principal.js';
export type { UnreadableCredential } from '../src/application/access/authenticate.use-case.js';
export type { CreateWalletCommand } from '../src/application/wallets/create-wallet.use-case.js';
export type { ImportKeyCommand } from '../src/application/wallets/import-key.use-case.js';
export type { KeystoreDecryptor } from '../src/ports/keystore-decryptor.port.js';
export type { IdempotentRequest } from '../src/application/shared/idempotency.js';
export type { ApprovalRequested, SignAbiItem, SignCallCommand, SignOutcome, SignResult } from '../src/application/signing/sign-call.use-case.js';
export type { ApprovalRequestView, DecodedArgument } from '../src/application/approvals/approval-presenter.js';
export type { VoteCommand } from '../src/application/approvals/vote-on-approval.use-case.js';
export type { Approval, ApprovalKind, ApprovalStatus, ApprovalVote, ApprovalVoteKind } from '../src/domain/approval.js';
export type { ApprovalRule, ApprovalRuleInput } from '../src/domain/approval-rules.js';
export type { ApprovalPage, ApprovalStore, NewApproval, VoteOutcome } from '../src/ports/approval-store.port.js';
export type { SignMessageCommand } from '../src/application/signing/sign-message.use-case.js';
export type { StandardOutcome } from '../src/application/signing/standard-signing.js';
export type { SignTypedDataCommand } from '../src/application/signing/sign-typed-data.use-case.js';
export type { SignTransactionCommand } from '../src/application/signing/sign-transaction.use-case.js';
export type { SignedTransaction, StandardPayloads } from '../src/ports/standard-payloads.port.js';
export type { RecordSubmissionCommand } from '../src/application/signing/record-submission.use-case.js';
export type { VaultStatus } from '../src/application/vaults/get-vault-status.use-case.js';
export type { PurgeReport } from '../src/application/wallets/purge-expired-wallets.use-case.js';
export type { SweepReport } from '../src/application/keys/sweep-orphan-keys.use-case.js';
export type { RewrapProgress } from '../src/application/keys/rewrap-keys.use-case.js';
export type { AuditVerdict } from '../src/application/audit/verify-audit-chain.use-case.js';
export type { Wallet } from '../src/domain/wallet.js';
// The tenant vault as stored; `Vault` is the service createVault returns.
export type { Vault as VaultRecord, ApiKeyRecord } from '../src/domain/vault.js';
export type { SignPolicy, SignPolicyInput } from '../src/domain/sign-policy.js';
export type { IdGenerator } from '../src/ports/id-generator.port.js';

// The domain hashes with the keccak256 it is given (src/domain/keccak.ts): this entry gives it before anything of it runs.
installKeccak256();
