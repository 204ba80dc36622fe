import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { LocalFileKeyStore } from '../../adapters/keystore/local-file/local-file.key-store.js';
import { signRacingTheKeyCache } from '../support/sign-race.js';

/** The attack of issue 20 §1 (test/support/sign-race.ts) on the `local` store. */
describe('local key store: signs racing the unwrapped-key cache', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  for (const signingThread of [true, false]) {
    it(`signs 5 000 concurrent digests over 50 wallets with a cache of 2 and a 1 ms TTL (signing thread ${signingThread ? 'on' : 'off'}), every one recovering to its wallet`, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-sign-race-'));
      dirs.push(dir);
      const store = new LocalFileKeyStore({ keysDir: dir, masterKey: randomBytes(32), cacheSize: 2, cacheTtlMs: 1, signingThread });
      try {
        await signRacingTheKeyCache(store, 50, 5_000);
      } finally {
        await store.close();
      }
    }, 300_000); // a bound on a hang only: 5 000 signs that each unwrap a key file take a while on a busy machine
  }
});
