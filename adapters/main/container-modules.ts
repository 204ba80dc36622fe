import { ContainerModule } from 'inversify';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import type { ChainReader } from '../../src/ports/chain-reader.port.js';
import type { ChainRpc } from '../../src/ports/chain-rpc.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { IdGenerator } from '../../src/ports/id-generator.port.js';
import type { KeyStore, KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import type { KeystoreDecryptor } from '../../src/ports/keystore-decryptor.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import type { ReplayGuard } from '../../src/ports/replay-guard.port.js';
import type { StandardPayloads } from '../../src/ports/standard-payloads.port.js';
import type { AddedChain } from '../chain/chains.js';
import { JsonRpcChainReader } from '../chain/json-rpc.chain-reader.js';
import type { RpcUrls } from '../chain/rpc-urls.js';
import { EthersKeystoreDecryptor } from '../ethereum/ethers.keystore-decryptor.js';
import { EthersStandardPayloads } from '../ethereum/ethers.standard-payloads.js';
import { InMemoryReplayGuard } from '../replay/in-memory.replay-guard.js';
import { LayeredReplayGuard } from '../replay/layered.replay-guard.js';
import { SystemClock } from '../system/system.clock.js';
import { UuidV7IdGenerator } from '../system/uuid-v7.id-generator.js';
import { PERSISTENCE_PORTS, PORT_TOKENS } from './tokens.js';

// What each adapter family contributes to the vault's container, bound here in the composition root
// (createVault loads them in this order): the families build their objects and know neither inversify
// nor the tokens, which live in tokens.ts.

/** The clock (the caller's, or the system's) and the ids of new records. */
export function systemModule(clock: Clock | undefined): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<Clock>(PORT_TOKENS.CLOCK).toConstantValue(clock ?? new SystemClock());
    bind<IdGenerator>(PORT_TOKENS.ID_GENERATOR).toConstantValue(new UuidV7IdGenerator());
  });
}

export interface ChainModuleOptions {
  /** The caller's own reader; otherwise JSON-RPC over `rpcUrls`. */
  readonly chainReader?: ChainReader;
  readonly rpcUrls?: Readonly<Record<string, RpcUrls>>;
  readonly chains?: readonly AddedChain[];
  readonly outboundTimeoutMs?: number;
}

/** Sign's on-chain reads (uniq, signer): built on first use, so a vault that never signs opens no RPC client. */
export function chainModule(options: ChainModuleOptions): ContainerModule {
  const jsonRpc = () =>
    new JsonRpcChainReader({
      rpcUrls: options.rpcUrls ?? {},
      addedChainIds: Object.fromEntries((options.chains ?? []).map((c) => [c.name, c.chainId])),
      timeoutMs: options.outboundTimeoutMs ?? 5000,
    });
  return new ContainerModule(({ bind }) => {
    bind<ChainReader>(PORT_TOKENS.CHAIN_READER).toDynamicValue(() => options.chainReader ?? jsonRpc());
    // The JSON-RPC endpoint's relay reaches the configured RPCs even where Sign reads through a reader of the caller's.
    bind<ChainRpc>(PORT_TOKENS.CHAIN_RPC).toDynamicValue(jsonRpc);
  });
}

/** The encoding of standard payloads (messages, typed data, transactions) the standard-signing use cases sign; V3 keystores for a key import. */
export function ethereumModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<StandardPayloads>(PORT_TOKENS.STANDARD_PAYLOADS).toConstantValue(new EthersStandardPayloads());
    bind<KeystoreDecryptor>(PORT_TOKENS.KEYSTORE_DECRYPTOR).toConstantValue(new EthersKeystoreDecryptor());
  });
}

/**
 * The replay guard of `X-Vault-Auth-Signature` nonces, on the vault's clock: the persistence's shared one
 * when it has one (every process on the database refuses a replay) behind this process's memory (which
 * refuses a replay to this process even if the database forgot the nonce), else the memory alone.
 */
export function replayModule(shared: ((now: () => number) => ReplayGuard) | undefined): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<ReplayGuard>(PORT_TOKENS.REPLAY_GUARD).toDynamicValue((ctx) => {
      const clock = ctx.get<Clock>(PORT_TOKENS.CLOCK);
      const now = () => clock.now().getTime();
      const local = new InMemoryReplayGuard(undefined, now);
      return shared ? new LayeredReplayGuard(local, shared(now)) : local;
    });
  });
}

/**
 * One binding per persistence port of an opened database (PERSISTENCE_PORTS: each token and the field it
 * is read from), whichever dialect opened it (SQLite, PostgreSQL, the in-memory twin); `deploymentId` is
 * what its KeyQuarantine reported at start.
 */
export function persistenceModule(persistence: Persistence, deploymentId: string | null): ContainerModule {
  return new ContainerModule(({ bind }) => {
    for (const [name, field] of Object.entries(PERSISTENCE_PORTS) as [keyof typeof PERSISTENCE_PORTS, keyof Persistence][]) {
      bind(PORT_TOKENS[name]).toConstantValue(persistence[field]);
    }
    bind(PORT_TOKENS.DEPLOYMENT_ID).toConstantValue(deploymentId);
  });
}

/**
 * The opened key stores by name, new wallets going to `defaultName` (default: the first). Without any
 * store the registry stays unbound: a use case that needs it fails to resolve, the others serve.
 */
export function keyStoresModule(keyStores: readonly KeyStore[], defaultName: string | undefined): ContainerModule {
  return new ContainerModule(({ bind }) => {
    if (keyStores.length === 0) return;
    bind<KeyStoreRegistry>(PORT_TOKENS.KEY_STORE_REGISTRY).toConstantValue(new MapKeyStoreRegistry(keyStores, defaultName ?? keyStores[0]!.name));
  });
}
