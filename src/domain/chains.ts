/**
 * The interface's chains, written once: the names Sign and the policy accept, the chains that can have
 * an RPC and the chain id each must report. Everything else is read from here (the use cases' CHAINS,
 * the configuration's RPC chains, the chain reader's ids, the client's `Chain`); an operator adds more
 * with VAULT_CHAINS. `local` has no chain id and never an RPC: its uniq and signer come from the request.
 */
export const CHAIN_TABLE = [
  { name: 'ethereum', chainId: 1n },
  { name: 'sepolia', chainId: 11155111n },
  { name: 'bsc', chainId: 56n },
  { name: 'bsc-testnet', chainId: 97n },
  { name: 'polygon', chainId: 137n },
  { name: 'amoy', chainId: 80002n },
  { name: 'avalanche', chainId: 43114n },
  { name: 'fuji', chainId: 43113n },
  { name: 'local', chainId: null },
] as const;

type ChainRow = (typeof CHAIN_TABLE)[number];
export type ChainName = ChainRow['name'];
type RpcChainRow = Extract<ChainRow, { readonly chainId: bigint }>;
/** A chain of the interface that can have an RPC (every one but `local`). */
export type RpcChainName = RpcChainRow['name'];

const hasChainId = (chain: ChainRow): chain is RpcChainRow => chain.chainId !== null;

/** The chains of the interface; an operator may add more (the composition root passes the full list). */
export const CHAINS: readonly ChainName[] = CHAIN_TABLE.map((chain) => chain.name);

/** The chains of the interface that can have an RPC; `local` never has one. */
export const RPC_CHAINS: readonly RpcChainName[] = CHAIN_TABLE.filter(hasChainId).map((chain) => chain.name);

/** Chain ids of the interface's chains that have one. */
export const CHAIN_IDS: Readonly<Record<RpcChainName, bigint>> = Object.fromEntries(CHAIN_TABLE.filter(hasChainId).map((chain) => [chain.name, chain.chainId])) as Record<RpcChainName, bigint>;
