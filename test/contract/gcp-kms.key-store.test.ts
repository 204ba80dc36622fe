import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { KeyManagementServiceClient } from '@google-cloud/kms';
import { computeAddress, hexlify, recoverAddress, Wallet } from 'ethers';
import { OAuth2Client } from 'google-auth-library';
import secp256k1 from 'secp256k1';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GcpKmsKeyStore, type GcpKmsKeyStoreConfig } from '../../adapters/keystore/gcp-kms/gcp-kms.key-store.js';
import { gcpKmsModule } from '../../adapters/keystore/gcp-kms/module.js';
import { KeyStoreSettingsError } from '../../adapters/keystore/key-store-module.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { freePort } from '../support/cli.js';
import { startFakeGcpKms, type FakeGcpKms } from '../support/fake-gcp-kms.server.js';
import { hidePackages } from '../support/hidden-packages.js';
import { gcpKmsKeyStore } from 'wallet-vault/keystores/gcp-kms';
import { describeKeyStoreContract } from 'wallet-vault/testing';
import { z } from 'zod';

/** An auth client returning the stand-in's static token, as an application hands in one of its own. */
function staticToken(token: string): OAuth2Client {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
  return auth;
}

const storeFor = (kms: FakeGcpKms, overrides: Partial<GcpKmsKeyStoreConfig> = {}) =>
  new GcpKmsKeyStore({ keyRing: kms.keyRing, endpoint: kms.url, authClient: staticToken(kms.token), requestTimeoutMs: 5000, retryBaseDelayMs: 1, ...overrides });

describeKeyStoreContract('gcp-kms (Cloud KMS-compatible test server, real SDK client over REST)', async () => {
  const kms = await startFakeGcpKms();
  return { store: storeFor(kms), cleanup: () => kms.close() };
});

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const owner = (deploymentId?: string) => ({ accountId: 'acc-1', vaultId: 'vault-1', walletId: 'wallet-1', ...(deploymentId ? { deploymentId } : {}) });
/** Independent check: ethers recovers the key's address from the digest and (r, s, v). */
const recovers = (digest: Uint8Array, sig: { r: Uint8Array; s: Uint8Array; v: number }, publicKey: Uint8Array) =>
  recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v }) === computeAddress(hexlify(publicKey));

