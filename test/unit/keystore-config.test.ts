import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyStoreSettingsError } from '../../adapters/keystore/key-store-module.js';
import { localFileModule } from '../../adapters/keystore/local-file/module.js';
import { REGISTERED_KEY_STORES } from '../../adapters/keystore/registered-key-stores.js';
import { ConfigError, KEYSTORES, keyStoresHelp, loadConfig, type AppConfig } from '../../adapters/main/config.js';
import { vaultFromConfig } from '../../adapters/main/vault-from-config.js';
import { inMemoryPersistence } from '../../adapters/testing/in-memory.persistence.js';

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

/** The settings of every configured store besides `local` (always configured), by store name. */
function configured(config: AppConfig): Record<string, unknown> {
  expect(config.keyStoreSettings.has('local')).toBe(true);
  return Object.fromEntries([...config.keyStoreSettings].filter(([name]) => name !== 'local'));
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
    // Every registered name, in registration order ("local"|"pkcs11"|"aws-kms"|"vault-transit"|…).
    [{ VAULT_KEYSTORE: 'floppy' }, `VAULT_KEYSTORE: Invalid option: expected one of ${KEYSTORES.map((name) => `"${name}"`).join('|')}`],
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

describe('each store is one module of the registered list', () => {
  const docs = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/keystores.md'), 'utf8');
  /** The text of docs/keystores.md under the `## ` heading whose GitHub anchor is `anchor`, up to the next one. */
  const section = (anchor: string): string | undefined => {
    const parts = docs.split(/^## /m).slice(1);
    const slug = (heading: string) => heading.toLowerCase().replace(/[^a-z0-9 -]/g, '').trim().replace(/ /g, '-');
    return parts.find((part) => slug(part.split('\n')[0]!) === anchor);
  };

  it('VAULT_KEYSTORE takes the registered names, local first, and --help names each with its docs section', () => {
    expect(KEYSTORES).toEqual(REGISTERED_KEY_STORES.map((store) => store.name));
    // The four stores of before keep their order; a store added later follows them.
    expect(KEYSTORES.slice(0, 4)).toEqual(['local', 'pkcs11', 'aws-kms', 'vault-transit']);
    expect(keyStoresHelp()).toMatch(
      /^local \(docs\/keystores\.md#local-default\), pkcs11 \(docs\/keystores\.md#pkcs11\), aws-kms \(docs\/keystores\.md#aws-kms\), vault-transit \(docs\/keystores\.md#vault-transit\)/,
    );
    expect(keyStoresHelp().split(', ')).toHaveLength(KEYSTORES.length);
  });

  it("documents every store's variables in the section its docsAnchor names", () => {
    for (const store of REGISTERED_KEY_STORES) {
      const text = section(store.docsAnchor);
      expect(text, `docs/keystores.md#${store.docsAnchor}`).toBeDefined();
      const missing = Object.keys(store.environment).filter((name) => !text!.includes(name));
      expect(missing, `variables of ${store.name} missing from docs/keystores.md#${store.docsAnchor}`).toEqual([]);
    }
  });

  it("a store's variables are its own: each name has one owner, and the configuration file accepts them", async () => {
    const owners = REGISTERED_KEY_STORES.flatMap((store) => Object.keys(store.environment));
    expect(new Set(owners).size).toBe(owners.length);
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-ks-config-'));
    try {
      await writeFile(path.join(dir, 'vault.json'), JSON.stringify({ VAULT_KEYSTORE: 'pkcs11', ...pkcs11 }));
      expect(configured(loadConfig({}, dir, { configFile: 'vault.json' }))).toEqual({ pkcs11: { modulePath: pkcs11.VAULT_PKCS11_MODULE, tokenLabel: 'vault', pin: '1234' } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the local store: always configured, opened in the data directory', () => {
  let dataDir: string;
  const warnings: string[] = [];
  const logger = { warn: (_fields: Record<string, unknown>, message: string) => void warnings.push(message) };
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-local-module-'));
    warnings.length = 0;
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is configured whatever VAULT_KEYSTORE says, and carries VAULT_MASTER_KEY', () => {
    expect(localFileModule.settings({}, false)).toEqual({ masterKeyHex: undefined });
    const hex = 'ab'.repeat(32);
    expect(load({ VAULT_KEYSTORE: 'pkcs11', ...pkcs11, VAULT_MASTER_KEY: hex }).keyStoreSettings.get('local')).toEqual({ masterKeyHex: hex });
  });

  it('opens only with the data directory; creates master.key there and says it sits beside the data', async () => {
    await expect(localFileModule.open({ masterKeyHex: undefined }, { requestTimeoutMs: 1000 })).rejects.toThrow(/KeyStoreOpenContext\.dataDir/);
    const store = await localFileModule.open({ masterKeyHex: undefined }, { requestTimeoutMs: 1000, dataDir, logger, signingThread: false });
    try {
      expect(store.name).toBe('local');
      await store.ping();
      expect(warnings).toEqual([expect.stringMatching(/^VAULT_MASTER_KEY is not set: the master key sits in a file beside the data it protects/)]);
    } finally {
      await store.close();
    }
  });

  it('a master key that is not the one of the key files stops the start as a configuration error, in the words of before', async () => {
    const first = await localFileModule.open({ masterKeyHex: undefined }, { requestTimeoutMs: 1000, dataDir, signingThread: false });
    await first.create();
    await first.close();
    // VAULT_MASTER_KEY beside a master.key holding another key.
    const other = randomBytes(32).toString('hex');
    const clash = await localFileModule.open({ masterKeyHex: other }, { requestTimeoutMs: 1000, dataDir }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(clash).toBeInstanceOf(KeyStoreSettingsError);
    expect((clash as Error).message).toMatch(/^VAULT_MASTER_KEY and .*master\.key hold different keys\. VAULT_MASTER_KEY must hold the 64-hex content of master\.key;/);
    // Through the composition root, the same message as a ConfigError (what `serve` prints, exit 2).
    const config = loadConfig({ VAULT_DATA_DIR: dataDir, VAULT_MASTER_KEY: other }, dataDir);
    const refused = await vaultFromConfig(config, { overrides: { persistence: inMemoryPersistence() }, jobs: false }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toBe((clash as Error).message);
    // Without master.key, a VAULT_MASTER_KEY that did not wrap the key files: refused by the check value.
    await rm(path.join(dataDir, 'master.key'));
    const mismatch = await localFileModule.open({ masterKeyHex: other }, { requestTimeoutMs: 1000, dataDir }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(mismatch).toBeInstanceOf(KeyStoreSettingsError);
    expect((mismatch as Error).message).toMatch(/^master key mismatch: VAULT_MASTER_KEY is not the key that wrapped /);
  });
});
