import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthSignature } from '../../src/domain/auth-signature.js';
import { client } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE, terminateConnections, type TestDatabase } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { describeEachBackend, type Target } from '../support/backends.js';

const SECRET = 'test-secret-that-is-definitely-longer-than-32';

// What only PostgreSQL has: several instances on one database. On both shells, as every HTTP suite runs.
describeEachBackend(
  'two instances on one PostgreSQL database',
  (backend) => {
    let a: Target;
    let b: Target;
    beforeAll(async () => {
      a = await backend.start({ authSecret: SECRET });
      b = await a.peer();
    });
    afterAll(async () => {
      await a?.close();
    });

    it('what one writes the other reads, and a replayed auth signature is refused on the other', async () => {
      const vaultId = (await a.createVault({ name: 'shared' })).id;
      const { apiKey } = await b.createApiKey(vaultId);
      const apiA = client(a.url, apiKey);
      const apiB = client(b.url, apiKey);
      const created = await apiA.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'on a' });
      expect(created.status).toBe(200);
      const read = await apiB.get(`/api/v1/vaults/${vaultId}/wallets/${created.body.data.address}`);
      expect(read.body.data).toEqual(created.body.data);

      const raw = JSON.stringify(localSignBody(created.body.data.address));
      const header = createAuthSignature(Buffer.from(raw), SECRET, new Date());
      const send = (api: typeof apiA) =>
        api.raw('POST', `/api/v1/vaults/${vaultId}/sign`, { raw, headers: { 'x-vault-auth-signature': header } });
      expect((await send(apiA)).status).toBe(200);
      const replay = await send(apiB);
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatch(/already used/);
    });
  },
  { database: 'postgres' },
);

// The standalone server's own settings (VAULT_DATABASE_SCHEMA, its timeouts and pool) and the faults of
// a database behind a proxy the test cuts.
describe.skipIf(!POSTGRES_AVAILABLE)('the standalone server on PostgreSQL', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  const servers: TestServer[] = [];
  // A password in the URL (trust auth ignores it): it must never reach a response.
  const urlThrough = (port: number) => db.urlVia('127.0.0.1', port).replace('postgres@', 'postgres:hunter2-secret@');

  beforeAll(async () => {
    db = await createTestDatabase();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(db.url).port || 5432) });
  });
  afterAll(async () => {
    for (const s of servers) await s.stop().catch(() => undefined);
    await proxy?.close();
    await db?.drop();
  });

  const start = async (env: Record<string, string> = {}) => {
    const s = await startTestServer({
      env: {
        VAULT_DATABASE_URL: urlThrough(proxy.port),
        VAULT_DATABASE_POOL_SIZE: '4',
        VAULT_DATABASE_CONNECT_TIMEOUT_MS: '1000',
        VAULT_DATABASE_QUERY_TIMEOUT_MS: '1500',
        ...env,
      },
    });
    servers.push(s);
    return s;
  };

  it('two instances in VAULT_DATABASE_SCHEMA: they share that schema only, and a key revoked through one is refused by the other', async () => {
    const [a, b] = [await start({ VAULT_DATABASE_SCHEMA: 'tenant_b' }), await start({ VAULT_DATABASE_SCHEMA: 'tenant_b' })];
    const vaultId = (await a.createVault({ name: 'in a schema' })).id;
    const { apiKey, id } = await b.createApiKey(vaultId);
    const apiA = client(a.url, apiKey);
    const created = await apiA.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'on a' });
    expect(created.status).toBe(200);
    expect((await client(b.url, apiKey).get(`/api/v1/vaults/${vaultId}/wallets/${created.body.data.address}`)).body.data).toEqual(created.body.data);
    // The public schema's instances know nothing of it.
    expect((await client((await start()).url, apiKey).get(`/api/v1/vaults/${vaultId}/wallets`)).status).toBe(401);
    await b.revokeApiKey(id);
    // A's key cache hears the revocation from the trigger in tenant_b (or reads again when its lifetime ends).
    await expect.poll(async () => (await apiA.get(`/api/v1/vaults/${vaultId}/wallets`)).status).toBe(401);
  });

  it('database lost during requests: 503 naming the database to a key holder (never the password), only "database unavailable" to others, and recovery when it returns', async () => {
    const s = await start();
    const vaultId = (await s.createVault({ name: 'faults' })).id;
    const api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    const wallet = (await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'w' })).body.data;
    const get = () => api.get(`/api/v1/vaults/${vaultId}/wallets/${wallet.address}`);
    expect((await get()).status).toBe(200);

    await proxy.cut();
    // The key's holder is told which database failed once its key is known (from the API key cache),
    // or only "database unavailable" when the key itself had to be read; never the password.
    const named = `PostgreSQL database "${db.name}" on 127.0.0.1:${proxy.port}`;
    for (const reply of [await get(), await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'x' })]) {
      expect(reply.status).toBe(503);
      expect(reply.headers.get('retry-after')).toBe('1');
      expect([named, 'database unavailable'].some((m) => reply.body.error.startsWith(m)), reply.body.error).toBe(true);
      expect(JSON.stringify(reply.body)).not.toContain('hunter2');
    }
    // Anyone else, not yet authenticated, and /readyz: which dependency, never where it is.
    const stranger = client(s.url, `wv_ffffffffffffffff_${'A'.repeat(43)}`);
    for (const reply of [await stranger.get(`/api/v1/vaults/${vaultId}/wallets`), await client(s.url).get('/readyz')]) {
      expect(reply.status).toBe(503);
      expect(reply.headers.get('retry-after')).toBe('1');
      expect(reply.body).toEqual({ success: false, error: 'database unavailable', code: 'DATABASE_UNAVAILABLE' });
    }

    await proxy.restore();
    await expect.poll(async () => (await get()).status, { timeout: 10_000 }).toBe(200);
    expect((await client(s.url).get('/readyz')).status).toBe(200);
  });

  it('a database that stops answering (a network black hole) costs a 503 after the timeout, never a hung request', async () => {
    const s = await start();
    const vaultId = (await s.createVault({ name: 'blackhole' })).id;
    const api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    const list = () => api.get(`/api/v1/vaults/${vaultId}/wallets`);
    expect((await list()).status).toBe(200);
    proxy.blackhole();
    const replies = await Promise.all([list(), list(), api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'x' })]);
    for (const r of replies) {
      expect(r.status).toBe(503);
      expect(r.body.error).toMatch(/unavailable/);
    }
    await proxy.restore();
    await expect.poll(async () => (await list()).status, { timeout: 10_000 }).toBe(200);
  });

  it('connections closed by the server (failover, pg_terminate_backend) are replaced without a restart', async () => {
    const s = await start();
    const vaultId = (await s.createVault({ name: 'terminated' })).id;
    const api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    await Promise.all(Array.from({ length: 4 }, () => api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'warm the pool' })));
    expect(await terminateConnections(db.name)).toBeGreaterThan(0);
    const after = await Promise.all(Array.from({ length: 8 }, () => api.get(`/api/v1/vaults/${vaultId}/wallets`)));
    // Idle connections that died are dropped before use; at worst a request already on one gets a 503.
    expect(after.every((r) => r.status === 200 || r.status === 503)).toBe(true);
    await expect.poll(async () => (await api.get(`/api/v1/vaults/${vaultId}/wallets`)).body.data?.count, { timeout: 10_000 }).toBe(4);
  });
});
