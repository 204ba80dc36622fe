import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type AppConfig } from '../../adapters/main/config.js';

/**
 * The key stores' part of the configuration, held as it was before each store moved into a folder of its
 * own (issue 37): which stores a given environment opens, with what settings, and the exact message of
 * each refusal.
 */
const load = (env: Record<string, string>) => loadConfig(env, '/srv');
/** The ConfigError loading `env` throws (a test fails when it loads). */
function refusal(env: Record<string, string>): ConfigError {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loaded ${JSON.stringify(env)}`);
}

/** The settings of every configured store besides `local`, by store name. */
function configured(config: AppConfig): Record<string, unknown> {
  const c = config as unknown as Record<string, unknown>;
  const byName: Record<string, unknown> = { pkcs11: c.pkcs11, 'aws-kms': c.awsKms, 'vault-transit': c.vaultTransit };
  return Object.fromEntries(Object.entries(byName).filter(([, s]) => s !== undefined));
}

const transit = { VAULT_ADDR: 'https://vault.internal:8200', VAULT_TOKEN: 'hvs.token', VAULT_TRANSIT_KEY: 'wallet-vault' };
const pkcs11 = { VAULT_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so', VAULT_PKCS11_TOKEN: 'vault', VAULT_PKCS11_PIN: '1234' };

describe('the key stores a configuration opens', () => {
  it('local alone by default, new wallets going there', () => {
    const config = load({});
    expect(config.keyStore).toBe('local');
    expect(configured(config)).toEqual({});
  });

  it('a store named by VAULT_KEYSTORE, with its settings', () => {
    expect(configured(load({ VAULT_KEYSTORE: 'pkcs11', ...pkcs11 }))).toEqual({
      pkcs11: { modulePath: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'vault', pin: '1234' },
    });
    expect(configured(load({ VAULT_KEYSTORE: 'vault-transit', ...transit }))).toEqual({
      'vault-transit': { address: 'https://vault.internal:8200', token: 'hvs.token', mount: 'transit', keyName: 'wallet-vault', cacheTtlMs: 0, allowHttp: false },
    });
    expect(configured(load({ VAULT_KEYSTORE: 'aws-kms', AWS_REGION: 'eu-west-1' }))).toEqual({
      'aws-kms': { region: 'eu-west-1', endpoint: undefined, credentials: undefined },
    });
    const kms = load({
      VAULT_KEYSTORE: 'aws-kms',
      AWS_DEFAULT_REGION: 'us-east-1',
      VAULT_KMS_ENDPOINT: 'http://127.0.0.1:4566',
      AWS_ACCESS_KEY_ID: 'AKID',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'session',
    });
    expect(configured(kms)).toEqual({
      'aws-kms': { region: 'us-east-1', endpoint: 'http://127.0.0.1:4566', credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: 'session' } },
    });
    // One key without the other: the SDK's own chain, not half a credential.
    expect(configured(load({ AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKID' }))).toEqual({ 'aws-kms': { region: 'eu-west-1', endpoint: undefined, credentials: undefined } });
    expect(configured(load({ ...transit, VAULT_TRANSIT_MOUNT: 'kv/transit', VAULT_TRANSIT_CACHE_SECONDS: '30', VAULT_ADDR: 'http://127.0.0.1:8200', VAULT_TRANSIT_ALLOW_HTTP: 'true' }))).toEqual({
      'vault-transit': { address: 'http://127.0.0.1:8200', token: 'hvs.token', mount: 'kv/transit', keyName: 'wallet-vault', cacheTtlMs: 30_000, allowHttp: true },
    });
  });

  it('a store whose own variable is set, whatever VAULT_KEYSTORE says (its wallets keep signing)', () => {
    const config = load({ VAULT_KEYSTORE: 'vault-transit', ...transit, ...pkcs11, AWS_REGION: 'eu-west-1' });
    expect(config.keyStore).toBe('vault-transit');
    expect(Object.keys(configured(config)).sort()).toEqual(['aws-kms', 'pkcs11', 'vault-transit']);
    expect(Object.keys(configured(load({ VAULT_KMS_ENDPOINT: 'https://kms.example', AWS_REGION: 'eu-west-1' })))).toEqual(['aws-kms']);
    // Variables that do not on their own configure their store.
    expect(configured(load({ VAULT_TOKEN: 'hvs.token', VAULT_ADDR: 'https://v.example', VAULT_PKCS11_PIN: '1', AWS_ACCESS_KEY_ID: 'AKID' }))).toEqual({});
  });

  it.each([
    [{ VAULT_KEYSTORE: 'aws-kms' }, 'AWS_REGION: required for the aws-kms key store'],
    [{ VAULT_KMS_ENDPOINT: 'https://kms.example' }, 'AWS_REGION: required for the aws-kms key store'],
    [{ VAULT_KEYSTORE: 'pkcs11' }, 'VAULT_PKCS11_MODULE: required for the pkcs11 key store'],
    [{ VAULT_PKCS11_MODULE: '/lib.so', VAULT_PKCS11_PIN: '1' }, 'VAULT_PKCS11_TOKEN: required for the pkcs11 key store'],
    [{ VAULT_KEYSTORE: 'pkcs11', VAULT_PKCS11_MODULE: '/lib.so', VAULT_PKCS11_TOKEN: 't' }, 'VAULT_PKCS11_PIN: required for the pkcs11 key store'],
    [{ VAULT_KEYSTORE: 'vault-transit' }, 'VAULT_ADDR: required for the vault-transit key store'],
    [{ VAULT_TRANSIT_KEY: 'k', VAULT_ADDR: 'https://v.example' }, 'VAULT_TOKEN: required for the vault-transit key store'],
    [{ VAULT_KEYSTORE: 'vault-transit', VAULT_ADDR: 'https://v.example', VAULT_TOKEN: 't' }, 'VAULT_TRANSIT_KEY: required for the vault-transit key store'],
    [
      { ...transit, VAULT_ADDR: 'http://127.0.0.1:8200' },
      'VAULT_ADDR: http:// would send the Vault token and every wallet key Vault unwraps in clear; use https://, or set VAULT_TRANSIT_ALLOW_HTTP=true for a loopback or otherwise trusted network',
    ],
  ])('refuses %o: %s', (env, message) => {
    expect(refusal(env).message).toBe(message);
  });

  it.each([
    [{ VAULT_KEYSTORE: 'floppy' }, 'VAULT_KEYSTORE: Invalid option: expected one of "local"|"pkcs11"|"aws-kms"|"vault-transit"'],
    [{ AWS_REGION: 'Europe' }, 'AWS_REGION: must be an AWS region such as eu-west-1'],
    [{ VAULT_KMS_ENDPOINT: 'ftp://kms' }, 'VAULT_KMS_ENDPOINT: must be an http(s) URL'],
    [{ VAULT_ADDR: 'vault' }, 'VAULT_ADDR: must be an http(s) URL'],
    [{ VAULT_PKCS11_TOKEN: 'x'.repeat(33) }, 'VAULT_PKCS11_TOKEN: must be at most 32 characters (a PKCS#11 token label)'],
    [{ VAULT_TRANSIT_MOUNT: '/transit' }, 'VAULT_TRANSIT_MOUNT: must be a mount path such as transit'],
    [{ VAULT_TRANSIT_KEY: 'a key' }, 'VAULT_TRANSIT_KEY: must be a Transit key name'],
    [{ VAULT_TRANSIT_CACHE_SECONDS: '86401' }, 'VAULT_TRANSIT_CACHE_SECONDS: must be between 0 and 86400'],
    [{ VAULT_TRANSIT_CACHE_SECONDS: '1.5' }, 'VAULT_TRANSIT_CACHE_SECONDS: must be a whole number'],
    [{ VAULT_TRANSIT_ALLOW_HTTP: 'yes' }, 'VAULT_TRANSIT_ALLOW_HTTP: must be true or false'],
    [{ VAULT_MASTER_KEY: 'xyz' }, 'VAULT_MASTER_KEY: must be 64 hex characters (a 256-bit key)'],
  ])('refuses a value that fails its check: %o', (env, line) => {
    expect(refusal(env).message).toBe(`invalid configuration:\n  ${line}`);
  });

  it('reports every bad value at once, core and store variables alike', () => {
    const lines = refusal({ PORT: 'x', VAULT_TRANSIT_ALLOW_HTTP: 'yes', AWS_REGION: 'Europe' }).message.split('\n  ');
    expect(lines.sort()).toEqual(
      ['AWS_REGION: must be an AWS region such as eu-west-1', 'PORT: must be a whole number', 'VAULT_TRANSIT_ALLOW_HTTP: must be true or false', 'invalid configuration:'].sort(),
    );
  });
});
