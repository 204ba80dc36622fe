import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { vaultRouter } from '../../lib/express.js';
import { STATUS_BY_CODE } from '../../adapters/http/error-status.js';
import { client, type Reply } from '../support/http-client.js';
import { describeEachBackend, itOn, type Target } from '../support/backends.js';

/*
 * decisions.md: "A known path with another method is 405 with `Allow`; 401 answers carry
 * `WWW-Authenticate: Bearer`." On both shells (the standalone server, vaultRouter under a prefix); the
 * database plays no part, so SQLite only.
 */

const REALM = 'Bearer realm="wallet-vault"';
const INVALID_TOKEN = 'Bearer realm="wallet-vault", error="invalid_token"';

function expect405(r: Reply, method: string, allow: string, at: string): void {
  expect(r.status, at).toBe(405);
  expect(r.headers.get('allow'), at).toBe(allow);
  expect(r.headers.get('content-type'), at).toMatch(/^application\/json/);
  expect(r.headers.get('x-request-id'), at).toMatch(/^[0-9a-f-]{36}$/);
  expect(r.body, at).toEqual({ success: false, error: expect.stringMatching(new RegExp(`^method ${method} is not allowed on \\S+ \\(Allow: ${allow}\\)$`)), code: 'METHOD_NOT_ALLOWED' });
  expect(Object.keys(r.body), at).toEqual(['success', 'error', 'code']);
}

describeEachBackend(
  'HTTP manners: 405 with Allow, WWW-Authenticate on every 401',
  (backend) => {
    let t: Target;
    let vaultId: string;
    let apiKey: string;
    let address: string;
    beforeAll(async () => {
      t = await backend.start();
      const v = await t.vaultWithKey('manners');
      ({ vaultId, apiKey } = v);
      address = (await v.api.post(`${v.base}/wallets`, { name: 'w' })).body.data.address;
    });
    afterAll(async () => {
      await t?.close();
    });

    it('answers a known vault path asked with another method 405 with Allow, to anyone: no key, a wrong key, no such vault', async () => {
      const cases: [string, string, string][] = [
        ['PATCH', '/wallets', 'GET, HEAD, POST'],
        ['GET', '/sign', 'POST'],
        ['PUT', '/status', 'GET, HEAD'],
        ['PATCH', `/wallets/${address}`, 'DELETE, GET, HEAD, POST, PUT'],
        ['GET', '/approvals/a-1/approve', 'POST'],
        ['DELETE', '/submissions', 'POST'],
        ['PUT', `/wallets/${address}/sign-message`, 'POST'],
      ];
      const callers = [client(t.url, apiKey), client(t.url), client(t.url, `wv_${'0'.repeat(16)}_${'A'.repeat(43)}`)];
      for (const [method, sub, allow] of cases) {
        for (const [i, api] of callers.entries()) {
          for (const path of [`/api/v1/vaults/${vaultId}${sub}`, `/api/v1/vault/${vaultId}${sub}`, `/api/v1/vaults/no-such-vault${sub}`]) {
            // A body is never read: the method is wrong whatever it carries.
            expect405(await api.raw(method, path, method === 'GET' ? {} : { raw: '{"not":' }), method, allow, `caller ${i}: ${method} ${path}`);
          }
        }
      }
    });

    it('answers HEAD where only POST is served 405, and HEAD where GET is served as GET', async () => {
      const head = await client(t.url).raw('HEAD', `/api/v1/vaults/${vaultId}/sign`);
      expect(head.status).toBe(405);
      expect(head.headers.get('allow')).toBe('POST');
      expect((await client(t.url, apiKey).raw('HEAD', `/api/v1/vaults/${vaultId}/status`)).status).toBe(200);
    });

    it('answers /healthz and /readyz asked with another method 405 with Allow: GET, HEAD', async () => {
      for (const [method, path] of [
        ['POST', '/healthz'],
        ['DELETE', '/readyz'],
        ['PUT', '/healthz/'],
      ] as const) {
        expect405(await client(t.url).raw(method, path, { body: {} }), method, 'GET, HEAD', `${method} ${path}`);
      }
      expect((await client(t.url).get('/healthz')).status).toBe(200);
    });

    it('keeps unknown paths 404 ROUTE_NOT_FOUND, without Allow', async () => {
      const api = client(t.url, apiKey);
      for (const [method, path] of [
        ['GET', `/api/v1/vaults/${vaultId}/nothing`],
        ['PATCH', `/api/v1/vaults/${vaultId}/wallets/${address}/extra`],
        ['POST', '/nothing'],
        ['POST', '/healthz/more'],
        ['GET', '/api/v2/wallets'],
      ] as const) {
        const r = await api.raw(method, path);
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body, `${method} ${path}`).toEqual({ success: false, error: expect.stringMatching(/^no route /), code: 'ROUTE_NOT_FOUND' });
        expect(r.headers.get('allow')).toBeNull();
      }
    });

    itOn(backend, { shell: 'mounted' }, 'an option of vaultRouter')(
      'with notFound: false, hands a wrong method back to the host app, as any path it does not serve',
      async () => {
        // Under a mount the conformance check does not know: these answers are the host app's, not the API's.
        const host = express();
        host.use('/own', vaultRouter(t.vault, { notFound: false, health: true }));
        host.post('/own/healthz', (_req, res) => void res.json({ host: true }));
        const listening = host.listen(0, '127.0.0.1');
        await new Promise((resolve) => listening.once('listening', resolve));
        try {
          const url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/own`;
          expect((await client(url).get('/healthz')).status).toBe(200);
          expect((await client(url).post('/healthz')).body).toEqual({ host: true });
          // Express's own 404 for what neither serves.
          const r = await client(url).raw('PATCH', `/api/v1/vaults/${vaultId}/wallets`);
          expect(r.status).toBe(404);
          expect(r.headers.get('allow')).toBeNull();
        } finally {
          await new Promise((resolve) => listening.close(resolve));
        }
      },
    );

    it('sends WWW-Authenticate: Bearer with every 401, invalid_token when a Bearer token was refused', async () => {
      const at = `/api/v1/vaults/${vaultId}/wallets`;
      const cases: [string, Record<string, string>, string][] = [
        ['no key', {}, REALM],
        ['another scheme', { authorization: `Basic ${apiKey}` }, REALM],
        ['a malformed key', { authorization: 'Bearer not-a-key' }, INVALID_TOKEN],
        ['an unknown key', { authorization: `Bearer wv_${'0'.repeat(16)}_${'A'.repeat(43)}` }, INVALID_TOKEN],
        ['a wrong secret', { authorization: `Bearer ${apiKey.slice(0, -4)}AAAA` }, INVALID_TOKEN],
      ];
      for (const [label, headers, challenge] of cases) {
        const r = await client(t.url).get(at, headers);
        expect(r.status, label).toBe(401);
        expect(STATUS_BY_CODE[r.body.code as keyof typeof STATUS_BY_CODE], label).toBe(401);
        expect(r.headers.get('www-authenticate'), label).toBe(challenge);
      }
      // A key of the vault is another vault's: refused as any wrong key.
      const other = await t.vaultWithKey('other');
      expect((await client(t.url, other.apiKey).get(at)).headers.get('www-authenticate')).toBe(INVALID_TOKEN);
      // Answers other than 401 carry no challenge.
      expect((await client(t.url, apiKey).get(at)).headers.get('www-authenticate')).toBeNull();
    });
  },
  { database: 'sqlite' },
);
