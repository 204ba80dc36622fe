import { randomBytes } from 'node:crypto';
import { computeAddress, hexlify, recoverAddress, Wallet } from 'ethers';
import secp256k1 from 'secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureKeyVaultKeyStore, type AzureKeyVaultKeyStoreConfig } from '../../adapters/keystore/azure-key-vault/azure-key-vault.key-store.js';
import { azureKeyVaultModule } from '../../adapters/keystore/azure-key-vault/module.js';
import { KeyStoreSettingsError } from '../../adapters/keystore/key-store-module.js';
import { ErrorCode } from '../../src/domain/errors.js';
import type { CreatedKey } from '../../src/ports/key-store.port.js';
import { freePort } from '../support/cli.js';
import { startFakeAzureKeyVault, type FakeAzureKeyVault } from '../support/fake-azure-key-vault.server.js';
import { azureKeyVaultKeyStore } from 'wallet-vault/keystores/azure-key-vault';
import { describeKeyStoreContract } from 'wallet-vault/testing';

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

const storeFor = (fake: FakeAzureKeyVault, overrides: Partial<AzureKeyVaultKeyStoreConfig> = {}) =>
  new AzureKeyVaultKeyStore({
    vaultUrl: fake.url,
    credential: fake.credential,
    disableChallengeResourceVerification: true,
    allowInsecureConnection: true,
    requestTimeoutMs: 5000,
    retryBaseDelayMs: 1,
    ...overrides,
  });

describeKeyStoreContract('azure-key-vault (Key Vault-compatible test server, real SDK client)', async () => {
  const fake = await startFakeAzureKeyVault();
  return { store: storeFor(fake), cleanup: () => fake.close() };
});

describeKeyStoreContract('azure-key-vault, imported keys (the published factory)', async () => {
  const fake = await startFakeAzureKeyVault();
  const inner = azureKeyVaultKeyStore({ vaultUrl: fake.url, credential: fake.credential, allowHttp: true, disableChallengeResourceVerification: true });
  // Every key of this run is brought in through importKey rather than generated in the vault.
  const store = Object.assign(Object.create(inner) as typeof inner, {
    create: (owner?: Parameters<typeof inner.create>[0]) => {
      const key = Wallet.createRandom().privateKey;
      return inner.importKey!(Buffer.from(key.slice(2), 'hex'), owner);
    },
  });
  return { store, cleanup: () => fake.close() };
});

