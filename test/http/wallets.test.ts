import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPIRY_TTL_MS } from '../../src/domain/wallet.js';
import { toChecksumAddress } from '../../src/domain/address.js';
import { client } from '../support/http-client.js';
import { describeEachBackend, itOn, type Target } from '../support/backends.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeEachBackend('the wallet endpoints over HTTP', (backend) => {
  // One target per backend for the file; each block below works in vaults of its own.
  let t: Target;
  beforeAll(async () => {
    t = await backend.start();
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('wallet endpoints', () => {
    let vaultId: string;
    let api: ReturnType<typeof client>;
    let base: string;

    beforeAll(async () => {
      ({ vaultId, api, base } = await t.vaultWithKey('main', 'acme'));
    });

    it('creates a wallet ready at once: envelope, EIP-55 address, created == updated, no expires', async () => {
      const r = await api.post(`${base}/wallets`, { name: '  treasury ' });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
      expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.body.success).toBe(true);
      const w = r.body.data;
      expect(Object.keys(w).sort()).toEqual(['account', 'address', 'created', 'id', 'name', 'updated', 'vault']);
      expect(w).toMatchObject({ name: 'treasury', account: 'acme', vault: vaultId });
      expect(w.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(w.address).toBe(toChecksumAddress(w.address));
      expect(w.address).not.toBe(w.address.toLowerCase());
      expect(w.created).toMatch(ISO);
      expect(w.updated).toBe(w.created);
      expect(JSON.stringify(r.body)).not.toMatch(/keyRef|key_ref|keyStore|version/);
    });

    it('gets a wallet by address in any case', async () => {
      const created = (await api.post(`${base}/wallets`, { name: 'any-case' })).body.data;
      for (const form of [created.address, created.address.toLowerCase(), `0x${created.address.slice(2).toUpperCase()}`]) {
        const r = await api.get(`${base}/wallets/${form}`);
        expect(r.status).toBe(200);
        expect(r.body.data).toEqual(created);
      }
    });

    it('renames: only the name and updated change', async () => {
      const created = (await api.post(`${base}/wallets`, { name: 'before' })).body.data;
      await new Promise((r) => setTimeout(r, 5));
      const r = await api.put(`${base}/wallets/${created.address}`, { name: 'after' });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ ...created, name: 'after', updated: expect.any(String) });
      expect(Date.parse(r.body.data.updated)).toBeGreaterThan(Date.parse(created.updated));
      expect((await api.get(`${base}/wallets/${created.address}`)).body.data.name).toBe('after');
    });

    it('expires 30 days out, idempotently; unexpire removes it and is a no-op on an active wallet', async () => {
      const created = (await api.post(`${base}/wallets`, { name: 'rotating' })).body.data;
      const before = Date.now();
      const expired = await api.delete(`${base}/wallets/${created.address}`);
      expect(expired.status).toBe(200);
      const expires = Date.parse(expired.body.data.expires);
      expect(expires).toBeGreaterThanOrEqual(before + EXPIRY_TTL_MS);
      expect(expires).toBeLessThanOrEqual(Date.now() + EXPIRY_TTL_MS);
      const again = await api.delete(`${base}/wallets/${created.address}`);
      expect(again.body.data).toEqual(expired.body.data);
      expect((await api.get(`${base}/wallets/${created.address}`)).body.data.expires).toBe(expired.body.data.expires);

      const back = await api.post(`${base}/wallets/${created.address}`);
      expect(back.status).toBe(200);
      expect(back.body.data.expires).toBeUndefined();
      const noop = await api.post(`${base}/wallets/${created.address}`);
      expect(noop.body.data).toEqual(back.body.data);
    });

    it('answers the singular `vault` path alias the same way', async () => {
      const created = (await api.post(`/api/v1/vault/${vaultId}/wallets`, { name: 'alias' })).body.data;
      expect((await api.get(`/api/v1/vault/${vaultId}/wallets/${created.address}`)).body.data).toEqual(created);
    });

    it('reports status without the envelope', async () => {
      const r = await api.get(`${base}/status`);
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(['online', 'timestamp', 'vaultKeys', 'version', 'wallets']);
      expect(r.body).toMatchObject({ online: true, vaultKeys: 1, version: 'test' });
      expect(r.body.timestamp).toMatch(ISO);
      expect(r.body.wallets).toBe((await api.get(`${base}/wallets`)).body.data.count);
    });

    it('answers /healthz and /readyz without authentication', async () => {
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
      const ready = await fetch(`${t.url}/readyz`);
      expect(ready.status).toBe(200);
    });
  });

  describe('listing wallets', () => {
    let api: ReturnType<typeof client>;
    let base: string;
    const created: string[] = [];

    beforeAll(async () => {
      ({ api, base } = await t.vaultWithKey('list'));
      for (let i = 0; i < 7; i++) created.push((await api.post(`${base}/wallets`, { name: `w${i}` })).body.data.address);
    });

    it('defaults to offset 0 and count 100, oldest first, with the vault total', async () => {
      const r = await api.get(`${base}/wallets`);
      expect(r.status).toBe(200);
      expect(r.body.data.count).toBe(7);
      expect(r.body.data.page.map((w: { address: string }) => w.address)).toEqual(created);
    });

    it('pages without skipping or repeating; count is the total, not the page length', async () => {
      const seen: string[] = [];
      for (let offset = 0; offset < 7; offset += 3) {
        const r = await api.get(`${base}/wallets?offset=${offset}&count=3`);
        expect(r.body.data.count).toBe(7);
        seen.push(...r.body.data.page.map((w: { address: string }) => w.address));
      }
      expect(seen).toEqual(created);
      expect((await api.get(`${base}/wallets?count=0`)).body.data).toEqual({ count: 7, page: [] });
      expect((await api.get(`${base}/wallets?offset=100`)).body.data).toEqual({ count: 7, page: [] });
      expect((await api.get(`${base}/wallets?count=1000`)).status).toBe(200);
    });

    it.each([
      ['count=1001', /count/],
      ['count=-1', /count/],
      ['count=abc', /count/],
      ['count=1.5', /count/],
      ['offset=-1', /offset/],
      ['offset=x', /offset/],
      ['offset=1&offset=2', /offset/],
      ['count[a]=1', /count/],
    ])('refuses ?%s with 400 naming the parameter', async (query, field) => {
      const r = await api.get(`${base}/wallets?${query}`);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ success: false, error: expect.stringMatching(field), code: 'INVALID_ARGUMENT' });
    });
  });

  describe('bad input and unknown things', () => {
    let api: ReturnType<typeof client>;
    let apiKey: string;
    let base: string;

    beforeAll(async () => {
      ({ api, apiKey, base } = await t.vaultWithKey('bad'));
    });

    it.each([
      ['malformed JSON', { raw: '{"name":' }, /not valid JSON/, 'MALFORMED_JSON'],
      ['an empty body', { raw: '' }, /body is required/, 'MALFORMED_JSON'],
      ['a JSON array', { body: ['x'] }, /body: must be a JSON object/, 'INVALID_ARGUMENT'],
      ['a missing name', { body: {} }, /^name: is required$/, 'INVALID_ARGUMENT'],
      ['an unknown field', { body: { name: 'ok', expires: 5 } }, /^expires: is not a field of this request \(name, derivation\)$/, 'INVALID_ARGUMENT'],
      ['a numeric name', { body: { name: 7 } }, /name: must be a string/, 'INVALID_ARGUMENT'],
      ['a blank name', { body: { name: '   ' } }, /name: must not be empty/, 'INVALID_ARGUMENT'],
      ['a 201-character name', { body: { name: 'n'.repeat(201) } }, /name: must be at most 200 characters/, 'INVALID_ARGUMENT'],
      ['a non-JSON content type', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, /Content-Type/, 'MALFORMED_JSON'],
    ])('create with %s is 400 with a clear message and its code', async (_label, init, message, code) => {
      const r = await api.raw('POST', `${base}/wallets`, init as never);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ success: false, error: expect.stringMatching(message), code });
    });

    it('a body over 1 MiB is 413, and the server keeps serving', async () => {
      const r = await api.post(`${base}/wallets`, { name: 'x'.repeat(1024 * 1024 + 10) });
      expect(r.status).toBe(413);
      expect(r.body).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
      expect((await api.post(`${base}/wallets`, { name: 'after-413' })).status).toBe(200);
    });

    it('an unknown wallet is 404; a malformed address is 400 naming the address', async () => {
      const missing = await api.get(`${base}/wallets/0x${'00'.repeat(19)}01`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ success: false, error: expect.stringMatching(/not found/), code: 'WALLET_NOT_FOUND' });
      for (const method of ['PUT', 'DELETE', 'POST'] as const) {
        const r = await api.raw(method, `${base}/wallets/0x${'00'.repeat(19)}01`, method === 'PUT' ? { body: { name: 'x' } } : {});
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('WALLET_NOT_FOUND');
      }
      const bad = await api.get(`${base}/wallets/0x123`);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/^address: /);
      expect(bad.body.code).toBe('INVALID_ARGUMENT');
    });

    it('an unknown route is 404 in the envelope', async () => {
      const r = await api.get(`/api/v2/nothing`);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ success: false, error: 'no route GET /api/v2/nothing', code: 'ROUTE_NOT_FOUND' });
    });

    itOn(backend, { shell: 'mounted' }, 'the standalone server answers every path itself')(
      "the vault answers only under its mount point: the same path beside it is the host app's",
      async () => {
        const beside = await client(new URL(t.url).origin, apiKey).get(`/api/v2/nothing`);
        expect(beside.status).toBe(404);
        expect(beside.body).not.toHaveProperty('code'); // Express's own 404 page, not the vault's envelope
        expect(beside.headers.get('x-request-id')).toBeNull();
      },
    );
  });

  describe('authentication and tenancy', () => {
    let a: { id: string; key: string; keyId: string };
    let b: { id: string; key: string };

    beforeAll(async () => {
      const va = await t.vaultWithKey('a');
      a = { id: va.vaultId, key: va.apiKey, keyId: va.keyId };
      const vb = await t.vaultWithKey('b');
      b = { id: vb.vaultId, key: vb.apiKey };
    });

    const unauthorized = async (path: string, headers: Record<string, string>) => {
      const r = await client(t.url).get(path, headers);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ success: false, error: expect.any(String), code: 'UNAUTHENTICATED' });
      return r.body.error as string;
    };

    it('refuses a missing header, another scheme, a malformed key and an unknown key', async () => {
      const path = `/api/v1/vaults/${a.id}/wallets`;
      expect(await unauthorized(path, {})).toMatch(/missing Authorization/);
      expect(await unauthorized(path, { authorization: `Basic ${a.key}` })).toMatch(/Bearer/);
      expect(await unauthorized(path, { authorization: 'Bearer' })).toMatch(/malformed/);
      expect(await unauthorized(path, { authorization: 'Bearer not-a-key' })).toMatch(/malformed API key/);
      const forged = a.key.slice(0, -4) + (a.key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      expect(await unauthorized(path, { authorization: `Bearer ${forged}` })).toMatch(/invalid API key/);
    });

    it("refuses vault A's key on vault B and on an unknown vault, with the same message", async () => {
      const other = await unauthorized(`/api/v1/vaults/${b.id}/wallets`, { authorization: `Bearer ${a.key}` });
      const unknown = await unauthorized(`/api/v1/vaults/nope/wallets`, { authorization: `Bearer ${a.key}` });
      expect(other).toBe(unknown);
      await unauthorized(`/api/v1/vaults/${b.id}/status`, { authorization: `Bearer ${a.key}` });
    });

    it("vault B never sees vault A's wallets", async () => {
      const apiA = client(t.url, a.key);
      const apiB = client(t.url, b.key);
      const w = (await apiA.post(`/api/v1/vaults/${a.id}/wallets`, { name: 'a-only' })).body.data;
      expect((await apiB.get(`/api/v1/vaults/${b.id}/wallets/${w.address}`)).status).toBe(404);
      expect((await apiB.delete(`/api/v1/vaults/${b.id}/wallets/${w.address}`)).status).toBe(404);
      expect((await apiB.get(`/api/v1/vaults/${b.id}/wallets`)).body.data).toEqual({ count: 0, page: [] });
      expect((await apiB.get(`/api/v1/vaults/${b.id}/status`)).body.wallets).toBe(0);
    });

    /** A second key of vault A, answered (and so cached) before the test revokes it. */
    const extraKeyInUse = async () => {
      const extra = await t.createApiKey(a.id);
      const wallets = async () => (await client(t.url, extra.apiKey).get(`/api/v1/vaults/${a.id}/wallets`)).status;
      expect(await wallets()).toBe(200);
      expect((await client(t.url, extra.apiKey).get(`/api/v1/vaults/${a.id}/status`)).body.vaultKeys).toBe(2);
      return { extra, wallets };
    };

    // A revocation through the instance drops the key from its own cache at once: on PostgreSQL it must
    // not wait for the trigger's NOTIFY, which reaches the listener only after the UPDATE has returned
    // (before the cache forgot its own writes, about one run in eight answered 200 here). Ten rounds, each
    // with a key answered (so cached) just before its revocation.
    it('refuses a revoked key from the moment of revocation', async () => {
      for (let round = 0; round < 10; round++) {
        const { extra, wallets } = await extraKeyInUse();
        await t.revokeApiKey(extra.id);
        expect(await wallets(), `round ${round}`).toBe(401);
      }
      expect((await client(t.url, a.key).get(`/api/v1/vaults/${a.id}/status`)).body.vaultKeys).toBe(1);
    });
  });
});
