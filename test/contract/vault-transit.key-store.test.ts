import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VaultTransitKeyStore } from '../../adapters/keystore/vault-transit/vault-transit.key-store.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { freePort } from '../support/cli.js';
import { startFakeVault, type FakeVault } from '../support/fake-vault.server.js';
import { describeKeyStoreContract } from 'wallet-vault/testing';

const storeFor = (v: FakeVault, overrides: Partial<{ token: string; address: string; keyName: string; cacheTtlMs: number }> = {}) =>
  new VaultTransitKeyStore({
    address: overrides.address ?? v.url,
    token: overrides.token ?? v.token,
    keyName: overrides.keyName ?? 'wallet-vault',
    cacheTtlMs: overrides.cacheTtlMs,
    requestTimeoutMs: 2000,
  });

// The key reference is the wrapped key itself, kept in the wallet record: the key is gone when the
// record is (see docs/keystores.md), not when destroy() runs.
describeKeyStoreContract(
  'vault-transit (Vault-compatible test server, node-vault client)',
  async () => {
    const v = await startFakeVault();
    return { store: storeFor(v), cleanup: () => v.close() };
  },
  { destroyRevokesKeyRef: false },
);

describe('vault-transit specifics', () => {
  let v: FakeVault;
  let store: VaultTransitKeyStore;
  beforeAll(async () => {
    v = await startFakeVault();
    store = storeFor(v);
  });
  afterAll(async () => {
    await store?.close();
    await v?.close();
  });

  it('keeps only Transit ciphertext, bound to its wallet: swapped ciphertexts are refused', async () => {
    const a = await store.create();
    const b = await store.create();
    expect(a.keyRef).toMatch(/^0x[0-9a-f]{40}:vault:v1:/);
    const swapped = `${a.keyRef.split(':')[0]}:${b.keyRef.split(':').slice(1).join(':')}`;
    await expect(store.sign(swapped, randomBytes(32))).rejects.toThrow(/does not belong to this wallet/);
  });

  it('after a Transit key rotation, rewrap moves a key to the new version and it still signs for its wallet', async () => {
    const key = await store.create();
    v.rotate('wallet-vault');
    const rewrapped = await store.rewrap(key.keyRef);
    expect(rewrapped).toMatch(/:vault:v2:/);
    expect(rewrapped.split(':')[0]).toBe(key.keyRef.split(':')[0]);
    await expect(store.sign(rewrapped, randomBytes(32))).resolves.toHaveProperty('v');
    await expect(store.sign(key.keyRef, randomBytes(32))).resolves.toHaveProperty('v');
  });

  it('decrypts on every signature by default, and not within the TTL with the cache on', async () => {
    const key = await store.create();
    v.calls.length = 0;
    await store.sign(key.keyRef, randomBytes(32));
    await store.sign(key.keyRef, randomBytes(32));
    expect(v.calls).toEqual(['decrypt', 'decrypt']);
    const cached = storeFor(v, { cacheTtlMs: 60_000 });
    v.calls.length = 0;
    await cached.sign(key.keyRef, randomBytes(32));
    await cached.sign(key.keyRef, randomBytes(32));
    expect(v.calls).toEqual(['decrypt']);
    await cached.close();
  });

  it('a bad token or a missing Transit key fails ping clearly, without the token in the message', async () => {
    const wrong = storeFor(v, { token: 'hvs.not-the-token' });
    await expect(wrong.ping()).rejects.toThrow(/^key store vault-transit: transit key "wallet-vault" at mount "transit" is not readable \(HTTP 403: permission denied\)$/);
    await expect(storeFor(v, { keyName: 'nope' }).ping()).rejects.toThrow(/HTTP 404/);
    const failure = wrong.create();
    await expect(failure).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE });
    await expect(failure).rejects.not.toThrow(/hvs\.not-the-token/);
  });

  it('a Vault that is down or failing is KEYSTORE_UNAVAILABLE', async () => {
    const down = storeFor(v, { address: `http://127.0.0.1:${await freePort()}` });
    await expect(down.create()).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE, message: expect.stringMatching(/encrypt failed/) });
    const key = await store.create();
    v.failNext = 1;
    await expect(store.sign(key.keyRef, randomBytes(32))).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE, message: expect.stringMatching(/HTTP 500/) });
  });
});
