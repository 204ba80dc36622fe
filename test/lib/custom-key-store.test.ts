import { randomBytes, randomUUID } from 'node:crypto';
import { getBytes, SigningKey, Signature } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
// Written as the author of a key store outside this repository would: only the package's public
// entries, by name, and ethers for the curve.
import { createVault, DomainError, ErrorCode, type CreatedKey, type KeyStore, type RecoverableSignature } from 'wallet-vault';
import { describeKeyStoreContract, inMemoryPersistence } from 'wallet-vault/testing';

/** A key store of one's own: secp256k1 keys in a Map, signed with ethers. */
class EthersMemoryKeyStore implements KeyStore {
  readonly name = 'ethers-memory';
  private readonly keys = new Map<string, { key: SigningKey; created: Date }>();

  async create(): Promise<CreatedKey> {
    const key = new SigningKey(randomBytes(32));
    const keyRef = randomUUID();
    this.keys.set(keyRef, { key, created: new Date() });
    return { keyRef, publicKey: getBytes(key.publicKey) };
  }
  async sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    const entry = this.keys.get(keyRef);
    if (!entry) throw new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store ${this.name}: no such key`);
    // ethers signs the digest as is and returns a canonical (low-s) signature with v 27 or 28.
    const sig = Signature.from(entry.key.sign(digest));
    return { r: getBytes(sig.r), s: getBytes(sig.s), v: sig.v };
  }
  async destroy(keyRef: string): Promise<void> {
    this.keys.delete(keyRef);
  }
  async ping(): Promise<void> {}
  async listKeyRefs(createdBefore: Date): Promise<string[]> {
    return [...this.keys].filter(([, { created }]) => created < createdBefore).map(([ref]) => ref);
  }
  async close(): Promise<void> {
    this.keys.clear();
  }
}

// The same suite every built-in store passes, from the public testing entry.
describeKeyStoreContract('a custom store written against the public port', async () => ({
  store: new EthersMemoryKeyStore(),
  cleanup: async () => undefined,
}));

describe('a custom key store in a vault', () => {
  const vaults: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(vaults.map((v) => v.close()));
  });

  it('holds the keys of the wallets a vault creates, over the in-memory persistence twin', async () => {
    const store = new EthersMemoryKeyStore();
    const vault = await createVault({ persistence: inMemoryPersistence(), keyStores: [store], jobs: false });
    vaults.push(vault);
    const created = await vault.manageVaults.create({ name: 'custom' });
    const principal = await vault.authenticate.execute((await vault.manageVaults.createApiKey(created.id)).apiKey, created.id);
    const wallet = await vault.createWallet.execute({ principal, name: 'w' });
    expect(wallet).toMatchObject({ keyStore: 'ethers-memory' });
    expect(await store.listKeyRefs(new Date(Date.now() + 60_000))).toEqual([wallet.keyRef]);
  });
});
