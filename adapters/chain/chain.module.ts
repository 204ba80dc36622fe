import { ContainerModule } from 'inversify';
import type { ChainReader } from '../../src/ports/chain-reader.port.js';
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
  return new ContainerModule(({ bind }) => {
    bind<ChainReader>(PORT_TOKENS.CHAIN_READER).toDynamicValue(
      () =>
        options.chainReader ??
        new JsonRpcChainReader({
          rpcUrls: options.rpcUrls ?? {},
          addedChainIds: Object.fromEntries((options.chains ?? []).map((c) => [c.name, c.chainId])),
          timeoutMs: options.outboundTimeoutMs ?? 5000,
        }),
    );
  });
}
