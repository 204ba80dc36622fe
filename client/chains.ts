// Generated from the chain table (src/domain/chains.ts) by `npm run build`; do not edit.

/** The interface's chains; a server adds more with VAULT_CHAINS. */
export const CHAINS = ['ethereum', 'sepolia', 'bsc', 'bsc-testnet', 'polygon', 'amoy', 'avalanche', 'fuji', 'local'] as const;

export type ChainName = (typeof CHAINS)[number];
