import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliJson, spawnServer, migrateStore } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { localSignBody } from '../support/sign-request.js';
import { documentedVerifier, startReceiver, until } from '../support/webhook-receiver.js';

describe('webhooks across a SIGKILL', () => {
  it('delivers every event after a kill mid-delivery and a restart, verified and in order (the one in flight again, same id)', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-webhook-kill-'));
    const env = { VAULT_DATA_DIR: dataDir, VAULT_WEBHOOK_POLL_MS: '20' };
    // The third delivery is held open until the server is gone; everything else is answered 200.
    let releaseHeld: (status: number) => void = () => undefined;
    const held = new Promise<number>((resolve) => (releaseHeld = resolve));
    const receiver = await startReceiver((_, i) => (i === 2 ? held : 200));
    const servers: Awaited<ReturnType<typeof spawnServer>>[] = [];
    try {
      await migrateStore(env);
      const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'kill'], env);
      const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
      const endpoint = await cliJson<{ id: string; events: string[] }>(['webhooks', 'add', '--vault', vault.id, '--url', receiver.url, '--events', 'signature.issued'], env);
      expect(endpoint.events).toEqual(['signature.issued']);

      const first = await spawnServer(env);
      servers.push(first);
      const api = client(first.url, apiKey);
      const wallet = (await api.post(`/api/v1/vaults/${vault.id}/wallets`, { name: 'w' })).body.data as { address: string };
      const hashes: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await api.post(`/api/v1/vaults/${vault.id}/sign`, localSignBody(wallet.address));
        expect(r.status).toBe(200);
        hashes.push(r.body.data.submissionHash);
      }
      await until(() => receiver.deliveries.length >= 3, 'the third delivery to be in flight');
      await first.kill('SIGKILL');
      releaseHeld(200); // too late: the server that sent it is gone and never learns the answer

      const second = await spawnServer(env);
      servers.push(second);
      const jwks = (await client(second.url).get('/.well-known/wallet-vault-webhook-keys')).body;
      const verify = await documentedVerifier();
      const distinct = () => new Set(receiver.deliveries.map((d) => d.headers['webhook-id'])).size;
      await until(() => distinct() >= 5, 'every event delivered');

      const events = receiver.deliveries.map((d) => verify(d.headers, d.body, jwks));
      const firstSeen = events.filter((e, i) => events.findIndex((o) => o.id === e.id) === i);
      expect(firstSeen.map((e) => e.data.subject)).toEqual(hashes);
      // The delivery in flight at the kill was sent again, with the same id; nothing else twice.
      const counts = new Map<string, number>();
      for (const e of events) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
      expect(counts.get(firstSeen[2]!.id)).toBeGreaterThanOrEqual(2);
      // In order: each delivery is of the event after the last one answered 2xx, or the same again.
      const seqs = events.map((e) => e.data.seq as number);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]!).toBeGreaterThanOrEqual(seqs[i - 1]!);

      const listed = await cliJson<{ id: string; deliveredSeq: number }[]>(['webhooks', 'list', '--vault', vault.id], env);
      await until(async () => (await cliJson<{ deliveredSeq: number }[]>(['webhooks', 'list', '--vault', vault.id], env))[0]!.deliveredSeq >= seqs.at(-1)!, 'the cursor at the last event');
      expect(listed.map((e) => e.id)).toEqual([endpoint.id]);
    } finally {
      releaseHeld(200);
      for (const s of servers) await s.kill('SIGKILL').catch(() => undefined);
      await receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
