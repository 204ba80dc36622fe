/** Chain ids of the interface's named chains; `local` has no RPC and takes uniq/signer from the request. */
export const CHAIN_IDS = {
  ethereum: 1n,
  sepolia: 11155111n,
  bsc: 56n,
  'bsc-testnet': 97n,
  polygon: 137n,
  amoy: 80002n,
  avalanche: 43114n,
  fuji: 43113n,
} as const;

export type RpcChainName = keyof typeof CHAIN_IDS;
