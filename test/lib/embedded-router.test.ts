import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// By package name, as an application imports it: Node resolves the package's own name through the
// exports map of package.json, to dist/ (built by the global setup).
import { createVault, type Vault } from 'wallet-vault';
import { vaultRouter } from 'wallet-vault/express';
import { localFileKeyStore } from 'wallet-vault/keystores/local-file';
import { sqlitePersistence } from 'wallet-vault/persistence/sqlite';
import { client } from '../support/http-client.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** One side of the comparison: a base URL, an API key of a fresh vault, and where the vault's routes are. */
interface Side {
  readonly api: ReturnType<typeof client>;
  readonly base: string;
  readonly root: string;
}

describe('vaultRouter mounted under /vault in an Express app of its own', () => {
  let dir: string;
  let vault: Vault;
  let app: import('node:http').Server;
  let appUrl: string;
  let standalone: TestServer;
  let embedded: Side;
  let server: Side;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-embed-'));
    vault = await createVault({
      persistence: await sqlitePersistence({ path: path.join(dir, 'vault.db') }),
      keyStores: [localFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKeyHex: 'ab'.repeat(32) })],
      version: 'test',
      jobs: false,
    });
    const host = express();
    host.get('/hello', (_req, res) => {
      res.json({ hello: 'from the host app' });
    });
    host.use('/vault', vaultRouter(vault));
    app = host.listen(0, '127.0.0.1');
    await new Promise((resolve) => app.once('listening', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    const v = await vault.manageVaults.create({ name: 'embedded' });
    embedded = { api: client(appUrl, (await vault.manageVaults.createApiKey(v.id)).apiKey), base: `/vault/api/v1/vaults/${v.id}`, root: '/vault' };

    standalone = await startTestServer();
    const s = await standalone.createVault({ name: 'standalone' });
    server = { api: client(standalone.url, (await standalone.createApiKey(s.id)).apiKey), base: `/api/v1/vaults/${s.id}`, root: '' };
  });
  afterAll(async () => {
    await new Promise((resolve) => app?.close(resolve));
    await vault?.close();
    await standalone?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves the host app its own routes', async () => {
    const r = await client(appUrl).get('/hello');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ hello: 'from the host app' });
  });

  it('creates a wallet and signs with it, answering in the standalone server\'s shape', async () => {
    const replies = await Promise.all(
      [embedded, server].map(async (side) => {
        const created = await side.api.post(`${side.base}/wallets`, { name: 'signer' });
        const signed = await side.api.post(`${side.base}/sign`, localSignBody(created.body.data.address));
        const listed = await side.api.get(`${side.base}/wallets`);
        return { created, signed, listed };
      }),
    );
    const [mine, theirs] = replies as [(typeof replies)[0], (typeof replies)[0]];
    expect(mine.created.status).toBe(200);
    expect(Object.keys(mine.created.body.data).sort()).toEqual(Object.keys(theirs.created.body.data).sort());
    expect(mine.signed.status).toBe(200);
    expect(mine.signed.body).toEqual({
      success: true,
      data: { submissionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), args: [expect.any(String), '1000', { nonce: expect.any(String), r: expect.any(String), s: expect.any(String), v: expect.any(Number) }] },
    });
    expect(Object.keys(mine.signed.body.data)).toEqual(Object.keys(theirs.signed.body.data));
    expect(mine.signed.headers.get('content-type')).toBe(theirs.signed.headers.get('content-type'));
    expect(mine.listed.body.data.count).toBe(1);
  });

  it('signs through the singular `vault` alias too', async () => {
    const wallet = (await embedded.api.post(`${embedded.base}/wallets`, { name: 'alias' })).body.data.address as string;
    const r = await embedded.api.post(`${embedded.base.replace('/vaults/', '/vault/')}/sign`, localSignBody(wallet));
    expect(r.status).toBe(200);
  });

  it.each([
    ['no API key', (s: Side) => client(s.api === embedded.api ? appUrl : standalone.url).get(`${s.base}/wallets`)],
    ['a bad sign body', (s: Side) => s.api.post(`${s.base}/sign`, { chain: 'solana' })],
    ['an unsigned sign without a key', (s: Side) => client(s.api === embedded.api ? appUrl : standalone.url).post(`${s.base}/sign`, {})],
    ['a malformed JSON body', (s: Side) => s.api.raw('POST', `${s.base}/wallets`, { raw: '{"name":' })],
    ['an unknown wallet', (s: Side) => s.api.get(`${s.base}/wallets/0x0000000000000000000000000000000000000001`)],
  ])('answers %s with the same status and envelope', async (_label, call) => {
    const [mine, theirs] = await Promise.all([call(embedded), call(server)]);
    expect(mine.status).toBe(theirs.status);
    expect(mine.body).toEqual(theirs.body);
  });

  it('answers an unknown path under the mount point with the 404 envelope, as the standalone server does at its root', async () => {
    const [mine, theirs] = await Promise.all([embedded.api.get('/vault/nowhere'), server.api.get('/nowhere')]);
    expect(mine.status).toBe(404);
    expect(mine.body).toEqual(theirs.body);
  });

  it('answers with its own settings, not the host app\'s (no ETag though the host app has them on)', async () => {
    const r = await embedded.api.get(`${embedded.base}/wallets`);
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toBeNull();
  });

  it('passes what it does not serve back to the host app when notFound is false', async () => {
    const host = express();
    host.use(vaultRouter(vault, { notFound: false }));
    host.get('/after', (req, res) => {
      res.json({ reached: true, query: req.query });
    });
    const listening = host.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const r = await client(`http://127.0.0.1:${(listening.address() as AddressInfo).port}`).get('/after?a[b]=1');
      expect(r.status).toBe(200);
      // The host app's own (simple) query parser again, not the vault's extended one.
      expect(r.body).toEqual({ reached: true, query: { 'a[b]': '1' } });
    } finally {
      await new Promise((resolve) => listening.close(resolve));
    }
  });

  it('serves no health routes unless asked', async () => {
    expect((await client(appUrl).get('/vault/healthz')).status).toBe(404);
  });
});
