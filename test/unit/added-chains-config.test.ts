import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../adapters/main/config.js';
import { validateVaultOptions } from '../../adapters/main/vault-options.js';
import { shapeOnlyPersistence } from '../support/shape-only-persistence.js';

const load = (env: Record<string, string>) => loadConfig(env, '/srv');

describe('chains beyond the interface (VAULT_CHAINS)', () => {
  it('adds EVM chains by name and chain id, each with an optional RPC URL', () => {
    const config = load({ VAULT_CHAINS: 'arbitrum:42161, base:8453,optimism:10', VAULT_RPC_URL_ARBITRUM: 'https://arb.example', VAULT_RPC_URL_SEPOLIA: 'https://sep.example' });
    expect(config.addedChains).toEqual([
      { name: 'arbitrum', chainId: 42161n },
      { name: 'base', chainId: 8453n },
      { name: 'optimism', chainId: 10n },
    ]);
    expect(config.rpcUrls).toEqual({ arbitrum: ['https://arb.example'], sepolia: ['https://sep.example'] });
    expect(load({ VAULT_CHAINS: 'arbitrum-sepolia:421614', VAULT_RPC_URL_ARBITRUM_SEPOLIA: 'https://a.example' }).rpcUrls).toEqual({
      'arbitrum-sepolia': ['https://a.example'],
    });
  });

  it('none by default', () => {
    expect(load({}).addedChains).toEqual([]);
  });

  it.each([
    [{ VAULT_RPC_URL_MAINNET: 'http://x.example' }, /^VAULT_RPC_URL_MAINNET: names no chain with an RPC \(chains: ethereum, .*fuji\); to add an EVM chain, set VAULT_CHAINS=mainnet:<chain id>$/],
    // local is a chain that never has an RPC: the hint is not to add it again (VAULT_CHAINS refuses that).
    [{ VAULT_RPC_URL_LOCAL: 'http://x.example' }, /^VAULT_RPC_URL_LOCAL: names no chain .*; the chain local never has an RPC .*add it under another name, e\.g\. VAULT_CHAINS=anvil:31337 and VAULT_RPC_URL_ANVIL$/],
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

describe('createVault takes added chains as typed options', () => {
  const persistence = shapeOnlyPersistence;
  it('accepts chains and RPC URLs for them', () => {
    expect(() => validateVaultOptions({ persistence: persistence(), chains: [{ name: 'base', chainId: 8453n }], rpcUrls: { base: 'https://b.example', sepolia: 'https://s.example' } })).not.toThrow();
  });
  it.each([
    [{ chains: [{ name: 'ethereum', chainId: 5n }] }, /^ {2}chains\[0\]: ethereum is already a chain$/m],
    [{ chains: [{ name: 'a', chainId: 10n }, { name: 'b', chainId: 10n }] }, /^ {2}chains\[1\]: chain id 10 of b is already chain a$/m],
    [{ chains: [{ name: 'Base', chainId: 8453n }] }, /^ {2}chains\[0\]: "Base" is not a chain name/m],
    [{ rpcUrls: { mainnet: 'http://m.example' } }, /^ {2}rpcUrls\.mainnet: mainnet is no chain with an RPC \(add it to chains\)$/m],
  ])('refuses %o', (options, message) => {
    expect(() => validateVaultOptions({ persistence: persistence(), ...options })).toThrow(message);
  });
});