describe('gcp-kms specifics', () => {
  let kms: FakeGcpKms;
  let store: GcpKmsKeyStore;
  beforeAll(async () => {
    kms = await startFakeGcpKms();
    store = storeFor(kms);
  });
  afterAll(async () => {
    await store?.close();
    await kms?.close();
  });

  it('creates one EC_SIGN_SECP256K1_SHA256 CryptoKey per wallet, HSM-protected, labelled with its owner and deployment, waiting out PENDING_GENERATION', async () => {
    kms.pendingPolls = 3;
    kms.calls.length = 0;
    const key = await store.create(owner('dep-1'));
    kms.pendingPolls = 1;
    expect(key.keyRef).toMatch(new RegExp(`^${kms.keyRing}/cryptoKeys/wallet-vault-[0-9a-f-]{36}/cryptoKeyVersions/1$`));
    expect(kms.calls).toEqual(['CreateCryptoKey', 'GetPublicKey', 'GetPublicKey', 'GetPublicKey', 'GetPublicKey']);
    const stored = kms.keys.get(key.keyRef.replace(/\/cryptoKeyVersions\/1$/, ''))!;
    expect(stored).toMatchObject({ protectionLevel: 'HSM', importOnly: false });
    expect(stored.labels).toEqual({
      wallet_vault: 'wallet',
      'wallet_vault_account': 'acc-1',
      'wallet_vault_vault': 'vault-1',
      'wallet_vault_wallet': 'wallet-1',
      'wallet_vault_deployment': 'dep-1',
    });
    expect(Buffer.from(key.publicKey).equals(Buffer.from(secp256k1.publicKeyCreate(kms.version(key.keyRef)!.privateKey!, false)))).toBe(true);
  });

  it('records a deployment id outside the label rules by its hash, and still lists its keys', async () => {
    const deploymentId = `Deployment/${randomBytes(4).toString('hex')}`;
    const key = await store.create(owner(deploymentId));
    const labels = kms.keys.get(key.keyRef.replace(/\/cryptoKeyVersions\/1$/, ''))!.labels;
    expect(labels['wallet_vault_deployment']).toMatch(/^h[0-9a-f]{62}$/);
    expect((await store.listKeys({ deploymentId, createdBefore: new Date(Date.now() + 60_000) })).map((k) => k.keyRef)).toEqual([key.keyRef]);
  });

  it('normalises the high-s signatures Cloud KMS returns, every time, over the 32-byte digest as given', async () => {
    const key = await store.create();
    for (let i = 0; i < 30; i++) {
      const digest = randomBytes(32);
      const sig = await store.sign(key.keyRef, digest);
      expect(BigInt(hexlify(sig.s)) <= HALF_N).toBe(true);
      expect(recovers(digest, sig, key.publicKey)).toBe(true);
      expect(secp256k1.ecdsaVerify(Buffer.concat([sig.r, sig.s]), digest, key.publicKey)).toBe(true);
    }
  });

  it('caches public keys: a sign after the first costs one Cloud KMS call', async () => {
    const key = await store.create();
    await store.sign(key.keyRef, randomBytes(32));
    kms.calls.length = 0;
    await store.sign(key.keyRef, randomBytes(32));
    expect(kms.calls).toEqual(['AsymmetricSign']);
  });

  it('destroys as for aws-kms: disables the version, then schedules its destruction; never more', async () => {
    const key = await store.create();
    kms.calls.length = 0;
    await store.destroy(key.keyRef);
    expect(kms.calls).toEqual(['UpdateCryptoKeyVersion', 'DestroyCryptoKeyVersion']);
    expect(kms.version(key.keyRef)?.state).toBe('DESTROY_SCHEDULED');
    await expect(store.sign(key.keyRef, randomBytes(32))).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE });
    await expect(store.destroy(key.keyRef)).resolves.toBeUndefined();
    expect(kms.version(key.keyRef)?.state).toBe('DESTROY_SCHEDULED');
    // The sweep lists no key whose version is gone.
    const mine = await store.create(owner('dep-destroyed'));
    await store.destroy(mine.keyRef);
    expect(await store.listKeys({ deploymentId: 'dep-destroyed', createdBefore: new Date(Date.now() + 60_000) })).toEqual([]);
  });

  it('retries a 429 (RESOURCE_EXHAUSTED) and a 503 with backoff, reporting each retry; gives up after maxAttempts naming the store', async () => {
    const retried = vi.fn();
    const counted = storeFor(kms, { retried, maxAttempts: 3 });
    const key = await counted.create();
    kms.calls.length = 0;
    kms.throttleNext = 2;
    const digest = randomBytes(32);
    expect(recovers(digest, await counted.sign(key.keyRef, digest), key.publicKey)).toBe(true);
    expect(kms.calls).toEqual(['AsymmetricSign', 'AsymmetricSign', 'AsymmetricSign']);
    expect(retried.mock.calls).toEqual([['throttled'], ['throttled']]);

    retried.mockClear();
    kms.failNext = 1;
    await counted.sign(key.keyRef, randomBytes(32));
    expect(retried.mock.calls).toEqual([['unavailable']]);

    retried.mockClear();
    kms.calls.length = 0;
    kms.throttleNext = 3;
    await expect(counted.sign(key.keyRef, randomBytes(32))).rejects.toMatchObject({
      code: ErrorCode.KEYSTORE_UNAVAILABLE,
      message: expect.stringMatching(/^key store gcp-kms: AsymmetricSign failed \(RESOURCE_EXHAUSTED: Quota exceeded/),
    });
    expect(kms.calls).toHaveLength(3);
    expect(retried).toHaveBeenCalledTimes(2);
    await counted.close();
  });

  it('a create whose answer was lost is retried and finds its own key: one CryptoKey, not two', async () => {
    const retried = vi.fn();
    const counted = storeFor(kms, { retried });
    const before = kms.keys.size;
    kms.calls.length = 0;
    kms.loseAnswerNext = 1;
    const key = await counted.create(owner('dep-lost'));
    expect(kms.keys.size).toBe(before + 1);
    expect(kms.calls.slice(0, 2)).toEqual(['CreateCryptoKey', 'CreateCryptoKey']);
    expect(retried.mock.calls).toEqual([['unavailable']]);
    const digest = randomBytes(32);
    expect(recovers(digest, await counted.sign(key.keyRef, digest), key.publicKey)).toBe(true);
    await counted.close();
  });

  it("leaves no retry to the client library: with maxAttempts 1 a 503 fails after one request", async () => {
    const once = storeFor(kms, { maxAttempts: 1 });
    const key = await once.create();
    kms.calls.length = 0;
    kms.failNext = 1;
    await expect(once.sign(key.keyRef, randomBytes(32))).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE, message: expect.stringMatching(/UNAVAILABLE/) });
    expect(kms.calls).toEqual(['AsymmetricSign']);
    await once.close();
  });

  it('bounds each request by requestTimeoutMs: a Cloud KMS that does not answer fails the sign rather than holding it', async () => {
    const key = await store.create();
    const bounded = storeFor(kms, { requestTimeoutMs: 2000, maxAttempts: 1 });
    kms.latencyMs = 120_000; // never, for this test
    try {
      await expect(bounded.sign(key.keyRef, randomBytes(32))).rejects.toMatchObject({
        code: ErrorCode.KEYSTORE_UNAVAILABLE,
        message: expect.stringMatching(/^key store gcp-kms: \w+ failed \(no answer within 2000 ms\)$/),
      });
    } finally {
      kms.latencyMs = 0;
      await bounded.close();
    }
  });

  it('refuses a key reference that is not a CryptoKeyVersion name without asking Cloud KMS', async () => {
    kms.calls.length = 0;
    await expect(store.sign('0x' + 'ab'.repeat(20), randomBytes(32))).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE, message: expect.stringMatching(/not a key of this store/) });
    expect(kms.calls).toEqual([]);
  });

  it('a wrong token fails ping clearly without the token in the message; an unreachable endpoint is KEYSTORE_UNAVAILABLE', async () => {
    const wrong = storeFor(kms, { authClient: staticToken('ya29.someone-else') });
    const failure = wrong.ping();
    await expect(failure).rejects.toThrow(/^key store gcp-kms: ListCryptoKeys failed \(UNAUTHENTICATED/);
    await expect(failure).rejects.not.toThrow(/someone-else/);
    await wrong.close();
    const down = storeFor(kms, { endpoint: `http://127.0.0.1:${await freePort()}`, maxAttempts: 2 });
    await expect(down.ping()).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE });
    await down.close();
    const elsewhere = storeFor(kms, { keyRing: 'projects/other/locations/global/keyRings/none' });
    await expect(elsewhere.ping()).rejects.toThrow(/NOT_FOUND/);
    await elsewhere.close();
  });

  it('imports a key through an import job (RSA_OAEP_4096_SHA256_AES_256): the wallet keeps its address and Cloud KMS signs for it', async () => {
    const wallet = Wallet.createRandom();
    const privateKey = Buffer.from(wallet.privateKey.slice(2), 'hex');
    kms.calls.length = 0;
    const imported = await store.importKey(privateKey, owner('dep-import'));
    expect(computeAddress(hexlify(imported.publicKey))).toBe(wallet.address);
    // The job is read until ACTIVE (its wrapping key is made meanwhile); the version until it leaves PENDING_IMPORT.
    expect(kms.calls.filter((c) => c !== 'GetImportJob')).toEqual(['CreateImportJob', 'CreateCryptoKey', 'ImportCryptoKeyVersion', 'GetPublicKey', 'GetPublicKey']);
    expect(kms.calls.indexOf('CreateCryptoKey')).toBeGreaterThan(kms.calls.lastIndexOf('GetImportJob'));
    expect(kms.calls.filter((c) => c === 'GetImportJob').length).toBeGreaterThanOrEqual(2);
    const stored = kms.keys.get(imported.keyRef.replace(/\/cryptoKeyVersions\/1$/, ''))!;
    expect(stored).toMatchObject({ importOnly: true, protectionLevel: 'HSM' });
    expect(stored.labels['wallet_vault_deployment']).toBe('dep-import');
    // Cloud KMS holds the key that was given: the stand-in unwrapped exactly these 32 bytes.
    expect(kms.version(imported.keyRef)!.privateKey!.equals(privateKey)).toBe(true);
    const digest = randomBytes(32);
    expect(recoverAddress(digest, (({ r, s, v }) => ({ r: hexlify(r), s: hexlify(s), v }))(await store.sign(imported.keyRef, digest)))).toBe(wallet.address);
    expect(await store.listKeys({ deploymentId: 'dep-import', createdBefore: new Date(Date.now() + 60_000) })).toEqual([
      { keyRef: imported.keyRef, address: wallet.address.toLowerCase(), vaultId: 'vault-1' },
    ]);
  });

  it('refuses to import what is not a secp256k1 private key, asking nothing of Cloud KMS', async () => {
    kms.calls.length = 0;
    await expect(store.importKey(new Uint8Array(32))).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, message: 'privateKey: not a secp256k1 private key' });
    await expect(store.importKey(randomBytes(31))).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect(kms.calls).toEqual([]);
  });
});

