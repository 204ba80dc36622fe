/**
 * Every inversify token of the composition root, in one place. The ports (src/ports) only describe
 * behaviour; which object answers for a port is this layer's business. An embedding application rebinds
 * a token in `createVault({ configure })` (e.g. its own KeyStoreRegistry) before any use case is built.
 * `Symbol.for` keeps a token equal across copies of this module (the package and a test importing src).
 */
export const TOKENS = {
  CLOCK: Symbol.for('wallet-vault.Clock'),
  ID_GENERATOR: Symbol.for('wallet-vault.IdGenerator'),
  CHAIN_READER: Symbol.for('wallet-vault.ChainReader'),
  REPLAY_GUARD: Symbol.for('wallet-vault.ReplayGuard'),
  WALLET_REPOSITORY: Symbol.for('wallet-vault.WalletRepository'),
  SIGNATURE_LOG: Symbol.for('wallet-vault.SignatureLog'),
  AUDIT_LOG: Symbol.for('wallet-vault.AuditLog'),
  POLICY_REPOSITORY: Symbol.for('wallet-vault.PolicyRepository'),
  JOB_LOCK: Symbol.for('wallet-vault.JobLock'),
  KEY_STORE_REGISTRY: Symbol.for('wallet-vault.KeyStoreRegistry'),
  /** The persistence's KeyQuarantine, or undefined when it has none. */
  KEY_QUARANTINE: Symbol.for('wallet-vault.KeyQuarantine'),
  /** This deployment's id (string), or null when the persistence has none. */
  DEPLOYMENT_ID: Symbol.for('wallet-vault.DeploymentId'),
  /** The validated options createVault was given. */
  OPTIONS: Symbol.for('wallet-vault.Options'),
  /** The version `GET .../status` reports. */
  VERSION: Symbol.for('wallet-vault.Version'),
} as const;

export const {
  CLOCK,
  ID_GENERATOR,
  CHAIN_READER,
  REPLAY_GUARD,
  WALLET_REPOSITORY,
  SIGNATURE_LOG,
  AUDIT_LOG,
  POLICY_REPOSITORY,
  JOB_LOCK,
  KEY_STORE_REGISTRY,
} = TOKENS;
