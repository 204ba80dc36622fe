import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthSignature } from '../../src/domain/auth-signature.js';
import { client, type Reply } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const SECRET = 'test-secret-that-is-definitely-longer-than-32';
const MAX_WAITING = 2;

/**
 * A pool exhausted under load: one connection, held by a sign stuck behind a lock another session holds.
 * The requests that arrive meanwhile queue up to VAULT_DATABASE_MAX_WAITING; every further one is refused
 * at once with 503 and Retry-After instead of joining an unbounded queue (pg-pool's own has no bound).
 */
describe.skipIf(!POSTGRES_AVAILABLE)('a PostgreSQL pool exhausted under load', () => {
  let db: TestDatabase;
  let server: TestServer;
  let locker: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
  });
  afterAll(async () => {
    await locker?.end().catch(() => undefined); // rolls back: a sign still held goes on
    await server?.stop().catch(() => undefined);
    await db?.drop();
  });

  it('queues at most VAULT_DATABASE_MAX_WAITING requests behind a busy pool, refuses the rest with 503 and Retry-After, and serves the queued ones', async () => {
    server = await startTestServer({
      env: {
        VAULT_DATABASE_URL: db.url,
        // A pool of one also holds the purge job, whose lock once took the pool's only connection and
        // starved the job's own statements until the connect timeout (now on a connection of its own).
        VAULT_DATABASE_POOL_SIZE: '1',
        VAULT_DATABASE_MAX_WAITING: String(MAX_WAITING),
        // Long enough that nothing here ends by a timeout: the queue's bound alone decides.
        VAULT_DATABASE_CONNECT_TIMEOUT_MS: '120000',
        VAULT_DATABASE_QUERY_TIMEOUT_MS: '120000',
        VAULT_AUTH_SECRET_KEY: SECRET,
        VAULT_PURGE_INTERVAL_SECONDS: '86400',
      },
    });
    const vaultId = (await server.createVault({ name: 'busy' })).id;
    const api = client(server.url, (await server.createApiKey(vaultId)).apiKey);
    const wallet = (await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'w' })).body.data;
    const raw = JSON.stringify(localSignBody(wallet.address));
    // Every request has a client-side bound (within the test's): none may hang.
    const sign = (): Promise<Reply> =>
      api.raw('POST', `/api/v1/vaults/${vaultId}/sign`, {
        raw,
        headers: { 'x-vault-auth-signature': createAuthSignature(Buffer.from(raw), SECRET, new Date()) },
        signal: AbortSignal.timeout(25_000),
      });
    expect((await sign()).status).toBe(200); // the API key and wallet are cached, the pool's connection open

    // Another session locks the nonce table: the next sign holds the pool's only connection, waiting on it.
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE auth_nonces IN EXCLUSIVE MODE');
    const holder = sign();
    await expect
      .poll(async () => (await locker.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'wallet-vault' AND wait_event_type = 'Lock'")).rows[0].n)
      .toBe(1);

    const more = 6;
    const settled: Reply[] = [];
    const late = Array.from({ length: more }, () => sign().then((r) => (settled.push(r), r)));
    // The ones past the bound are answered while the connection is still held: refused at once, not queued.
    await expect.poll(() => settled.length).toBe(more - MAX_WAITING);
    for (const refused of settled) {
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body.code).toBe('DATABASE_UNAVAILABLE');
      expect(refused.body.error).toMatch(/busy: all 1 connections in use and 2 requests waiting/);
    }

    await locker.query('COMMIT');
    const replies = [await holder, ...(await Promise.all(late))];
    expect(replies.map((r) => r.status).sort()).toEqual([...Array(1 + MAX_WAITING).fill(200), ...Array(more - MAX_WAITING).fill(503)]);
    expect((await sign()).status).toBe(200);
  });
});
