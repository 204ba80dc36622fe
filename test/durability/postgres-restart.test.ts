import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, spawnServer, type ChildServer, migrateStore } from '../support/cli.js';
import { PRIVATE_POSTGRES_AVAILABLE, startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { localSignBody } from '../support/sign-request.js';

/** A client-side bound on every request: far above the server's own bounds (connect 2 s + statement 3 s). */
const CLIENT_TIMEOUT_MS = 20_000;

interface Outcome {
  readonly instance: number;
  readonly startedAt: number;
  readonly status: number | 'timeout' | 'error';
  readonly retryAfter?: string | null;
  readonly submissionHash?: string;
  readonly detail?: string;
}

/**
 * Two compiled servers on one PostgreSQL cluster of the test's own, under a steady (small) sign load,
 * while the database restarts (`pg_ctl restart -m fast`, `-m immediate`), goes away for a while
 * (`pg_ctl stop -m immediate` … `start`), and loses every backend (`pg_terminate_backend`). Neither server
 * is restarted. Every sign answered 200 must have its signature record and its audit record afterwards,
 * the audit chain must verify, and during the outages answers are 503 with Retry-After, never 500, never
 * a request left hanging.
 */
describe.skipIf(!PRIVATE_POSTGRES_AVAILABLE)('PostgreSQL restart and failover under load', () => {
  let cluster: PrivatePostgres;
  let sql: pg.Client;
  let dir: string;
  const servers: ChildServer[] = [];

  beforeAll(async () => {
    cluster = await startPrivatePostgres();
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE vault');
    await admin.end();
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-pg-restart-'));
  });
  afterAll(async () => {
    for (const s of servers) await s.kill('SIGTERM').catch(() => undefined);
    await sql?.end().catch(() => undefined);
    await cluster?.remove();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('every 200 is durable, outages answer 503 with Retry-After (never 500 or a hang), /readyz follows the database, both instances serve again without a restart', async () => {
    const env = {
      // One key directory and master key for both (the local key store), one database.
      VAULT_DATA_DIR: dir,
      VAULT_MASTER_KEY: 'cd'.repeat(32),
      VAULT_DATABASE_URL: cluster.url('vault'),
      VAULT_DATABASE_POOL_SIZE: '4',
      VAULT_DATABASE_CONNECT_TIMEOUT_MS: '2000',
      VAULT_DATABASE_QUERY_TIMEOUT_MS: '3000',
      LOG_LEVEL: 'error',
    };
    await migrateStore(env);
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'restart'], env);
    const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
    servers.push(await spawnServer(env), await spawnServer(env));
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const base = `/api/v1/vaults/${vault.id}`;
    const created = await fetch(`${servers[0]!.url}${base}/wallets`, { method: 'POST', headers, body: JSON.stringify({ name: 'signer' }) });
    expect(created.status).toBe(200);
    const signBody = JSON.stringify(localSignBody(((await created.json()) as { data: { address: string } }).data.address));

    const outcomes: Outcome[] = [];
    const sign = async (instance: number): Promise<Outcome> => {
      const startedAt = Date.now();
      try {
        const res = await fetch(`${servers[instance]!.url}${base}/sign`, { method: 'POST', headers, body: signBody, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
        const body = (await res.json()) as { data?: { submissionHash?: string }; error?: string };
        return { instance, startedAt, status: res.status, retryAfter: res.headers.get('retry-after'), submissionHash: body.data?.submissionHash, detail: body.error };
      } catch (error) {
        const timedOut = (error as Error).name === 'TimeoutError';
        return { instance, startedAt, status: timedOut ? 'timeout' : 'error', detail: String(error) };
      }
    };
    // Two workers per instance, each one request at a time with a short pause: a small steady load.
    let running = true;
    const workers = [0, 0, 1, 1].map(async (instance) => {
      while (running) {
        outcomes.push(await sign(instance));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    const readyz = async (instance: number) => {
      const res = await fetch(`${servers[instance]!.url}/readyz`, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      return { status: res.status, retryAfter: res.headers.get('retry-after') };
    };
    /** Both instances answer signs 200 again (a sign started after `since`) and are ready. */
    const bothServeAgain = async (since: number) => {
      for (const instance of [0, 1]) {
        await expect.poll(() => outcomes.some((o) => o.instance === instance && o.startedAt > since && o.status === 200), { timeout: 60_000 }).toBe(true);
        await expect.poll(async () => (await readyz(instance)).status, { timeout: 60_000 }).toBe(200);
      }
    };
    const servedSince = (since: number) => [0, 1].every((i) => outcomes.some((o) => o.instance === i && o.startedAt > since && o.status === 200));

    await expect.poll(() => servedSince(0), { timeout: 60_000 }).toBe(true);

    for (const mode of ['fast', 'immediate'] as const) {
      await cluster.restart(mode);
      await bothServeAgain(Date.now());
    }

    // A longer outage, to see what clients and /readyz see while the database is away.
    await cluster.stop('immediate');
    const down = Date.now();
    for (const instance of [0, 1]) {
      await expect.poll(async () => (await readyz(instance)).status, { timeout: 60_000 }).toBe(503);
      expect((await readyz(instance)).retryAfter).toBe('1');
      await expect.poll(() => outcomes.some((o) => o.instance === instance && o.startedAt > down && o.status === 503), { timeout: 60_000 }).toBe(true);
    }
    await cluster.start();
    await bothServeAgain(Date.now());

    // Failover as the pooler or an operator does it: every backend ended, the server stays up.
    expect(await cluster.terminateBackends()).toBeGreaterThan(0);
    await bothServeAgain(Date.now());

    running = false;
    await Promise.all(workers);

    // Never a 500, a hang or a refused connection: 200, or 503 with Retry-After.
    const unexpected = outcomes.filter((o) => o.status !== 200 && !(o.status === 503 && o.retryAfter === '1'));
    expect(unexpected, JSON.stringify(unexpected.slice(0, 5))).toEqual([]);
    const signed = outcomes.filter((o) => o.status === 200).map((o) => o.submissionHash!);
    expect(signed.length).toBeGreaterThan(0);
    expect(outcomes.some((o) => o.status === 503)).toBe(true);

    // Every 200 is durable: its signature record and its signature.issued audit record.
    sql = new pg.Client({ connectionString: cluster.url('vault') });
    await sql.connect();
    const { rows: recorded } = await sql.query<{ h: string }>('SELECT submission_hash AS h FROM signatures WHERE submission_hash = ANY($1)', [signed]);
    expect(new Set(recorded.map((r) => r.h))).toEqual(new Set(signed));
    const { rows: audited } = await sql.query<{ h: string }>("SELECT subject AS h FROM audit_log WHERE action = 'signature.issued' AND subject = ANY($1)", [signed]);
    expect(new Set(audited.map((r) => r.h))).toEqual(new Set(signed));
    const verified = await cliJson<{ ok: boolean; records: number }>(['audit', 'verify'], env);
    expect(verified.ok).toBe(true);
    expect(verified.records).toBeGreaterThanOrEqual(signed.length);
  }, 180_000);
});
