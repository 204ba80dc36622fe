/**
 * The identifier of each port in a dependency container: the composition root (adapters/main) and each
 * adapter family's container module bind and look ports up by these. Plain symbols, so the core still
 * imports no container library. `Symbol.for` keeps a token equal across copies of this module (the
 * package and a test importing src).
 */
export const PORT_TOKENS = {
  CLOCK: Symbol.for('wallet-vault.Clock'),
  ID_GENERATOR: Symbol.for('wallet-vault.IdGenerator'),
  CHAIN_READER: Symbol.for('wallet-vault.ChainReader'),
  /** The chains' RPCs as the JSON-RPC endpoint relays to them. */
  CHAIN_RPC: Symbol.for('wallet-vault.ChainRpc'),
  REPLAY_GUARD: Symbol.for('wallet-vault.ReplayGuard'),
  WALLET_REPOSITORY: Symbol.for('wallet-vault.WalletRepository'),
  SIGNATURE_LOG: Symbol.for('wallet-vault.SignatureLog'),
  AUDIT_LOG: Symbol.for('wallet-vault.AuditLog'),
  POLICY_REPOSITORY: Symbol.for('wallet-vault.PolicyRepository'),
  JOB_LOCK: Symbol.for('wallet-vault.JobLock'),
  KEY_STORE_REGISTRY: Symbol.for('wallet-vault.KeyStoreRegistry'),
  /** Encoding of messages, typed data and transactions (src/ports/standard-payloads.port.ts). */
  STANDARD_PAYLOADS: Symbol.for('wallet-vault.StandardPayloads'),
  /** The persistence's KeyQuarantine, or undefined when it has none. */
  KEY_QUARANTINE: Symbol.for('wallet-vault.KeyQuarantine'),
  /** The persistence's SignCounter (limits per window), or undefined when it has none. */
  SIGN_COUNTER: Symbol.for('wallet-vault.SignCounter'),
  /** The persistence's ApprovalStore (signs held for a quorum), or undefined when it has none. */
  APPROVAL_STORE: Symbol.for('wallet-vault.ApprovalStore'),
  /** This deployment's id (string), or null when the persistence has none. */
  DEPLOYMENT_ID: Symbol.for('wallet-vault.DeploymentId'),
  /** The persistence's WebhookOutbox, or undefined when it has none. */
  WEBHOOK_OUTBOX: Symbol.for('wallet-vault.WebhookOutbox'),
  GOVERNANCE_STORE: Symbol.for('wallet-vault.GovernanceStore'),
  /** The persistence's ConsoleStore (the approvers' console), or undefined when it has none. */
  CONSOLE_STORE: Symbol.for('wallet-vault.ConsoleStore'),
} as const;
