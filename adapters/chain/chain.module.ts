import { ContainerModule } from 'inversify';
import type { ChainReader } from '../../src/ports/chain-reader.port.js';
import type { ChainRpc } from '../../src/ports/chain-rpc.port.js';
import { PORT_TOKENS } from '../../src/ports/port-tokens.js';
import type { AddedChain } from './chains.js';
import { JsonRpcChainReader } from './json-rpc.chain-reader.js';
import type { RpcUrls } from './rpc-urls.js';

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