describe('azure-key-vault specifics', () => {
  let fake: FakeAzureKeyVault;
  let store: AzureKeyVaultKeyStore;
  beforeAll(async () => {
    fake = await startFakeAzureKeyVault();
    store = storeFor(fake);
  });
  afterAll(async () => {
    await store?.close();
    await fake?.close();
  });

  it('creates EC-HSM keys on P-256K by default, tagged with their owner and deployment, and EC keys when told', async () => {
    const key = await store.create({ accountId: 'acc', vaultId: 'v-1', walletId: 'w-1', deploymentId: 'dep-1' });
    const [name, version] = key.keyRef.split('/');
    const stored = fake.keys.get(name!)!.versions.find((v) => v.version === version)!;
    expect(stored).toMatchObject({ kty: 'EC-HSM', keyOps: ['sign', 'verify'], imported: false });
    expect(stored.tags).toEqual({
      'wallet-vault': 'wallet',
      'wallet-vault-account': 'acc',
      'wallet-vault-vault': 'v-1',
      'wallet-vault-wallet': 'w-1',
      'wallet-vault-deployment': 'dep-1',
    });
    expect(Buffer.from(key.publicKey).equals(Buffer.from(secp256k1.publicKeyCreate(stored.privateKey, false)))).toBe(true);

    const software = storeFor(fake, { keyType: 'EC' });
    const soft = await software.create();
    expect(fake.keys.get(soft.keyRef.split('/')[0]!)!.versions[0]!.kty).toBe('EC');
    await software.close();
  });

  it('a Standard vault refusing EC-HSM keys is KEYSTORE_UNAVAILABLE with the service reason', async () => {
    fake.premium = false;
    try {
      await expect(store.create()).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE, message: expect.stringMatching(/^key store azure-key-vault: create key failed \(BadParameter: HSM-protected/) });
    } finally {
      fake.premium = true;
    }
  });

  it('normalises the high-s signatures Key Vault returns, every time (checked with ethers and libsecp256k1)', async () => {
    const key = await store.create();
    for (let i = 0; i < 40; i++) {
      const digest = randomBytes(32);
      const sig = await store.sign(key.keyRef, digest);
      expect(BigInt(hexlify(sig.s)) <= HALF_N).toBe(true);
      expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v })).toBe(computeAddress(hexlify(key.publicKey)));
      expect(secp256k1.ecdsaVerify(Buffer.concat([sig.r, sig.s]), digest, key.publicKey)).toBe(true);
    }
  });

  it('signs with the version the reference names, and reads a key it has not seen once', async () => {
    const key = await store.create();
    const fresh = storeFor(fake);
    fake.calls.length = 0;
    await fresh.sign(key.keyRef, randomBytes(32));
    expect(fake.calls.filter((c) => c === 'sign')).toHaveLength(1);
    fake.calls.length = 0;
    await fresh.sign(key.keyRef, randomBytes(32));
    expect(fake.calls).toEqual(['sign']);
    await fresh.close();
  });

  it('signs arriving together for a key this process has not seen read it once, not once each (Key Vault counts every GET)', async () => {
    const key = await store.create();
    const fresh = storeFor(fake);
    fake.calls.length = 0;
    const digests = Array.from({ length: 8 }, () => randomBytes(32));
    const sigs = await Promise.all(digests.map((d) => fresh.sign(key.keyRef, d)));
    sigs.forEach((sig, i) => expect(recoverAddress(digests[i]!, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v })).toBe(computeAddress(hexlify(key.publicKey))));
    // One read for the public key (the store's), one by the SDK's CryptographyClient before its first sign.
    expect(fake.calls.filter((c) => c === 'get')).toHaveLength(2);
    expect(fake.calls.filter((c) => c === 'sign')).toHaveLength(8);
    await fresh.close();
  });

  it('authenticates through the challenge: one 401 per client, then the bearer token on every request', async () => {
    const fresh = storeFor(fake);
    const before = fake.challenges;
    await fresh.ping();
    await fresh.create();
    expect(fake.challenges - before).toBe(1);
    await fresh.close();
    const wrong = storeFor(fake, { credential: { getToken: async () => ({ token: 'someone-else', expiresOnTimestamp: Date.now() + 3_600_000 }) } });
    await expect(wrong.ping()).rejects.toThrow(/key store azure-key-vault: list keys failed \(Unauthorized: /);
    await wrong.close();
  });

  it('destroys by disabling, then deleting (soft delete: purged only at the end of retention), never purging', async () => {
    const key = await store.create();
    fake.calls.length = 0;
    await store.destroy(key.keyRef);
    expect(fake.calls).toEqual(['update', 'delete', 'getDeleted']);
    const stored = fake.keys.get(key.keyRef.split('/')[0]!)!;
    expect(stored.deletedDate).toBeDefined();
    expect(stored.versions[0]!.enabled).toBe(false);
    await expect(store.sign(key.keyRef, randomBytes(32))).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE });
    await expect(store.destroy(key.keyRef)).resolves.toBeUndefined();
  });

  it('retries 429s with backoff, with and without Retry-After, reporting each retry; gives up after maxAttempts', async () => {
    const retries: string[] = [];
    const counted = storeFor(fake, { onRetry: (reason) => retries.push(reason), maxAttempts: 3 });
    const key = await counted.create();
    fake.throttleNext = 2;
    fake.retryAfter = undefined;
    const sig = await counted.sign(key.keyRef, randomBytes(32));
    expect(sig.r).toHaveLength(32);
    expect(retries).toEqual(['throttled', 'throttled']);

    fake.throttleNext = 1;
    fake.retryAfter = '0';
    await counted.sign(key.keyRef, randomBytes(32));
    expect(retries).toHaveLength(3);

    fake.throttleNext = 3;
    await expect(counted.sign(key.keyRef, randomBytes(32))).rejects.toMatchObject({
      code: ErrorCode.KEYSTORE_UNAVAILABLE,
      message: expect.stringMatching(/^key store azure-key-vault: sign failed \(Throttled: /),
    });
    expect(retries).toHaveLength(5);

    fake.failNext = 1;
    await counted.sign(key.keyRef, randomBytes(32));
    expect(retries.at(-1)).toBe('unavailable');
    await counted.close();
  });

  it('a Retry-After longer than maxRetryDelayMs fails at once instead of holding the sign', async () => {
    const retries: string[] = [];
    const impatient = storeFor(fake, { onRetry: (reason) => retries.push(reason), maxRetryDelayMs: 1000 });
    const key = await impatient.create();
    fake.throttleNext = 1;
    fake.retryAfter = '30';
    await expect(impatient.sign(key.keyRef, randomBytes(32))).rejects.toThrow(/sign failed \(Throttled/);
    expect(retries).toEqual([]);
    fake.retryAfter = undefined;
    await impatient.close();
  });

  it('imports a P-256K key as a JWK: the wallet gets its address, HSM-protected by default, the caller buffer untouched', async () => {
    const wallet = Wallet.createRandom();
    const privateKey = Buffer.from(wallet.privateKey.slice(2), 'hex');
    const copy = Buffer.from(privateKey);
    const imported = await store.importKey(privateKey, { accountId: 'acc', vaultId: 'v-2', walletId: 'w-2', deploymentId: 'dep-i' });
    expect(computeAddress(hexlify(imported.publicKey))).toBe(wallet.address);
    expect(privateKey.equals(copy)).toBe(true);
    expect(fake.lastImportBody).toMatchObject({ Hsm: true, key: { kty: 'EC', crv: 'P-256K', key_ops: ['sign', 'verify'] }, tags: { 'wallet-vault-deployment': 'dep-i' } });
    const digest = randomBytes(32);
    const sig = await store.sign(imported.keyRef, digest);
    expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v })).toBe(wallet.address);
    // Not a key: refused before anything is sent.
    fake.calls.length = 0;
    await expect(store.importKey(Buffer.alloc(32))).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    await expect(store.importKey(Buffer.alloc(31, 1))).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect(fake.calls).toEqual([]);
  });

  it('lists its deployment keys across pages of the listing', async () => {
    const deploymentId = `dep-${randomBytes(6).toString('hex')}`;
    const created: CreatedKey[] = [];
    for (let i = 0; i < 30; i++) created.push(await store.create({ accountId: 'a', vaultId: `v-${i}`, walletId: `w-${i}`, deploymentId }));
    const listed = await store.listKeys({ deploymentId, createdBefore: new Date(Date.now() + 60_000) });
    expect(listed.map((k) => k.keyRef).sort()).toEqual(created.map((k) => k.keyRef).sort());
    expect(listed.find((k) => k.keyRef === created[7]!.keyRef)).toEqual({ keyRef: created[7]!.keyRef, address: computeAddress(hexlify(created[7]!.publicKey)).toLowerCase(), vaultId: 'v-7' });
  });

  it('an unreachable vault is KEYSTORE_UNAVAILABLE; the token appears in no error', async () => {
    const down = storeFor(fake, { vaultUrl: `http://127.0.0.1:${await freePort()}` });
    await expect(down.ping()).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE });
    await down.close();
    const key = await store.create();
    fake.failNext = 4;
    const failure = store.sign(key.keyRef, randomBytes(32));
    await expect(failure).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE, message: expect.stringMatching(/^key store azure-key-vault: sign failed/) });
    await expect(failure).rejects.not.toThrow(new RegExp(fake.token));
  });

  it('the factory refuses http:// without allowHttp, and bad options name the option', () => {
    expect(() => azureKeyVaultKeyStore({ vaultUrl: fake.url, credential: fake.credential })).toThrow(/vaultUrl: http:\/\/ would send the Azure access token in clear/);
    expect(() => azureKeyVaultKeyStore({ vaultUrl: 'https://x.vault.azure.net', keyType: 'RSA' as 'EC' })).toThrow(/invalid azureKeyVaultKeyStore options:\n {2}keyType: /);
    expect(() => azureKeyVaultKeyStore({ vaultUrl: 'https://x.vault.azure.net', credential: {} as never })).toThrow(/credential: must be a TokenCredential/);
  });
});

