import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../adapters/main/config.js';
import { validateVaultOptions } from '../../adapters/main/vault-options.js';
import { shapeOnlyPersistence } from '../support/shape-only-persistence.js';

const load = (env: Record<string, string>) => loadConfig(env, '/srv');

const persistence = shapeOnlyPersistence;

/**
 * An RPC decides the uniq and signer of every contract whose uniq is not pinned: over plain http off
 * the machine, anyone on the path can rewrite its answers. Issue 20 §3.
 */
describe('RPC URLs (VAULT_RPC_URL_<CHAIN>)', () => {
  it('refuses http:// off loopback at start, naming the variable and the way out', () => {
    expect(() => load({ VAULT_RPC_URL_ETHEREUM: 'http://rpc.example:8545/v3/secret-key' })).toThrow(
      /^VAULT_RPC_URL_ETHEREUM: http:\/\/rpc\.example:8545 would let anyone on the network path choose the uniq and signer the vault signs for; use https:\/\/, or set VAULT_RPC_ALLOW_HTTP=true/,
    );
    // The path (an API key, often) is never repeated.
    expect(() => load({ VAULT_RPC_URL_ETHEREUM: 'http://rpc.example:8545/v3/secret-key' })).not.toThrow(/secret-key/);
    // One http URL among several is refused as well, on an added chain too.
    expect(() => load({ VAULT_RPC_URL_SEPOLIA: 'https://a.example,http://b.example' })).toThrow(/^VAULT_RPC_URL_SEPOLIA: http:\/\/b\.example would/);
    expect(() => load({ VAULT_CHAINS: 'base:8453', VAULT_RPC_URL_BASE: 'http://10.0.0.5:8545' })).toThrow(/^VAULT_RPC_URL_BASE: http:\/\/10\.0\.0\.5:8545 would/);
    // Not fooled by a host that merely starts like loopback.
    expect(() => load({ VAULT_RPC_URL_ETHEREUM: 'http://127.0.0.1.attacker.example' })).toThrow(/^VAULT_RPC_URL_ETHEREUM: http:/);
    expect(() => load({ VAULT_RPC_URL_ETHEREUM: 'http://localhost.attacker.example' })).toThrow(/^VAULT_RPC_URL_ETHEREUM: http:/);
  });

  it('accepts http:// on loopback (127.0.0.0/8, ::1, localhost), and anywhere with VAULT_RPC_ALLOW_HTTP=true', () => {
    for (const url of ['http://127.0.0.1:8545', 'http://127.8.9.10', 'http://[::1]:8545', 'http://localhost:8545', 'http://LOCALHOST']) {
      expect(load({ VAULT_RPC_URL_ETHEREUM: url }).rpcUrls, url).toEqual({ ethereum: [url] });
    }
    const config = load({ VAULT_RPC_URL_ETHEREUM: 'http://rpc.example', VAULT_RPC_ALLOW_HTTP: 'true' });
    expect(config.rpcUrls).toEqual({ ethereum: ['http://rpc.example'] });
    expect(config.rpcAllowHttp).toBe(true);
    expect(load({}).rpcAllowHttp).toBe(false);
    expect(() => load({ VAULT_RPC_ALLOW_HTTP: 'yes' })).toThrow(/VAULT_RPC_ALLOW_HTTP: must be true or false/);
  });

  it('takes several comma-separated URLs for one chain, refusing the same one twice and empty lists', () => {
    expect(load({ VAULT_RPC_URL_ETHEREUM: 'https://a.example, https://b.example/v3/k ,' }).rpcUrls).toEqual({
      ethereum: ['https://a.example', 'https://b.example/v3/k'],
    });
    expect(() => load({ VAULT_RPC_URL_ETHEREUM: 'https://a.example,https://a.example' })).toThrow(/^VAULT_RPC_URL_ETHEREUM: a\.example is given twice/);
    expect(() => load({ VAULT_RPC_URL_ETHEREUM: ' , ' })).toThrow(/^VAULT_RPC_URL_ETHEREUM: must name at least one URL/);
    expect(() => load({ VAULT_RPC_URL_ETHEREUM: 'https://a.example,ftp://b.example' })).toThrow(/^VAULT_RPC_URL_ETHEREUM: must be an http\(s\) URL/);
  });
});

describe('createVault rpcUrls and rpcAllowHttp', () => {
  const validate = (options: Record<string, unknown>) => () => validateVaultOptions({ persistence: persistence(), ...options });

  it('refuses http:// off loopback unless rpcAllowHttp, naming the option', () => {
    expect(validate({ rpcUrls: { ethereum: 'http://rpc.example' } })).toThrow(/^ {2}rpcUrls\.ethereum: http:\/\/rpc\.example would .*rpcAllowHttp/m);
    expect(validate({ rpcUrls: { ethereum: ['https://a.example', 'http://rpc.example'] } })).toThrow(/^ {2}rpcUrls\.ethereum: http:\/\/rpc\.example would/m);
    expect(validate({ rpcUrls: { ethereum: 'http://rpc.example' }, rpcAllowHttp: true })).not.toThrow();
    expect(validate({ rpcUrls: { ethereum: 'http://127.0.0.1:8545' } })).not.toThrow();
    expect(validate({ rpcAllowHttp: 'yes' })).toThrow(/^ {2}rpcAllowHttp: /m);
  });

  it('takes one URL or an array of them per chain', () => {
    expect(validate({ rpcUrls: { ethereum: ['https://a.example', 'https://b.example'], sepolia: 'https://s.example' } })).not.toThrow();
    expect(validate({ rpcUrls: { ethereum: [] } })).toThrow(/^ {2}rpcUrls\.ethereum: must name at least one URL/m);
    expect(validate({ rpcUrls: { ethereum: 42 } })).toThrow(/^ {2}rpcUrls\.ethereum: must be a URL or an array of URLs/m);
  });
});
