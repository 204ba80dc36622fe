import http from 'node:http';
import vault from 'node-vault';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { VaultTransitKeyStore } from '../../adapters/keystore/vault-transit/vault-transit.key-store.js';
import { startFakeVault, type FakeVault } from '../support/fake-vault.server.js';
import { signRacingTheKeyCache } from '../support/sign-race.js';

/**
 * The attack of issue 20 §1 (test/support/sign-race.ts) on the `vault-transit` store, which now signs
 * as the same LocalSigningKeyStore as `local` (issue 22), its signing thread included: each miss is a
 * Transit decrypt, so concurrent loads of one key, evictions and expiries all land while signs are queued.
 */
describe('vault-transit key store: signs racing the unwrapped-key cache', () => {
  let v: FakeVault;
  beforeAll(async () => {
    v = await startFakeVault();
  });
  afterAll(() => v?.close());

  for (const signingThread of [true, false]) {
    it(`signs 2 000 concurrent digests over 50 wallets with a cache of 2 and a 1 ms TTL (signing thread ${signingThread ? 'on' : 'off'}), every one recovering to its wallet`, async () => {
      // 2 000 signs are in flight together; their decrypt calls share a few connections (2 000 sockets at
      // once would overflow the test server's accept backlog), and the long timeout only bounds a hang.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
      const client = vault({ apiVersion: 'v1', endpoint: v.url, token: v.token, requestOptions: { httpAgent: agent, timeout: 120_000 } });
      const store = new VaultTransitKeyStore({ client, keyName: 'wallet-vault', cacheSize: 2, cacheTtlMs: 1, signingThread });
      try {
        await signRacingTheKeyCache(store, 50, 2_000);
      } finally {
        await store.close();
        agent.destroy();
      }
    }, 300_000); // a bound on a hang only: 2 000 signs that each call the Vault server take a while on a busy machine
  }
});
