import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { computeAddress, hexlify, recoverAddress } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalFileKeyStore } from '../../adapters/keystore/local-file/local-file.key-store.js';

/**
 * The attack of issue 20 §1: a sign queued for the signing thread held the key cache's own buffer, and
 * the cache zeroed that buffer when it evicted or expired the entry (or replaced it after a concurrent
 * miss) before the thread had copied it: libsecp256k1 then refused the zero key and the sign answered 500.
 * More wallets than the cache holds, a TTL that expires almost at once, and every sign in flight together.
 */
describe('local key store: signs racing the unwrapped-key cache', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  for (const signingThread of [true, false]) {
    it(`signs 5 000 concurrent digests over 50 wallets with a cache of 2 and a 1 ms TTL (signing thread ${signingThread ? 'on' : 'off'}), every one recovering to its wallet`, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-sign-race-'));
      dirs.push(dir);
      const store = new LocalFileKeyStore({ keysDir: dir, masterKey: randomBytes(32), cacheSize: 2, cacheTtlMs: 1, signingThread });
      try {
        const wallets = await Promise.all(Array.from({ length: 50 }, () => store.create()));
        const addresses = wallets.map((w) => computeAddress(hexlify(w.publicKey)));
        const jobs = Array.from({ length: 5_000 }, (_, i) => ({ wallet: i % 50, digest: randomBytes(32) }));
        const results = await Promise.allSettled(jobs.map((j) => store.sign(wallets[j.wallet]!.keyRef, j.digest)));

        const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
        expect({ failed: failures.length, first: failures[0] }).toEqual({ failed: 0, first: undefined });
        const wrong = results.filter((r, i) => {
          if (r.status !== 'fulfilled') return false;
          const { r: sr, s, v } = r.value;
          return recoverAddress(jobs[i]!.digest, { r: hexlify(sr), s: hexlify(s), v }) !== addresses[jobs[i]!.wallet];
        });
        expect(wrong.length).toBe(0);
      } finally {
        await store.close();
      }
    }, 300_000); // a bound on a hang only: 5 000 signs that each unwrap a key file take a while on a busy machine
  }
});
