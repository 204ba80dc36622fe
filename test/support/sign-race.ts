import { randomBytes } from 'node:crypto';
import { computeAddress, hexlify, recoverAddress } from 'ethers';
import { expect } from 'vitest';
import type { KeyStore } from '../../src/ports/key-store.port.js';

/**
 * The attack of issue 20 §1, for any store that signs as LocalSigningKeyStore: a sign queued for the
 * signing thread held the key cache's own buffer, and the cache zeroed that buffer when it evicted or
 * expired the entry (or replaced it after a concurrent miss) before the thread had copied it:
 * libsecp256k1 then refused the zero key and the sign answered 500. Give it more wallets than its cache
 * holds and a TTL that expires almost at once; every sign is sent together, and each must recover to its
 * own wallet.
 */
export async function signRacingTheKeyCache(store: KeyStore, wallets: number, signs: number): Promise<void> {
  const created = await Promise.all(Array.from({ length: wallets }, () => store.create()));
  const addresses = created.map((w) => computeAddress(hexlify(w.publicKey)));
  const jobs = Array.from({ length: signs }, (_, i) => ({ wallet: i % wallets, digest: randomBytes(32) }));
  const results = await Promise.allSettled(jobs.map((j) => store.sign(created[j.wallet]!.keyRef, j.digest)));

  const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
  expect({ failed: failures.length, first: failures[0] }).toEqual({ failed: 0, first: undefined });
  const wrong = results.filter((r, i) => {
    if (r.status !== 'fulfilled') return false;
    const { r: sr, s, v } = r.value;
    return recoverAddress(jobs[i]!.digest, { r: hexlify(sr), s: hexlify(s), v }) !== addresses[jobs[i]!.wallet];
  });
  expect(wrong.length).toBe(0);
}
