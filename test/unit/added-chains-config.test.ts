import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../adapters/main/config.js';

const load = (env: Record<string, string>) => loadConfig(env, '/srv');

describe('chains beyond the interface (VAULT_CHAINS)', () => {
  it('adds EVM chains by name and chain id, each with an optional RPC URL', () => {
    const config = load({ VAULT_CHAINS: 'arbitrum:42161, base:8453,optimism:10', VAULT_RPC_URL_ARBITRUM: 'https://arb.example', VAULT_RPC_URL_SEPOLIA: 'http://sep.example' });
    expect(config.addedChains).toEqual([
      { name: 'arbitrum', chainId: 42161n },
      { name: 'base', chainId: 8453n },
      { name: 'optimism', chainId: 10n },
    ]);
    expect(config.rpcUrls).toEqual({ arbitrum: 'https://arb.example', sepolia: 'http://sep.example' });
    expect(load({ VAULT_CHAINS: 'arbitrum-sepolia:421614', VAULT_RPC_URL_ARBITRUM_SEPOLIA: 'http://a.example' }).rpcUrls).toEqual({
      'arbitrum-sepolia': 'http://a.example',
    });
  });

  it('none by default', () => {
    expect(load({}).addedChains).toEqual([]);
  });

  it.each([
    [{ VAULT_RPC_URL_MAINNET: 'http://x.example' }, /^VAULT_RPC_URL_MAINNET: names no chain with an RPC \(chains: ethereum, .*fuji\); to add an EVM chain, set VAULT_CHAINS=mainnet:<chain id>$/],
    [{ VAULT_RPC_URL_LOCAL: 'http://x.example' }, /^VAULT_RPC_URL_LOCAL: names no chain/],
    [{ VAULT_RPC_URL_BASE: 'http://x.example' }, /^VAULT_RPC_URL_BASE: names no chain .*VAULT_CHAINS=base:<chain id>/],
    [{ VAULT_CHAINS: 'base:8453', VAULT_RPC_URL_BASE: 'not a url' }, /VAULT_RPC_URL_BASE: must be an http\(s\) URL/],
    [{ VAULT_CHAINS: 'arbitrum' }, /^VAULT_CHAINS: "arbitrum" must be name:chainId/],
    [{ VAULT_CHAINS: 'Arbitrum:42161' }, /^VAULT_CHAINS: "Arbitrum:42161" must be name:chainId/],
    [{ VAULT_CHAINS: 'arbitrum:0x1' }, /^VAULT_CHAINS: "arbitrum:0x1" must be name:chainId/],
    [{ VAULT_CHAINS: 'arbitrum:0' }, /^VAULT_CHAINS: chain id of arbitrum must be between 1 and 2\^64-1$/],
    [{ VAULT_CHAINS: 'big:18446744073709551616' }, /^VAULT_CHAINS: chain id of big must be between 1 and 2\^64-1$/],
    [{ VAULT_CHAINS: 'ethereum:5' }, /^VAULT_CHAINS: ethereum is already a chain$/],
    [{ VAULT_CHAINS: 'local:31337' }, /^VAULT_CHAINS: local is already a chain$/],
    [{ VAULT_CHAINS: 'base:8453,base:84532' }, /^VAULT_CHAINS: base is already a chain$/],
    [{ VAULT_CHAINS: 'mainnet:1' }, /^VAULT_CHAINS: chain id 1 of mainnet is already chain ethereum$/],
    [{ VAULT_CHAINS: 'a:10,b:10' }, /^VAULT_CHAINS: chain id 10 of b is already chain a$/],
  ])('stops the start on %o', (env, message) => {
    expect(() => load(env)).toThrow(message);
  });
});
