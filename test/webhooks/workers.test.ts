import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliJson, spawnServer, migrateStore } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { localSignBody } from '../support/sign-request.js';
import { documentedVerifier, startReceiver, until } from '../support/webhook-receiver.js';

describe('webhooks with VAULT_WORKERS=2', () => {
  it('delivers each event once, whichever worker signed it', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-webhook-workers-'));
    const env = { VAULT_DATA_DIR: dataDir, VAULT_WEBHOOK_POLL_MS: '20', VAULT_WORKERS: '2' };
    const receiver = await startReceiver();
    let server: Awaited<ReturnType<typeof spawnServer>> | undefined;
    try {
      await migrateStore(env);
      const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'workers'], env);
      const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
      await cliJson(['webhooks', 'add', '--vault', vault.id, '--url', receiver.url, '--events', 'signature.issued'], env);
      server = await spawnServer(env);
      const wallet = (await client(server.url, apiKey).post(`/api/v1/vaults/${vault.id}/wallets`, { name: 'w' })).body.data as { address: string };
      const hashes: string[] = [];
      // A fresh connection per request, so node's cluster spreads them over both workers.
      for (let i = 0; i < 8; i++) {
        const r = await client(server.url, apiKey).post(`/api/v1/vaults/${vault.id}/sign`, localSignBody(wallet.address), { connection: 'close' });
        expect(r.status).toBe(200);
        hashes.push(r.body.data.submissionHash);
      }
      await until(() => receiver.deliveries.length >= 8, 'eight deliveries');
      const jwks = (await client(server.url).get('/.well-known/wallet-vault-webhook-keys')).body;
      const verify = await documentedVerifier();
      expect(receiver.deliveries.map((d) => verify(d.headers, d.body, jwks).data.subject)).toEqual(hashes);
      // Every worker answers with the one key kept in the database.
      for (let i = 0; i < 4; i++) expect((await client(server.url).get('/.well-known/wallet-vault-webhook-keys', { connection: 'close' })).body).toEqual(jwks);
    } finally {
      await server?.kill('SIGTERM');
      await receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
