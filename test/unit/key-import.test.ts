import { randomBytes } from 'node:crypto';
import { encryptKeystoreJson, hexlify, recoverAddress, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { createVault, type Vault } from '../../adapters/main/create-vault.js';
import { KEY_STORE_REGISTRY, WALLET_REPOSITORY } from '../../adapters/main/tokens.js';
import { EthersKeystoreDecryptor } from '../../adapters/ethereum/ethers.keystore-decryptor.js';
import { UuidV7IdGenerator } from '../../adapters/system/uuid-v7.id-generator.js';
import { ImportKey } from '../../src/application/wallets/import-key.use-case.js';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import { ErrorCode } from '../../src/domain/errors.js';
import type { KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import type { WalletRepository } from '../../src/ports/wallet-repository.port.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { InMemoryAuditLog, inMemoryPersistence, InMemoryWalletRepository } from '../support/in-memory.persistence.js';
import { FixedClock } from '../support/movable-clock.js';
import { aVault } from '../support/wallet-mother.js';
import { bindingsOver } from '../support/wallet-bindings.js';

const keyBytes = (w: { readonly privateKey: string }) => Buffer.from(w.privateKey.slice(2), 'hex');
const zeroed = (b: Uint8Array) => b.every((x) => x === 0);

async function withVault(run: (vault: Vault, store: InMemoryKeyStore, vaultId: string) => Promise<void>, store = new InMemoryKeyStore('memory')) {
  const vault = await createVault({ persistence: inMemoryPersistence(), keyStores: [store], jobs: false });
  try {
    const { id } = await vault.manageVaults.create({ name: 'treasury' });
    await run(vault, store, id);
  } finally {
    await vault.close();
  }
}

/** The address the wallet's key signs as, through the vault's own key store registry. */
async function signsAs(vault: Vault, vaultId: string, address: string): Promise<string> {
  const wallet = await vault.container.get<WalletRepository>(WALLET_REPOSITORY).findWallet(vaultId, address, new Date());
  const digest = randomBytes(32);
  const sig = await vault.container.get<KeyStoreRegistry>(KEY_STORE_REGISTRY).get(wallet!.keyStore).sign(wallet!.keyRef, digest);
  return recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v });
}

