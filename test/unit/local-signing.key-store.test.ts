import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalSigningKeyStore, type KeySource } from '../../adapters/keystore/shared/local-signing.key-store.js';
import { generatePrivateKey, signDigest } from '../../adapters/keystore/shared/secp256k1.js';
import { SigningThread } from '../../adapters/keystore/shared/signing-thread.js';
import { VaultTransitKeyStore } from '../../adapters/keystore/vault-transit/vault-transit.key-store.js';
import { startFakeVault, type FakeVault } from '../support/fake-vault.server.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const allZero = (b: Uint8Array) => b.every((x) => x === 0);

/** A source of one key per reference that remembers every buffer it handed out (it only loads). */
function recordingSource(): KeySource & { handedOut: Buffer[]; keys: Map<string, Buffer> } {
  const keys = new Map<string, Buffer>();
  const handedOut: Buffer[] = [];
  const unused = () => Promise.reject(new Error('not used here'));
  return {
    keys,
    handedOut,
    create: unused,
    destroy: async () => undefined,
    ping: unused,
    async load(keyRef) {
      if (!keys.has(keyRef)) keys.set(keyRef, generatePrivateKey());
      const copy = Buffer.from(keys.get(keyRef)!);
      handedOut.push(copy);
      return copy;
    },
  };
}

describe('LocalSigningKeyStore: one owner of the unwrapped keys, for every store that signs here', () => {
  for (const signingThread of [true, false]) {
    const where = signingThread ? 'on its thread' : 'on the event loop';

    it.each([
      ['no entries', { cacheSize: 0, cacheTtlMs: 60_000 }],
      ['no time', { cacheSize: 10, cacheTtlMs: 0 }],
    ])(`with a cache of %s, zeroes each loaded key right after its sign (${where})`, async (_label, cache) => {
      const source = recordingSource();
      const store = new LocalSigningKeyStore('test', source, { ...cache, signingThread });
      try {
        const digest = randomBytes(32);
        const signature = await store.sign('a', digest);
        expect(hex(signature.s)).toBe(hex(signDigest(source.keys.get('a')!, digest).s));
        await store.sign('a', randomBytes(32));
        expect(source.handedOut).toHaveLength(2);
        expect(source.handedOut.every(allZero)).toBe(true);
      } finally {
        await store.close();
      }
    });

    it(`with a cache, keeps the first of concurrent loads, zeroes the rest, and the kept one on destroy and close (${where})`, async () => {
      const source = recordingSource();
      const store = new LocalSigningKeyStore('test', source, { cacheSize: 10, cacheTtlMs: 60_000, signingThread });
      try {
        const signatures = await Promise.all(Array.from({ length: 8 }, () => store.sign('a', randomBytes(32))));
        expect(signatures.every((s) => !allZero(s.r))).toBe(true);
        expect(source.handedOut.filter((k) => !allZero(k))).toHaveLength(1);
        await store.sign('b', randomBytes(32));
        await store.destroy('a');
        expect(source.handedOut.filter((k) => !allZero(k))).toHaveLength(1); // b's
      } finally {
        await store.close();
      }
      expect(source.handedOut.every(allZero)).toBe(true);
    });
  }
});

describe('vault-transit signs as LocalSigningKeyStore', () => {
  let v: FakeVault;
  beforeAll(async () => {
    v = await startFakeVault();
  });
  afterAll(() => v?.close());
  afterEach(() => vi.restoreAllMocks());

  // Issue 22: Transit re-implemented local signing on the event loop; it now signs where `local` does.
  it.each([true, false])('signs on the signing thread exactly when it is on (signingThread: %s)', async (signingThread) => {
    const onThread = vi.spyOn(SigningThread.prototype, 'sign');
    const store = new VaultTransitKeyStore({ address: v.url, token: v.token, keyName: 'wallet-vault', signingThread });
    try {
      const { keyRef } = await store.create();
      await store.sign(keyRef, randomBytes(32));
      expect(onThread).toHaveBeenCalledTimes(signingThread ? 1 : 0);
    } finally {
      await store.close();
    }
  });
});
