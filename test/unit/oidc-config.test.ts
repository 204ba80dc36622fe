import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../adapters/main/config.js';
import { validateVaultOptions, type VaultOptions } from '../../adapters/main/vault-options.js';

const load = (env: Record<string, string>) => loadConfig(env, '/srv');
const ISSUER = 'https://login.example.com/realms/ops';

/** VAULT_OIDC_*: the operators' sign-in through the company's OpenID Connect provider (docs/operators.md). */
describe('VAULT_OIDC_ISSUER and its variables', () => {
  it('are read together; the issuer is kept exactly as given; the operator claim defaults to email', () => {
    expect(load({}).oidc).toBeUndefined();
    expect(load({ VAULT_OIDC_ISSUER: ISSUER, VAULT_OIDC_CLIENT_ID: 'wallet-vault' }).oidc).toEqual({ issuer: ISSUER, clientId: 'wallet-vault', operatorClaim: 'email' });
    expect(load({ VAULT_OIDC_ISSUER: `${ISSUER}/`, VAULT_OIDC_CLIENT_ID: 'c', VAULT_OIDC_CLIENT_SECRET: 's3cret', VAULT_OIDC_OPERATOR_CLAIM: 'preferred_username' }).oidc).toEqual({
      issuer: `${ISSUER}/`,
      clientId: 'c',
      clientSecret: 's3cret',
      operatorClaim: 'preferred_username',
    });
    expect(load({ VAULT_OIDC_ISSUER: 'http://127.0.0.1:9000', VAULT_OIDC_CLIENT_ID: 'c' }).oidc?.issuer).toBe('http://127.0.0.1:9000');
  });

  it('refuses an issuer off https (but on loopback), a half configuration, or a stray variable, naming it', () => {
    expect(() => load({ VAULT_OIDC_ISSUER: 'http://login.example.com', VAULT_OIDC_CLIENT_ID: 'c' })).toThrow(/VAULT_OIDC_ISSUER: must be an https URL \(http on loopback only\)/);
    expect(() => load({ VAULT_OIDC_ISSUER: 'login.example.com', VAULT_OIDC_CLIENT_ID: 'c' })).toThrow(/VAULT_OIDC_ISSUER: "login\.example\.com" is not a URL/);
    expect(() => load({ VAULT_OIDC_ISSUER: `${ISSUER}?x=1`, VAULT_OIDC_CLIENT_ID: 'c' })).toThrow(/VAULT_OIDC_ISSUER: no query, fragment or credentials/);
    expect(() => load({ VAULT_OIDC_ISSUER: ISSUER })).toThrow(/^VAULT_OIDC_CLIENT_ID: needed with VAULT_OIDC_ISSUER/);
    expect(() => load({ VAULT_OIDC_CLIENT_SECRET: 'x' })).toThrow(/^VAULT_OIDC_CLIENT_SECRET: only with VAULT_OIDC_ISSUER/);
    expect(() => load({ VAULT_OIDC_ISSUER: ISSUER, VAULT_OIDC_CLIENT_ID: 'c', VAULT_OIDC_OPERATOR_CLAIM: 'e mail' })).toThrow(/VAULT_OIDC_OPERATOR_CLAIM: must be a claim name/);
  });

  it("createVault's `oidc` takes the same rule", () => {
    const persistence = { close: async () => {}, repository: {}, signatureLog: {}, auditLog: {}, policies: {}, jobLock: {} } as unknown as VaultOptions['persistence'];
    const check = (oidc: unknown) => () => validateVaultOptions({ persistence, oidc });
    expect(check({ issuer: 'http://login.example.com', clientId: 'c' })).toThrow(/oidc\.issuer: must be an https URL \(http on loopback only\)/);
    expect(check({ issuer: ISSUER, clientId: 'c', scope: 'x' })).toThrow(/oidc/);
  });
});
