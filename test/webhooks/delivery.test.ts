import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalFileKeyStore } from '../../adapters/keystore/local-file/local-file.key-store.js';
import { resolveMasterKey } from '../../adapters/keystore/local-file/master-key.js';
import { client } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE } from '../support/postgres.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { documentedVerifier, startReceiver, until, type Delivery, type Receiver } from '../support/webhook-receiver.js';

type Verify = Awaited<ReturnType<typeof documentedVerifier>>;

const BACKENDS = [
  { name: 'SQLite', postgres: false },
  ...(POSTGRES_AVAILABLE ? [{ name: 'PostgreSQL', postgres: true }] : []),
];

/** Webhook delivery from the real server to receivers on 127.0.0.1, over each database. */
describe.each(BACKENDS)('webhooks on $name', ({ postgres }) => {
  let verify: Verify;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    verify = await documentedVerifier();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const start = async (pollMs = '20') => {
    const env: Record<string, string> = { VAULT_WEBHOOK_POLL_MS: pollMs };
    if (postgres) {
      // A database of its own per test: no endpoint of an earlier test is delivered to.
      const db = await createTestDatabase();
      cleanups.push(() => db.drop());
      env.VAULT_DATABASE_URL = db.url;
    }
    const server = await startTestServer({ env });
    cleanups.push(() => server.stop());
    return server;
  };
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    cleanups.push(() => r.close());
    return r;
  };
  /** A vault with an API key and a wallet, and an endpoint of that vault at `url`. */
  const world = async (server: TestServer, url: string, events?: string[]) => {
    const vault = await server.createVault({ name: 'hooks' });
    const { apiKey } = await server.createApiKey(vault.id);
    const api = client(server.url, apiKey);
    const wallet = (await api.post(`/api/v1/vaults/${vault.id}/wallets`, { name: 'w' })).body.data as { address: string };
    const endpoint = await server.server.vault.manageWebhooks.add({ vaultId: vault.id, url, events });
    const sign = async () => {
      const r = await api.post(`/api/v1/vaults/${vault.id}/sign`, localSignBody(wallet.address));
      expect(r.status).toBe(200);
      return r.body.data.submissionHash as string;
    };
    return { vault, api, wallet, endpoint, sign };
  };
  const jwksOf = async (server: TestServer) => (await client(server.url).get('/.well-known/wallet-vault-webhook-keys')).body;
  /** The deliveries verified with the documented snippet, first attempt of each id only. */
  const verified = async (server: TestServer, r: Receiver, now?: number) => {
    const jwks = await jwksOf(server);
    const seen = new Set<string>();
    const events = [];
    for (const d of r.deliveries) {
      const event = verify(d.headers, d.body, jwks, now);
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      events.push(event);
    }
    return events;
  };

  it('signs each delivery; the snippet of docs/webhooks.md verifies it with the published key, and refuses a tampered one', async () => {
    const server = await start();
    const r = await receiver();
    const w = await world(server, r.url);
    const hash = await w.sign();
    await until(() => r.deliveries.length >= 1, 'a delivery');

    const keys = await client(server.url).get('/.well-known/wallet-vault-webhook-keys');
    expect(keys.status).toBe(200);
    expect(keys.headers.get('cache-control')).toBe('public, max-age=300');
    expect(keys.body.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: expect.any(String), use: 'sig', alg: 'EdDSA' }]);

    const [event] = await verified(server, r);
    expect(event).toMatchObject({ type: 'signature.issued', vaultId: w.vault.id, data: { subject: hash, wallet: w.wallet.address, chain: 'local' } });
    expect(event!.id).toBe(r.deliveries[0]!.headers['webhook-id']);
    expect(event!.id).toMatch(new RegExp(`^wv_${server.server.vault.deploymentId}_${event!.data.seq}$`));
    expect(r.deliveries[0]!.headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]+=*$/);

    const d = r.deliveries[0]!;
    const tampered: Delivery = { headers: d.headers, body: d.body.replace(hash, `0x${'00'.repeat(32)}`) };
    expect(() => verify(tampered.headers, tampered.body, keys.body)).toThrow(/does not verify/);
    expect(() => verify(d.headers, d.body, keys.body, Date.now() + 6 * 60_000)).toThrow(/5 minute window/);
    // The same key on every read: it is kept, not made per request.
    expect((await jwksOf(server)).keys).toEqual(keys.body.keys);
  });

  it('delivers the events of a vault in audit order, only the types asked for, and nothing from before the endpoint', async () => {
    const server = await start();
    const r = await receiver();
    const earlier = await world(server, r.url, ['signature.issued', 'wallet.expired']);
    // Another endpoint of another vault: its events never reach this receiver.
    const other = await receiver();
    const elsewhere = await world(server, other.url);
    const hashes = [];
    for (let i = 0; i < 4; i++) {
      hashes.push(await earlier.sign());
      await elsewhere.sign();
    }
    expect((await earlier.api.delete(`/api/v1/vaults/${earlier.vault.id}/wallets/${earlier.wallet.address}`)).status).toBe(200);
    await until(() => r.deliveries.length >= 5 && other.deliveries.length >= 4, 'every event');

    const events = await verified(server, r);
    expect(events.map((e) => e.type)).toEqual([...hashes.map(() => 'signature.issued'), 'wallet.expired']);
    expect(events.slice(0, 4).map((e) => e.data.subject)).toEqual(hashes);
    const seqs = events.map((e) => e.data.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(events.every((e) => e.vaultId === earlier.vault.id)).toBe(true);
    // wallet.created of the vault happened before the endpoint existed: not delivered (and not asked for).
    expect((await verified(server, other)).every((e) => e.vaultId === elsewhere.vault.id)).toBe(true);
  });

  it('sends an event this process appended at once, not at the next poll (an hour away here)', async () => {
    const server = await start('3600000');
    const r = await receiver();
    const w = await world(server, r.url);
    const hashes = [await w.sign(), await w.sign()];
    // An expiry is an audit record of a delivered type, appended outside the sign path.
    expect((await w.api.delete(`/api/v1/vaults/${w.vault.id}/wallets/${w.wallet.address}`)).status).toBe(200);
    await until(() => r.deliveries.length >= 3, 'the deliveries, well before the next poll');
    expect((await verified(server, r)).map((e) => e.data.subject)).toEqual([...hashes, w.wallet.address]);
  });

  it("delivers the purge's wallet.deleted and the sweep's key.quarantined, each with its vault", async () => {
    const server = await start();
    const r = await receiver();
    const w = await world(server, r.url, ['wallet.deleted', 'key.quarantined']);
    expect((await w.api.delete(`/api/v1/vaults/${w.vault.id}/wallets/${w.wallet.address}`)).status).toBe(200);
    // A key of this deployment, made for this vault, that no wallet names (as a crash mid-create leaves).
    const master = await resolveMasterKey({ dataDir: server.dataDir });
    const orphan = await new LocalFileKeyStore({ keysDir: path.join(server.dataDir, 'keys'), masterKey: master.key }).create({
      accountId: w.vault.accountId,
      vaultId: w.vault.id,
      walletId: 'never-committed',
      deploymentId: server.server.vault.deploymentId!,
    });
    server.clock.advance(31 * 24 * 3600_000);
    await server.server.purgeNow();
    await until(() => r.deliveries.length >= 2, 'the purge and the sweep events');
    const events = await verified(server, r, server.clock.now().getTime());
    expect(events.map((e) => [e.type, e.vaultId, String(e.data.subject).toLowerCase()])).toEqual([
      ['wallet.deleted', w.vault.id, w.wallet.address.toLowerCase()],
      ['key.quarantined', w.vault.id, orphan.keyRef.toLowerCase()],
    ]);
    expect(events[0]!.data).toMatchObject({ actor: 'system', keyStore: 'local' });
  });

  it('retries an event answered 500, with the same id, and goes on once it is answered 2xx', async () => {
    const server = await start();
    const r = await receiver((_, i) => (i === 0 ? 500 : 204));
    const w = await world(server, r.url);
    const first = await w.sign();
    await until(() => r.deliveries.length >= 1, 'the first attempt');
    const second = await w.sign();
    // The backoff (1 s) passes on the vault's clock.
    server.clock.advance(1000);
    await until(() => r.deliveries.length >= 3, 'the retry and the next event');

    expect(r.deliveries[1]!.headers['webhook-id']).toBe(r.deliveries[0]!.headers['webhook-id']);
    const events = await verified(server, r);
    expect(events.map((e) => e.data.subject)).toEqual([first, second]);
    const metrics = await client(server.url).get('/metrics');
    expect(metrics.body).toMatch(/wallet_vault_webhook_deliveries_total\{outcome="failed"\} 1\n/);
    expect(metrics.body).toMatch(/wallet_vault_webhook_deliveries_total\{outcome="delivered"\} 2\n/);
  });

  it('gives a receiver that was down everything it missed, in order, once it is back', async () => {
    const server = await start();
    const r = await receiver();
    const port = r.port;
    const w = await world(server, r.url);
    await r.close();
    const hashes = [await w.sign(), await w.sign(), await w.sign()];
    await until(async () => (await server.server.vault.manageWebhooks.list(w.vault.id))[0]!.attempts >= 2, 'failed attempts');
    const back = await receiver(() => 200, port);
    // However long the backoff has grown, on the vault's clock it has passed.
    server.clock.advance(10 * 60_000);
    await until(() => back.deliveries.length >= 3, 'every missed event');
    expect((await verified(server, back, server.clock.now().getTime())).map((e) => e.data.subject)).toEqual(hashes);
    const [endpoint] = await server.server.vault.manageWebhooks.list(w.vault.id);
    expect(endpoint).toMatchObject({ attempts: 0, firstFailure: null, lastError: null });
  });

  it('records an event undeliverable after 24 hours of failures, not before, and delivers the next one', async () => {
    const server = await start();
    const r = await receiver((d) => (d.body.includes('"type":"signature.issued"') ? 503 : 200));
    const w = await world(server, r.url);
    await w.sign();
    expect((await w.api.delete(`/api/v1/vaults/${w.vault.id}/wallets/${w.wallet.address}`)).status).toBe(200);
    const endpointNow = async () => (await server.server.vault.manageWebhooks.list(w.vault.id))[0]!;
    await until(async () => (await endpointNow()).attempts >= 1, 'a failed attempt');

    server.clock.advance(23 * 3600_000);
    const before = r.deliveries.length;
    await until(() => r.deliveries.length > before, 'an attempt 23 h later');
    expect(await server.server.vault.manageWebhooks.undeliverable(w.vault.id)).toEqual([]);
    expect((await endpointNow()).lastError).toBe('HTTP 503');

    server.clock.advance(3600_000);
    await until(() => r.deliveries.some((d) => d.body.includes('"type":"wallet.expired"')), 'the next event');
    const [given] = await server.server.vault.manageWebhooks.undeliverable(w.vault.id);
    expect(given).toMatchObject({ type: 'signature.issued', vaultId: w.vault.id, lastError: 'HTTP 503' });
    expect(given!.givenUp.getTime() - given!.firstFailure.getTime()).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(await endpointNow()).toMatchObject({ attempts: 0, firstFailure: null });
    const metrics = await client(server.url).get('/metrics');
    expect(metrics.body).toMatch(/wallet_vault_webhook_deliveries_total\{outcome="undeliverable"\} 1\n/);
  });

  it('sends the events again from a replayed seq on, the undeliverable one included, in order and with their ids', async () => {
    const server = await start();
    let refusing = true;
    const r = await receiver((d) => (refusing ? 503 : 200));
    const w = await world(server, r.url, ['signature.issued']);
    const endpointNow = async () => (await server.server.vault.manageWebhooks.list(w.vault.id))[0]!;
    const lost = await w.sign();
    await until(async () => (await endpointNow()).attempts >= 1, 'a failed attempt');
    server.clock.advance(24 * 3600_000);
    await until(async () => (await server.server.vault.manageWebhooks.undeliverable(w.vault.id)).length === 1, 'the event given up on');
    const [given] = await server.server.vault.manageWebhooks.undeliverable(w.vault.id);
    const lostId = r.deliveries.at(-1)!.headers['webhook-id'];
    refusing = false;
    const later = await w.sign();
    await until(() => r.deliveries.some((d) => d.body.includes(later)), 'the next event');
    // Its cursor moves once the 2xx is handled, a moment after the receiver got it: replayed from there.
    await until(async () => (await endpointNow()).deliveredSeq > given!.seq, 'the cursor past the next event');

    const before = r.deliveries.length;
    const { previousSeq } = await server.server.vault.manageWebhooks.replay({ vaultId: w.vault.id, id: w.endpoint.id, fromSeq: given!.seq });
    expect(previousSeq).toBeGreaterThan(given!.seq);
    await until(() => r.deliveries.length >= before + 2, 'both events again');
    const jwks = await jwksOf(server);
    const again = r.deliveries.slice(before).map((d) => verify(d.headers, d.body, jwks, server.clock.now().getTime()));
    expect(again.map((e) => e.data.subject)).toEqual([lost, later]);
    expect(again[0]!.id).toBe(lostId);
    expect(await server.server.vault.manageWebhooks.undeliverable(w.vault.id)).toEqual([]);
    // Its cursor back where it was, or past it (the replay's own record is no event of its types).
    await until(async () => (await endpointNow()).deliveredSeq >= previousSeq, 'the cursor back at the head');
    expect(await endpointNow()).toMatchObject({ attempts: 0, firstFailure: null });
  });
});
