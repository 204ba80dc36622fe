import { PORT_TOKENS } from '../../src/ports/port-tokens.js';

/**
 * Every inversify token of the vault's container: the ports' (src/ports/port-tokens.ts, bound by each
 * adapter family's container module) and the root's own settings. An embedding application rebinds a
 * token in `createVault({ configure })` (e.g. its own KeyStoreRegistry) before any use case is built.
 */
export const TOKENS = {
  ...PORT_TOKENS,
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
