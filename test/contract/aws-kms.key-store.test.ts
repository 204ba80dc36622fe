import { randomBytes } from 'node:crypto';
import { hexlify, recoverAddress, computeAddress } from 'ethers';
import { KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AwsKmsKeyStore } from '../../adapters/keystore/aws-kms/aws-kms.key-store.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { freePort } from '../support/cli.js';
import { startFakeKms, type FakeKms } from '../support/fake-kms.server.js';
import { awsKmsKeyStore } from 'wallet-vault/keystores/aws-kms';
import { describeKeyStoreContract } from 'wallet-vault/testing';

const storeFor = (kms: FakeKms, overrides: Partial<{ secretAccessKey: string; accessKeyId: string; endpoint: string }> = {}) =>
  new AwsKmsKeyStore({
    region: 'us-east-1',
    endpoint: overrides.endpoint ?? kms.url,
    credentials: { accessKeyId: overrides.accessKeyId ?? kms.accessKeyId, secretAccessKey: overrides.secretAccessKey ?? kms.secretAccessKey },
    maxAttempts: 1,
    requestTimeoutMs: 2000,
  });

describeKeyStoreContract('aws-kms (KMS-compatible test server, real SDK client)', async () => {
  const kms = await startFakeKms();
  return { store: storeFor(kms), cleanup: () => kms.close() };
});

describe('aws-kms specifics', () => {
  let kms: FakeKms;
  let store: AwsKmsKeyStore;
  beforeAll(async () => {
    kms = await startFakeKms();
    store = storeFor(kms);
  });
  afterAll(async () => {
    await store?.close();
    await kms?.close();
  });

  it('imports key material through KMS BYOK: an EXTERNAL key, the wrapping parameters, the PKCS#8 material; a failed import schedules the key away', async () => {
    const given = randomBytes(32);
    given[0] = 0x01; // below the curve order
    const expected = Buffer.from(given);
    const calls = kms.calls.length;
    const key = await store.importKey(given, { accountId: 'acc', vaultId: 'v', walletId: 'w', deploymentId: 'dep' });
    expect(kms.calls.slice(calls)).toEqual(['CreateKey', 'GetParametersForImport', 'ImportKeyMaterial', 'GetPublicKey']);
    const held = kms.keys.get(key.keyRef)!;
    expect(held).toMatchObject({ origin: 'EXTERNAL', state: 'Enabled', tags: expect.objectContaining({ 'wallet-vault:deployment': 'dep' }) });
    expect(held.privateKey.equals(expected)).toBe(true);
    const digest = randomBytes(32);
    const sig = await store.sign(key.keyRef, digest);
    expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v })).toBe(computeAddress(hexlify(key.publicKey)));

    kms.failing.add('ImportKeyMaterial');
    try {
      await expect(store.importKey(expected)).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE, message: expect.stringContaining('ImportKeyMaterial failed') });
    } finally {
      kms.failing.delete('ImportKeyMaterial');
    }
    const pending = [...kms.keys.values()].filter((k) => k.origin === 'EXTERNAL' && k.id !== key.keyRef);
    expect(pending.map((k) => k.state)).toEqual(['PendingDeletion']);
  });

  it('normalises the high-s signatures KMS returns, every time', async () => {
    const key = await store.create();
    for (let i = 0; i < 40; i++) {
      const digest = randomBytes(32);
      const sig = await store.sign(key.keyRef, digest);
      expect(BigInt(hexlify(sig.s)) <= 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n).toBe(true);
      expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v })).toBe(computeAddress(hexlify(key.publicKey)));
    }
  });

  it('creates ECC_SECG_P256K1 keys and destroys by disabling, then scheduling deletion with the shortest window', async () => {
    const key = await store.create();
    kms.calls.length = 0;
    await store.destroy(key.keyRef);
    expect(kms.calls).toEqual(['DisableKey', 'ScheduleKeyDeletion']);
    expect(kms.keys.get(key.keyRef)).toMatchObject({ state: 'PendingDeletion', pendingWindowInDays: 7 });
    await expect(store.sign(key.keyRef, randomBytes(32))).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE });
    await expect(store.destroy(key.keyRef)).resolves.toBeUndefined();
  });

  it('tells onRetry of each retry the SDK makes and why (the factory option serve counts in wallet_vault_keystore_retries_total)', async () => {
    const reasons: string[] = [];
    const counted = awsKmsKeyStore({
      region: 'us-east-1',
      endpoint: kms.url,
      credentials: { accessKeyId: kms.accessKeyId, secretAccessKey: kms.secretAccessKey },
      maxAttempts: 3,
      onRetry: (reason) => reasons.push(reason),
    });
    try {
      const key = await counted.create();
      expect(reasons).toEqual([]);
      kms.throttleNext = 1;
      kms.failNext = 1;
      await counted.sign(key.keyRef, randomBytes(32));
      expect(reasons).toEqual(['throttled', 'unavailable']);
      // Three attempts, all refused: two retries, then the refusal.
      reasons.length = 0;
      kms.throttleNext = 3;
      await expect(counted.sign(key.keyRef, randomBytes(32))).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE });
      expect(reasons).toEqual(['throttled', 'throttled']);
      expect(kms.throttleNext).toBe(0);
      // A client handed in is the application's: nothing is added to it, and onRetry is refused beside it.
      expect(() => awsKmsKeyStore({ client: new KMSClient({ region: 'us-east-1' }), onRetry: () => undefined } as never)).toThrow(/^invalid awsKmsKeyStore options/);
    } finally {
      kms.throttleNext = 0;
      kms.failNext = 0;
      await counted.close();
    }
  });

  it('caches public keys: a sign after the first costs one KMS call', async () => {
    const key = await store.create();
    await store.sign(key.keyRef, randomBytes(32));
    kms.calls.length = 0;
    await store.sign(key.keyRef, randomBytes(32));
    expect(kms.calls).toEqual(['Sign']);
  });

  it('a failing KMS is KEYSTORE_UNAVAILABLE naming the store, without credentials in the message', async () => {
    const key = await store.create();
    kms.failNext = 1;
    const failure = store.sign(key.keyRef, randomBytes(32));
    await expect(failure).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE, message: expect.stringMatching(/^key store aws-kms: Sign failed/) });
    await expect(failure).rejects.not.toThrow(new RegExp(kms.secretAccessKey));
  });

  it('wrong credentials fail ping clearly; an unreachable endpoint is KEYSTORE_UNAVAILABLE', async () => {
    const wrong = storeFor(kms, { accessKeyId: 'AKIDSOMEONEELSE00000' });
    await expect(wrong.ping()).rejects.toThrow(/key store aws-kms: ListKeys failed \(UnrecognizedClientException/);
    await wrong.close();
    const down = storeFor(kms, { endpoint: `http://127.0.0.1:${await freePort()}` });
    await expect(down.ping()).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE });
    await down.close();
  });

  it("signs through a KMSClient the application hands in, and leaves that client to the application on close", async () => {
    const client = new KMSClient({
      region: 'us-east-1',
      endpoint: kms.url,
      credentials: { accessKeyId: kms.accessKeyId, secretAccessKey: kms.secretAccessKey },
      maxAttempts: 1,
    });
    const destroy = vi.spyOn(client, 'destroy');
    const handed = awsKmsKeyStore({ client });
    const key = await handed.create();
    const digest = randomBytes(32);
    const sig = await handed.sign(key.keyRef, digest);
    expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v })).toBe(computeAddress(hexlify(key.publicKey)));
    await handed.close();
    expect(destroy).not.toHaveBeenCalled();
    client.destroy();
  });
});
