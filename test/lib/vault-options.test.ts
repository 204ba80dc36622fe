import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVault, DomainError, ErrorCode, TOKENS, VaultOptionsError, type KeyStore, type Persistence } from 'wallet-vault';
import { localFileKeyStore } from 'wallet-vault/keystores/local-file';
import { sqlitePersistence } from 'wallet-vault/persistence/sqlite';
import { hidePackages } from '../support/hidden-packages.js';

describe('createVault refuses bad options at once, naming the option', () => {
  let dir: string;
  let persistence: Persistence;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-options-'));
    persistence = await sqlitePersistence({ path: path.join(dir, 'vault.db') });
  });
  afterAll(async () => {
    await persistence.close();
    await rm(dir, { recursive: true, force: true });
  });
  const store = (name: string) => localFileKeyStore({ keysDir: path.join(dir, name), masterKeyHex: 'cd'.repeat(32) });
  // A store written by an outside author who forgot sign().
  const noSign = { name: 'mine', create: async () => ({ keyRef: 'x', publicKey: new Uint8Array(65) }), destroy: async () => {}, ping: async () => {}, listKeyRefs: async () => [], close: async () => {} };

  it.each([
    ['no persistence', () => ({}), /^ {2}persistence: must be an object$/m],
    ['a key store without sign()', () => ({ persistence, keyStores: [noSign as unknown as KeyStore] }), /^ {2}keyStores\[0\]: must implement sign\(\)$/m],
    ['a key store that is not an object', () => ({ persistence, keyStores: ['local'] as unknown as KeyStore[] }), /^ {2}keyStores\[0\]: must be an object$/m],
    ['a misspelt option', () => ({ persistence, keyStore: store('a') }), /^ {2}keyStore: not an option of createVault$/m],
    ['an unknown default store', () => ({ persistence, keyStores: [store('b')], defaultKeyStore: 'aws-kms' }), /^ {2}defaultKeyStore: no key store named aws-kms in keyStores \(local\)$/m],
    ['two stores of one name', () => ({ persistence, keyStores: [store('c'), store('d')] }), /^ {2}keyStores\[1\]: a second key store named local$/m],
    ['a short auth secret', () => ({ persistence, authSecret: 'short' }), /^ {2}authSecret: must be at least 32 characters$/m],
    ['a persistence missing a port', () => ({ persistence: { ...persistence, jobLock: undefined } }), /^ {2}persistence\.jobLock: must be an object$/m],
  ])('%s', async (_label, options, message) => {
    const error = await createVault(options() as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaultOptionsError);
    expect((error as Error).message).toMatch(/^invalid createVault options:\n/);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses a local-file store without a master key, naming it', () => {
    expect(() => localFileKeyStore({ keysDir: dir } as never)).toThrow(/masterKey: give exactly one of masterKey and masterKeyHex/);
  });

  it('accepts a store written outside the package when it has the whole KeyStore shape', async () => {
    const vault = await createVault({ persistence: await sqlitePersistence({ path: path.join(dir, 'other.db') }), keyStores: [{ ...noSign, sign: async () => ({ r: new Uint8Array(32), s: new Uint8Array(32), v: 27 as const }) }], jobs: false });
    await vault.close();
  });
});

describe('an embedding application rebinds a port', () => {
  it('gives every use case its own clock through configure()', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-rebind-'));
    try {
      const fixed = new Date('2030-01-02T03:04:05.000Z');
      const vault = await createVault({
        persistence: await sqlitePersistence({ path: path.join(dir, 'vault.db') }),
        keyStores: [localFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKeyHex: 'cd'.repeat(32) })],
        jobs: false,
        configure: (container) => {
          container.rebind(TOKENS.CLOCK).toConstantValue({ now: () => new Date(fixed) });
        },
      });
      try {
        const created = await vault.manageVaults.create({ name: 'rebound' });
        const principal = await vault.authenticate.execute((await vault.manageVaults.createApiKey(created.id)).apiKey, created.id);
        const wallet = await vault.createWallet.execute({ principal, name: 'w' });
        expect(wallet.created.toISOString()).toBe(fixed.toISOString());
        expect((await vault.getVaultStatus.execute(created.id)).timestamp.toISOString()).toBe(fixed.toISOString());
      } finally {
        await vault.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('readiness after configure()', () => {
  it('pings the key stores and the repository the use cases resolve, also those rebound in configure()', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-ready-'));
    const persistence = await sqlitePersistence({ path: path.join(dir, 'vault.db') });
    const given = localFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKeyHex: 'cd'.repeat(32) });
    // The application's own store, swapped in for the one the options named; it stops answering later.
    let down = false;
    const own: KeyStore = {
      name: 'own',
      create: given.create.bind(given),
      sign: given.sign.bind(given),
      destroy: given.destroy.bind(given),
      listKeyRefs: given.listKeyRefs!.bind(given),
      close: async () => undefined,
      ping: async () => {
        if (down) throw new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, 'key store own: not answering');
      },
    };
    const vault = await createVault({
      persistence,
      keyStores: [given],
      jobs: false,
      configure: (c) => {
        c.rebind(TOKENS.KEY_STORE_REGISTRY).toConstantValue({ default: own, get: () => own, all: () => [own] });
      },
    });
    try {
      await expect(vault.readiness()).resolves.toBeUndefined();
      down = true;
      await expect(vault.readiness()).rejects.toMatchObject({ code: 'KEYSTORE_UNAVAILABLE', message: expect.stringContaining('key store own') });
    } finally {
      await vault.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('optional drivers', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const DRIVERS = ['better-sqlite3', 'pg', 'pkcs11js', 'node-vault', '@aws-sdk/client-kms', '@azure/keyvault-keys', '@azure/identity'];
  // Node with the optional drivers made uninstallable, as in an application that installed none.
  async function importWithoutDrivers(specifier: string): Promise<{ code: number; stderr: string }> {
    const hidden = await hidePackages(DRIVERS);
    try {
      return await new Promise((resolve) => {
        execFile(process.execPath, [...hidden.nodeOptions.split(' '), '--input-type=module', '-e', `await import(${JSON.stringify(specifier)});`], { cwd: root }, (error, _stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
        );
      });
    } finally {
      await hidden.remove();
    }
  }

  it.each(['wallet-vault', 'wallet-vault/express', 'wallet-vault/keystores/local-file', 'wallet-vault/client'])('%s loads without any of them', async (specifier) => {
    expect(await importWithoutDrivers(specifier)).toEqual({ code: 0, stderr: '' });
  });

  it.each([
    ['wallet-vault/persistence/sqlite', 'better-sqlite3'],
    ['wallet-vault/persistence/postgres', 'pg'],
    ['wallet-vault/keystores/pkcs11', 'pkcs11js'],
    ['wallet-vault/keystores/aws-kms', '@aws-sdk/client-kms'],
    ['wallet-vault/keystores/vault-transit', 'node-vault'],
    ['wallet-vault/keystores/azure-key-vault', '@azure/keyvault-keys'],
  ])('%s fails at import, naming %s to install', async (specifier, driver) => {
    const r = await importWithoutDrivers(specifier);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${specifier} needs the package ${driver}, which is not installed: npm install ${driver}`);
  });
});