describe('vault.keys.import (the library path of `wallet-vault keys import`)', () => {
  it("makes a wallet of a raw key with the key's address, zeroes the buffer it was given, and records key.imported without the key", async () => {
    await withVault(async (vault, _store, vaultId) => {
      const key = Wallet.createRandom();
      const given = keyBytes(key);
      const wallet = await vault.keys.import({ vaultId, name: ' hot ', privateKey: given });
      expect(wallet).toMatchObject({ vaultId, name: 'hot', address: key.address, keyStore: 'memory', expires: null, version: 1 });
      expect(zeroed(given)).toBe(true);
      expect(await signsAs(vault, vaultId, key.address)).toBe(key.address);
      expect((await vault.listWallets.execute(vaultId)).page.map((w) => w.address)).toEqual([key.address]);
      const trail = await vault.listAuditRecords.execute({ vaultId });
      expect(trail.at(-1)).toMatchObject({ action: 'key.imported', actor: 'operator', subject: key.address, details: { walletId: wallet.id, name: 'hot', keyStore: 'memory', from: 'private-key' } });
      expect(JSON.stringify(trail).toLowerCase()).not.toContain(key.privateKey.slice(2).toLowerCase());
    });
  });

  it('opens a V3 keystore with its password (zeroed after), and refuses a wrong password storing nothing', async () => {
    await withVault(async (vault, store, vaultId) => {
      const key = Wallet.createRandom();
      const json = await encryptKeystoreJson({ address: key.address, privateKey: key.privateKey }, 'pässword', { scrypt: { N: 1024 } });
      const wrong = Buffer.from('password');
      await expect(vault.keys.import({ vaultId, name: 'k', keystore: { json, password: wrong } })).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: "keystore: wrong password (the keystore's MAC does not match)",
      });
      expect(zeroed(wrong)).toBe(true);
      expect(store.size).toBe(0);
      const notKeystore = vault.keys.import({ vaultId, name: 'k', keystore: { json: '{"version": 1}', password: Buffer.from('x') } });
      await expect(notKeystore).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, message: expect.stringMatching(/^keystore: not a V3 keystore/) });

      const password = Buffer.from('pässword');
      const wallet = await vault.keys.import({ vaultId, name: 'k', keystore: { json, password } });
      expect(wallet.address).toBe(key.address);
      expect(zeroed(password)).toBe(true);
      expect((await vault.listAuditRecords.execute({ vaultId })).at(-1)?.details).toMatchObject({ from: 'keystore' });
    });
  });

  it('refuses an address any wallet record has: this vault, another vault, an expired wallet not yet purged (CONFLICT, nothing stored, key zeroed)', async () => {
    await withVault(async (vault, store, vaultId) => {
      const key = Wallet.createRandom();
      const first = await vault.keys.import({ vaultId, name: 'first', privateKey: keyBytes(key) });
      const again = keyBytes(key);
      await expect(vault.keys.import({ vaultId, name: 'again', privateKey: again })).rejects.toMatchObject({
        code: ErrorCode.CONFLICT,
        message: `address ${key.address} is already wallet ${first.id} ("first") of this vault; nothing was imported`,
      });
      expect(zeroed(again)).toBe(true);
      const other = (await vault.manageVaults.create({ name: 'other' })).id;
      await expect(vault.keys.import({ vaultId: other, name: 'x', privateKey: keyBytes(key) })).rejects.toMatchObject({
        code: ErrorCode.CONFLICT,
        message: expect.stringContaining('is already a wallet of another vault of this database'),
      });
      const repo = vault.container.get<WalletRepository>(WALLET_REPOSITORY);
      await repo.updateWallet({ ...first, expires: new Date(Date.now() - 1000), version: 2 });
      await expect(vault.keys.import({ vaultId, name: 'x', privateKey: keyBytes(key) })).rejects.toMatchObject({
        code: ErrorCode.CONFLICT,
        message: expect.stringContaining('expired and not yet purged: unexpire it'),
      });
      expect(store.size).toBe(1);
    });
  });

  it('is refused by a store without importKey, naming it (KEYSTORE_IMPORT_UNSUPPORTED), before the key is read; the key is zeroed', async () => {
    await withVault(
      async (vault, store, vaultId) => {
        const given = keyBytes(Wallet.createRandom());
        await expect(vault.keys.import({ vaultId, name: 'k', privateKey: given })).rejects.toMatchObject({
          code: ErrorCode.KEYSTORE_IMPORT_UNSUPPORTED,
          message: expect.stringMatching(/^key store memory cannot import keys/),
        });
        expect(zeroed(given)).toBe(true);
        expect(store.size).toBe(0);
      },
      new InMemoryKeyStore('memory', { importKey: false }),
    );
  });

  it('refuses bad input naming the field, never the key: not a key, both or neither source, a bad name, an unknown vault', async () => {
    await withVault(async (vault, store, vaultId) => {
      const order = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');
      for (const privateKey of [new Uint8Array(32), order, new Uint8Array(31).fill(7)]) {
        await expect(vault.keys.import({ vaultId, name: 'k', privateKey })).rejects.toMatchObject({
          code: ErrorCode.INVALID_ARGUMENT,
          message: 'privateKey: not a secp256k1 private key (32 bytes, 1 to n - 1)',
        });
      }
      const key = keyBytes(Wallet.createRandom());
      const both = { vaultId, name: 'k', privateKey: key, keystore: { json: '{}', password: Buffer.from('p') } };
      await expect(vault.keys.import(both)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, message: 'privateKey, keystore: exactly one of them is required' });
      expect(zeroed(key)).toBe(true);
      await expect(vault.keys.import({ vaultId, name: 'k' })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
      const named = keyBytes(Wallet.createRandom());
      await expect(vault.keys.import({ vaultId, name: '  ', privateKey: named })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, message: 'name: must not be empty' });
      expect(zeroed(named)).toBe(true);
      await expect(vault.keys.import({ vaultId: 'nope', name: 'k', privateKey: keyBytes(Wallet.createRandom()) })).rejects.toMatchObject({ code: ErrorCode.VAULT_NOT_FOUND });
      expect(store.size).toBe(0);
    });
  });

  it('reaches the store through the metered wrapper of createVault({ metrics: true }), timed as importKey; a wrapped store without it is still refused', async () => {
    for (const canImport of [true, false]) {
      const vault = await createVault({ persistence: inMemoryPersistence(), keyStores: [new InMemoryKeyStore('memory', { importKey: canImport })], jobs: false, metrics: true });
      try {
        const { id } = await vault.manageVaults.create({ name: 'metered' });
        const key = Wallet.createRandom();
        const imported = vault.keys.import({ vaultId: id, name: 'k', privateKey: keyBytes(key) });
        if (!canImport) {
          await expect(imported).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_IMPORT_UNSUPPORTED });
          continue;
        }
        expect((await imported).address).toBe(key.address);
        const { text } = await vault.metrics!.exposition();
        expect(text).toMatch(/wallet_vault_key_store_operation_duration_seconds_count\{key_store="memory",operation="importKey",outcome="ok"\} 1/);
      } finally {
        await vault.close();
      }
    }
  });

  it('destroys the key it stored when the wallet record cannot be written', async () => {
    const audit = new InMemoryAuditLog();
    const repo = new InMemoryWalletRepository(audit);
    const vault = aVault();
    await repo.ensureAccount(vault.accountId, new Date());
    await repo.insertVault(vault);
    const store = new InMemoryKeyStore('local');
    const failing = Object.assign(Object.create(repo) as InMemoryWalletRepository, {
      insertWallet: async () => {
        throw new Error('disk full');
      },
    });
    const keyStores = new MapKeyStoreRegistry([store], 'local');
    const importKey = new ImportKey({
      repository: failing,
      keyStores,
      bindings: bindingsOver(keyStores, audit),
      decryptor: new EthersKeystoreDecryptor(),
      clock: new FixedClock(new Date()),
      ids: new UuidV7IdGenerator(),
      auditLog: audit,
      deploymentId: null,
    });
    const given = keyBytes(Wallet.createRandom());
    await expect(importKey.import({ vaultId: vault.id, name: 'k', privateKey: given })).rejects.toThrow('disk full');
    expect(store.size).toBe(0);
    expect(zeroed(given)).toBe(true);
    expect(await audit.list({ afterSeq: 0, limit: 10 })).toEqual([]);
  });
});
