import { randomBytes } from 'node:crypto';
import secp256k1 from 'secp256k1';
import { describe, expect, it } from 'vitest';
import { generatePrivateKey, signDigest } from '../../adapters/keystore/shared/secp256k1.js';
import { SigningThread } from '../../adapters/keystore/shared/signing-thread.js';
import { loadConfig } from '../../adapters/main/config.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('signing on a thread of its own', () => {
  it('gives the very signature the event loop would (RFC 6979), for every sign of a batch', async () => {
    const thread = new SigningThread();
    try {
      const jobs = Array.from({ length: 300 }, () => ({ key: generatePrivateKey(), digest: randomBytes(32) }));
      // Sent in the same turn: they travel as one batch.
      const signatures = await Promise.all(jobs.map((j) => thread.sign(j.key, j.digest)));
      signatures.forEach((sig, i) => {
        const here = signDigest(jobs[i]!.key, jobs[i]!.digest);
        expect({ r: hex(sig.r), s: hex(sig.s), v: sig.v }).toEqual({ r: hex(here.r), s: hex(here.s), v: here.v });
        const compact = Buffer.concat([sig.r, sig.s]);
        const recovered = secp256k1.ecdsaRecover(compact, sig.v - 27, jobs[i]!.digest, false);
        expect(hex(recovered)).toBe(hex(secp256k1.publicKeyCreate(jobs[i]!.key, false)));
      });
    } finally {
      await thread.close();
    }
  });

  it('leaves the caller’s key as it was (only the thread’s copy is zeroed)', async () => {
    const thread = new SigningThread();
    try {
      const key = generatePrivateKey();
      const copy = Buffer.from(key);
      await thread.sign(key, randomBytes(32));
      expect(key.equals(copy)).toBe(true);
    } finally {
      await thread.close();
    }
  });

  it('refuses an invalid key as libsecp256k1 does on the event loop', async () => {
    const thread = new SigningThread();
    try {
      const zero = Buffer.alloc(32);
      const digest = randomBytes(32);
      const here = (() => {
        try {
          signDigest(zero, digest);
          return null;
        } catch (error) {
          return (error as Error).message;
        }
      })();
      expect(here).not.toBeNull();
      await expect(thread.sign(zero, digest)).rejects.toThrow(here!);
    } finally {
      await thread.close();
    }
  });

  it('keeps signing, on the event loop, once its thread is gone', async () => {
    const thread = new SigningThread();
    const key = generatePrivateKey();
    const digest = randomBytes(32);
    const inFlight = thread.sign(key, digest);
    await thread.close();
    const after = await thread.sign(key, digest);
    expect(hex((await inFlight).r)).toBe(hex(after.r));
    expect(hex(after.s)).toBe(hex(signDigest(key, digest).s));
  });
});

describe('VAULT_SIGNING_THREAD', () => {
  it('is true, false, or left to the key store (more than one CPU)', () => {
    expect(loadConfig({}, '/srv').signingThread).toBeUndefined();
    expect(loadConfig({ VAULT_SIGNING_THREAD: 'false' }, '/srv').signingThread).toBe(false);
    expect(loadConfig({ VAULT_SIGNING_THREAD: 'true' }, '/srv').signingThread).toBe(true);
    expect(() => loadConfig({ VAULT_SIGNING_THREAD: 'yes' }, '/srv')).toThrow(/VAULT_SIGNING_THREAD.*must be true or false/);
  });
});