describe('azure-key-vault module (environment)', () => {
  const settings = (env: Record<string, string>, selected = true) => azureKeyVaultModule.settings(env, selected);

  it('opens when selected or when its URL is set, defaults to EC-HSM, and names what is missing or wrong', () => {
    expect(settings({}, false)).toBeUndefined();
    expect(settings({ VAULT_AZURE_KEY_VAULT_URL: 'https://x.vault.azure.net' }, false)).toEqual({
      vaultUrl: 'https://x.vault.azure.net',
      keyType: 'EC-HSM',
      allowHttp: false,
      disableChallengeResourceVerification: false,
    });
    expect(settings({ VAULT_AZURE_KEY_VAULT_URL: 'https://x.vault.azure.net', VAULT_AZURE_KEY_TYPE: 'EC' })?.keyType).toBe('EC');
    expect(() => settings({})).toThrow(KeyStoreSettingsError);
    expect(() => settings({})).toThrow(/^VAULT_AZURE_KEY_VAULT_URL: required for the azure-key-vault key store/);
    expect(() => settings({ VAULT_AZURE_KEY_VAULT_URL: 'http://127.0.0.1:1' })).toThrow(/VAULT_AZURE_KEY_VAULT_ALLOW_HTTP=true/);
    expect(settings({ VAULT_AZURE_KEY_VAULT_URL: 'http://127.0.0.1:1', VAULT_AZURE_KEY_VAULT_ALLOW_HTTP: 'true' })?.allowHttp).toBe(true);
  });

  it('checks its variables: a bad key type or URL fails its schema', async () => {
    const { z } = await import('zod');
    const schema = z.object(azureKeyVaultModule.environment);
    expect(schema.safeParse({ VAULT_AZURE_KEY_TYPE: 'RSA' }).success).toBe(false);
    expect(schema.safeParse({ VAULT_AZURE_KEY_VAULT_URL: 'ftp://x' }).success).toBe(false);
    expect(schema.safeParse({ VAULT_AZURE_KEY_VAULT_URL: 'https://x.vault.azure.net', VAULT_AZURE_KEY_TYPE: 'EC-HSM' }).success).toBe(true);
  });

  it('opens the store with DefaultAzureCredential (here a managed identity endpoint) and the composition context: retries counted under its name', async () => {
    const fake = await startFakeAzureKeyVault();
    const counted: string[] = [];
    const saved = { ...process.env };
    Object.assign(process.env, fake.managedIdentityEnv);
    try {
      const store = await azureKeyVaultModule.open(
        { vaultUrl: fake.url, keyType: 'EC-HSM', allowHttp: true, disableChallengeResourceVerification: true },
        { requestTimeoutMs: 2000, retried: (name, reason) => counted.push(`${name}:${reason}`) },
      );
      expect(store.name).toBe('azure-key-vault');
      await store.ping();
      expect(fake.tokensIssued).toBe(1);
      const key = await store.create();
      fake.throttleNext = 1;
      fake.retryAfter = '0';
      const digest = randomBytes(32);
      const sig = await store.sign(key.keyRef, digest);
      expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v })).toBe(computeAddress(hexlify(key.publicKey)));
      expect(counted).toEqual(['azure-key-vault:throttled']);
      await store.close();
    } finally {
      for (const name of Object.keys(fake.managedIdentityEnv)) if (saved[name] === undefined) delete process.env[name];
      await fake.close();
    }
  });
});
