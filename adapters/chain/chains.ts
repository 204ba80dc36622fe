import { CHAIN_IDS } from '../../src/domain/chains.js';

/** An EVM chain an operator adds by name and chain id (VAULT_CHAINS, or createVault's `chains`). */
export interface AddedChain {
  /** Lower-case letters, digits and `-`, starting with a letter, at most 32 characters. */
  readonly name: string;
  /** What the chain's RPC must report (eth_chainId) before any of its contracts is read. */
  readonly chainId: bigint;
}

export const CHAIN_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const MAX_CHAIN_ID = 2n ** 64n - 1n;

/**
 * Why `chain` cannot be added after `before`, or null: a name must be new (not built in, not `local`)
 * and an id must not be another chain's, or two names would sign for one chain.
 */
export function addedChainProblem(chain: AddedChain, before: readonly AddedChain[]): string | null {
  if (!CHAIN_NAME.test(chain.name)) return `"${chain.name}" is not a chain name (lower-case letters, digits and -, starting with a letter)`;
  if (chain.chainId < 1n || chain.chainId > MAX_CHAIN_ID) return `chain id of ${chain.name} must be between 1 and 2^64-1`;
  if (chain.name === 'local' || Object.hasOwn(CHAIN_IDS, chain.name) || before.some((c) => c.name === chain.name)) {
    return `${chain.name} is already a chain`;
  }
  const sameId = Object.entries(CHAIN_IDS).find(([, id]) => id === chain.chainId)?.[0] ?? before.find((c) => c.chainId === chain.chainId)?.name;
  return sameId ? `chain id ${chain.chainId} of ${chain.name} is already chain ${sameId}` : null;
}
