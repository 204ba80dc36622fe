import type { ChainReader } from '../../src/ports/chain-reader.port.js';
import type { ChainRpc } from '../../src/ports/chain-rpc.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { IdGenerator } from '../../src/ports/id-generator.port.js';
import type { KeystoreDecryptor } from '../../src/ports/keystore-decryptor.port.js';
import type { KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import type { ReplayGuard } from '../../src/ports/replay-guard.port.js';
import type { StandardPayloads } from '../../src/ports/standard-payloads.port.js';

/**
 * The container's tokens live here, in the composition root, never in src/ports: the core takes plain
 * constructor arguments and knows no container, and the adapter families contribute their bindings
 * through container-modules.ts, beside this file, so none of them knows the container either.
 *
 * A port's identifier in a dependency container: a plain symbol at run time, carrying the port's type
 * for whoever looks it up (use-cases.ts reads each port as the type its token names).
 */
export type PortToken<T> = symbol & { readonly __port?: T };

/** `Symbol.for` keeps a token equal across copies of this module (the package and a test importing src). */
const token = <T>(port: string): PortToken<T> => Symbol.for(`wallet-vault.${port}`) as PortToken<T>;

/** The type a token or class stands for. */
export type PortOf<I> = I extends PortToken<infer T> ? T : I extends abstract new (...args: never[]) => infer T ? T : never;

/**
 * The ports an opened database carries: each token's name and the `Persistence` field it is bound from,
 * the one line that wires a persistence port. The persistence module binds every entry, whichever
 * dialect opened the database; the token's type is the field's. A field absent from a persistence (one
 * written for an earlier release) is bound as undefined.
 */
export const PERSISTENCE_PORTS = {
  WALLET_REPOSITORY: 'repository',
  SIGNATURE_LOG: 'signatureLog',
  AUDIT_LOG: 'auditLog',
  POLICY_REPOSITORY: 'policies',
  JOB_LOCK: 'jobLock',
  /** The persistence's KeyQuarantine, or undefined when it has none. */
  KEY_QUARANTINE: 'keyQuarantine',
  /** The persistence's SignCounter (limits per window), or undefined when it has none. */
  SIGN_COUNTER: 'signCounter',
  /** The persistence's ApprovalStore (signs held for a quorum), or undefined when it has none. */
  APPROVAL_STORE: 'approvals',
  /** The persistence's WebhookOutbox, or undefined when it has none. */
  WEBHOOK_OUTBOX: 'webhooks',
  /** The persistence's GovernanceStore, or undefined when it has none. */
  GOVERNANCE_STORE: 'governance',
  /** The approvers' console's invites, passkeys and sessions (src/ports/console-store.port.ts). */
  CONSOLE_STORE: 'console',
  /** The audit sinks' cursors (audit streaming), or undefined when the persistence keeps none. */
  AUDIT_STREAM_CURSORS: 'auditStreamCursors',
  /** The named operators (src/ports/operator-store.port.ts), or undefined when the persistence has none. */
  OPERATOR_STORE: 'operators',
  /** The logical copy of the tables a backup carries, or undefined when the persistence has none. */
  DATABASE_DUMP: 'databaseDump',
} as const satisfies Readonly<Record<string, keyof Persistence>>;

type PersistenceTokens = { readonly [N in keyof typeof PERSISTENCE_PORTS]: PortToken<Persistence[(typeof PERSISTENCE_PORTS)[N]]> };
const persistenceTokens = Object.fromEntries(Object.keys(PERSISTENCE_PORTS).map((name) => [name, token(name)])) as PersistenceTokens;

/**
 * The identifier of each port in the container: container-modules.ts binds the adapters by these and
 * use-cases.ts reads the ports by them.
 */
export const PORT_TOKENS = {
  CLOCK: token<Clock>('Clock'),
  ID_GENERATOR: token<IdGenerator>('IdGenerator'),
  CHAIN_READER: token<ChainReader>('ChainReader'),
  /** The chains' RPCs as the JSON-RPC endpoint relays to them. */
  CHAIN_RPC: token<ChainRpc>('ChainRpc'),
  REPLAY_GUARD: token<ReplayGuard>('ReplayGuard'),
  KEY_STORE_REGISTRY: token<KeyStoreRegistry>('KeyStoreRegistry'),
  /** Encoding of messages, typed data and transactions (src/ports/standard-payloads.port.ts). */
  STANDARD_PAYLOADS: token<StandardPayloads>('StandardPayloads'),
  /** This deployment's id (string), or null when the persistence has none. */
  DEPLOYMENT_ID: token<string | null>('DeploymentId'),
  ...persistenceTokens,
  /** Opens V3 keystore files for a key import (src/ports/keystore-decryptor.port.ts). */
  KEYSTORE_DECRYPTOR: token<KeystoreDecryptor>('KeystoreDecryptor'),
} as const;

/**
 * Every inversify token of the vault's container: the ports' (PORT_TOKENS, bound by container-modules.ts)
 * and the root's own settings. An embedding application rebinds a
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