describe('gcp-kms configured as serve configures it: the module, application default credentials', () => {
  let kms: FakeGcpKms;
  let dir: string;
  const saved = process.env.GOOGLE_APPLICATION_CREDENTIALS;
  beforeAll(async () => {
    kms = await startFakeGcpKms();
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-gcp-'));
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
    else process.env.GOOGLE_APPLICATION_CREDENTIALS = saved;
    await kms?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads its settings: absent when neither selected nor set; the key ring required and checked; the protection level HSM or SOFTWARE', () => {
    expect(gcpKmsModule.settings({}, false)).toBeUndefined();
    expect(() => gcpKmsModule.settings({}, true)).toThrow(KeyStoreSettingsError);
    expect(() => gcpKmsModule.settings({ VAULT_GCP_KMS_ENDPOINT: 'https://kms.example' }, false)).toThrow(/^VAULT_GCP_KMS_KEY_RING: required/);
    expect(gcpKmsModule.settings({ VAULT_GCP_KMS_KEY_RING: kms.keyRing }, false)).toEqual({ keyRing: kms.keyRing });
    const env = (raw: Record<string, string>) => z.object(gcpKmsModule.environment).safeParse(raw).success;
    expect(env({ VAULT_GCP_KMS_KEY_RING: kms.keyRing, VAULT_GCP_KMS_PROTECTION_LEVEL: 'SOFTWARE' })).toBe(true);
    expect(env({ VAULT_GCP_KMS_KEY_RING: 'projects/p/keyRings/r' })).toBe(false);
    expect(env({ VAULT_GCP_KMS_PROTECTION_LEVEL: 'EXTERNAL' })).toBe(false);
    expect(env({ VAULT_GCP_KMS_ENDPOINT: 'ftp://kms.example' })).toBe(false);
    expect(gcpKmsModule.docsAnchor).toBe('gcp-kms');
  });

  it('opens with the application default credentials (GOOGLE_APPLICATION_CREDENTIALS: a service account, self-signed JWTs) and counts retries by store', async () => {
    const file = path.join(dir, 'service-account.json');
    await writeFile(file, JSON.stringify(kms.serviceAccount), { mode: 0o600 });
    process.env.GOOGLE_APPLICATION_CREDENTIALS = file;
    const retried = vi.fn();
    const settings = gcpKmsModule.settings({ VAULT_GCP_KMS_KEY_RING: kms.keyRing, VAULT_GCP_KMS_ENDPOINT: kms.url, VAULT_GCP_KMS_PROTECTION_LEVEL: 'SOFTWARE' }, true)!;
    const store = await gcpKmsModule.open(settings, { requestTimeoutMs: 5000, retried });
    try {
      expect(store.name).toBe('gcp-kms');
      await store.ping();
      const key = await store.create(owner('dep-adc'));
      expect(kms.keys.get(key.keyRef.replace(/\/cryptoKeyVersions\/1$/, ''))?.protectionLevel).toBe('SOFTWARE');
      kms.throttleNext = 1;
      const digest = randomBytes(32);
      expect(recovers(digest, await store.sign(key.keyRef, digest), key.publicKey)).toBe(true);
      expect(retried.mock.calls).toEqual([['gcp-kms', 'throttled']]);
    } finally {
      await store.close();
    }
  });
});

