import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../adapters/main/config.js';

const load = (env: Record<string, string>) => loadConfig(env, '/srv');

/** VAULT_PUBLIC_URL: the approvers' console's origin and WebAuthn relying party (docs/console.md). */
describe('VAULT_PUBLIC_URL', () => {
  it('is read as an origin and optional path prefix, without a trailing slash; unset or empty: no console', () => {
    expect(load({ VAULT_PUBLIC_URL: 'https://vault.example' }).publicUrl).toBe('https://vault.example');
    expect(load({ VAULT_PUBLIC_URL: 'https://Ops.Example:8443/treasury/' }).publicUrl).toBe('https://ops.example:8443/treasury');
    expect(load({ VAULT_PUBLIC_URL: 'http://localhost:8080' }).publicUrl).toBe('http://localhost:8080');
    expect(load({ VAULT_PUBLIC_URL: 'http://127.0.0.1:8080' }).publicUrl).toBe('http://127.0.0.1:8080');
    expect(load({}).publicUrl).toBeUndefined();
    expect(load({ VAULT_PUBLIC_URL: '' }).publicUrl).toBeUndefined();
  });

  it('refuses what no browser would offer a passkey to, or what is no URL, naming the variable', () => {
    expect(() => load({ VAULT_PUBLIC_URL: 'http://vault.example' })).toThrow(/^VAULT_PUBLIC_URL: http is a secure context for passkeys only on loopback; use https:\/\/vault\.example/);
    expect(() => load({ VAULT_PUBLIC_URL: 'http://localhost.attacker.example' })).toThrow(/^VAULT_PUBLIC_URL: http/);
    expect(() => load({ VAULT_PUBLIC_URL: 'vault.example' })).toThrow(/^VAULT_PUBLIC_URL: "vault\.example" is not a URL/);
    expect(() => load({ VAULT_PUBLIC_URL: 'ftp://vault.example' })).toThrow(/^VAULT_PUBLIC_URL: must be an https/);
    expect(() => load({ VAULT_PUBLIC_URL: 'https://vault.example/?a=1' })).toThrow(/^VAULT_PUBLIC_URL: no query/);
    expect(() => load({ VAULT_PUBLIC_URL: 'https://user:pw@vault.example' })).toThrow(/^VAULT_PUBLIC_URL: no query, fragment or credentials/);
  });
});
