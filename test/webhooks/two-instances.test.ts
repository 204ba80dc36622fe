import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE } from '../support/postgres.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { documentedVerifier, startReceiver, until } from '../support/webhook-receiver.js';

const delivered = async (server: TestServer) => {
  const text = (await client(server.url).get('/metrics')).body as string;
  return Number(/wallet_vault_webhook_deliveries_total\{outcome="delivered"\} (\d+)/.exec(text)?.[1] ?? 0);
};

describe.skipIf(!POSTGRES_AVAILABLE)('webhooks with two instances on one PostgreSQL database', () => {
  it('sends each event once, from one instance at a time, and the other takes over when it stops', async () => {
    const db = await createTestDatabase();
    // One data directory for both: the local key store's files and master key are shared, so either signs.
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-webhook-pg-'));
    const env = { VAULT_DATABASE_URL: db.url, VAULT_WEBHOOK_POLL_MS: '20' };
    const receiver = await startReceiver();
    const running: TestServer[] = [];
    try {
      const a = await startTestServer({ env, dataDir });
      running.push(a);
      const b = await startTestServer({ env, dataDir });
      running.push(b);
      const vault = await a.createVault({ name: 'two' });
      const { apiKey } = await a.createApiKey(vault.id);
      const wallet = (await client(a.url, apiKey).post(`/api/v1/vaults/${vault.id}/wallets`, { name: 'w' })).body.data as { address: string };
      await a.server.vault.manageWebhooks.add({ vaultId: vault.id, url: receiver.url, events: ['signature.issued'] });
      const sign = async (via: TestServer) => {
        const r = await client(via.url, apiKey).post(`/api/v1/vaults/${vault.id}/sign`, localSignBody(wallet.address));
        expect(r.status).toBe(200);
        return r.body.data.submissionHash as string;
      };
      const hashes: string[] = [];
      for (let i = 0; i < 10; i++) hashes.push(await sign(i % 2 === 0 ? a : b));
      await until(async () => (await delivered(a)) + (await delivered(b)) >= 10, 'ten deliveries');

      const verify = await documentedVerifier();
      const jwks = (await client(b.url).get('/.well-known/wallet-vault-webhook-keys')).body;
      // Both instances publish the same key: the one generated once and kept in the database.
      expect((await client(a.url).get('/.well-known/wallet-vault-webhook-keys')).body).toEqual(jwks);
      const events = receiver.deliveries.map((d) => verify(d.headers, d.body, jwks));
      expect(events.map((e) => e.data.subject)).toEqual(hashes);
      expect(new Set(events.map((e) => e.id)).size).toBe(10);
      const counts = [await delivered(a), await delivered(b)];
      expect(counts.sort()).toEqual([0, 10]);

      // The instance that delivered stops; the other holds the lock from then on and delivers what follows.
      const [sender, other] = (await delivered(a)) === 10 ? [a, b] : [b, a];
      await sender.stop({ keepData: true });
      running.splice(running.indexOf(sender), 1);
      const more = [await sign(other), await sign(other)];
      await until(() => receiver.deliveries.length >= 12, 'the deliveries after the takeover');
      const after = receiver.deliveries.slice(10).map((d) => verify(d.headers, d.body, jwks));
      expect(after.map((e) => e.data.subject)).toEqual(more);
      expect(await delivered(other)).toBe(2);
    } finally {
      for (const s of running) await s.stop({ keepData: true });
      await receiver.close();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