describe('gcp-kms as a library entry (wallet-vault/keystores/gcp-kms)', () => {
  let kms: FakeGcpKms;
  beforeAll(async () => {
    kms = await startFakeGcpKms();
  });
  afterAll(async () => {
    await kms?.close();
  });

  it('checks its options, naming the one that is wrong', () => {
    expect(() => gcpKmsKeyStore({ keyRing: 'my-ring' })).toThrow(/invalid gcpKmsKeyStore options:\n {2}keyRing: must be projects\/PROJECT/);
    expect(() => gcpKmsKeyStore({ keyRing: kms.keyRing, protectionLevel: 'EXTERNAL' as 'HSM' })).toThrow(/protectionLevel/);
    expect(() => gcpKmsKeyStore({ keyRing: kms.keyRing, keyFilename: '/a.json', authClient: staticToken('t') })).toThrow(/at most one of credentials, keyFilename and authClient/);
  });

  it('signs through a KeyManagementServiceClient the application hands in, and leaves that client to the application on close', async () => {
    const client = new KeyManagementServiceClient({ fallback: 'rest', apiEndpoint: '127.0.0.1', port: Number(new URL(kms.url).port), protocol: 'http', authClient: staticToken(kms.token) } as ConstructorParameters<typeof KeyManagementServiceClient>[0]);
    const close = vi.spyOn(client, 'close');
    const onRetry = vi.fn();
    const handed = gcpKmsKeyStore({ keyRing: kms.keyRing, client, onRetry });
    const key = await handed.create();
    kms.throttleNext = 1;
    const digest = randomBytes(32);
    expect(recovers(digest, await handed.sign(key.keyRef, digest), key.publicKey)).toBe(true);
    expect(onRetry).toHaveBeenCalledWith('throttled');
    await handed.close();
    expect(close).not.toHaveBeenCalled();
    await client.close();
  });

  it('without @google-cloud/kms installed, the entry names the package to install', async () => {
    const hidden = await hidePackages(['@google-cloud/kms']);
    const load = (nodeOptions: string) =>
      promisify(execFile)(process.execPath, [...nodeOptions.split(' ').filter(Boolean), '--input-type=module', '-e', `const m = await import('wallet-vault/keystores/gcp-kms'); console.log(Object.keys(m).join(','))`], { cwd: process.cwd() }).then(
        (r) => r.stdout.trim(),
        (error: { stderr: string }) => error.stderr,
      );
    try {
      expect(await load(hidden.nodeOptions)).toContain('wallet-vault/keystores/gcp-kms needs the package @google-cloud/kms, which is not installed: npm install @google-cloud/kms');
      expect(await load('')).toBe('gcpKmsKeyStore');
    } finally {
      await hidden.remove();
    }
  });
});
