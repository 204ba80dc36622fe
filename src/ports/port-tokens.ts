import type { ChainReader } from './chain-reader.port.js';
import type { ChainRpc } from './chain-rpc.port.js';
import type { Clock } from './clock.port.js';
import type { IdGenerator } from './id-generator.port.js';
import type { KeystoreDecryptor } from './keystore-decryptor.port.js';
import type { KeyStoreRegistry } from './key-store.port.js';
import type { Persistence } from './persistence.port.js';
import type { ReplayGuard } from './replay-guard.port.js';
import type { StandardPayloads } from './standard-payloads.port.js';

/**
 * A port's identifier in a dependency container: a plain symbol at run time, carrying the port's type
 * for whoever looks it up (adapters/main/use-cases.ts reads each port as the type its token names).
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
  /** The named operators (src/ports/operator-store.port.ts), or undefined when the persistence has none. */
  OPERATOR_STORE: 'operators',
} as const satisfies Readonly<Record<string, keyof Persistence>>;

type PersistenceTokens = { readonly [N in keyof typeof PERSISTENCE_PORTS]: PortToken<Persistence[(typeof PERSISTENCE_PORTS)[N]]> };
const persistenceTokens = Object.fromEntries(Object.keys(PERSISTENCE_PORTS).map((name) => [name, token(name)])) as PersistenceTokens;

/**
 * The identifier of each port in a dependency container: the composition root (adapters/main) and each
 * adapter family's container module bind and look ports up by these. Plain symbols, so the core still
 * imports no container library.
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
