import { rm } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefusedAuthSummary } from '../../src/application/access/refused-auth-summary.js';
import { ListAuditRecords } from '../../src/application/audit/list-audit-records.use-case.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { client } from '../support/http-client.js';
import { sample } from '../support/prometheus-sample.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { SqlAuditLog } from '../../adapters/persistence/sql/sql.audit-log.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';

/** One request over a connection from `localAddress` (any 127.x address is this host on Linux). */
function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // left as text
        }
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('a flood of requests without credentials', () => {
  it('5 000 anonymous requests write no audit record each: one summary with the count, flushed at shutdown; /metrics counts them', async () => {
    // An interval longer than any run: the one record comes from the flush at shutdown.
    const s = await startTestServer({ env: { VAULT_AUTH_REFUSED_SUMMARY_SECONDS: '3600' } });
    let stopped = false;
    try {
      const vaultId = (await s.createVault({ name: 'flooded' })).id;
      const records = () => s.server.container.get(ListAuditRecords).execute({ limit: 1000 });
      const before = (await records()).length;
      const paths = [`/api/v1/vaults/${vaultId}/sign`, `/api/v1/vaults/${vaultId}/wallets`, '/api/v1/vaults/no-such-vault/status'];
      let next = 0;
      const statuses = new Map<number, number>();
      const worker = async () => {
        while (next < 5000) {
          const i = next++;
          const p = paths[i % paths.length]!;
          const res = await fetch(`${s.url}${p}`, { method: p.endsWith('/sign') ? 'POST' : 'GET', body: p.endsWith('/sign') ? '{}' : undefined });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      expect(Object.fromEntries(statuses)).toEqual({ 401: 5000 });
      expect((await records()).length).toBe(before); // not one record per request

      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      expect(sample(metrics, 'wallet_vault_auth_refused_total', { reason: 'missing_header' })).toBe(5000);

      await s.stop({ keepData: true });
      stopped = true;
      const db = openSqliteDatabase({ path: path.join(s.dataDir, 'vault.db') });
      try {
        const added = (await new SqlAuditLog(sqliteSql(db)).list({ afterSeq: 0, limit: 1000 })).slice(before);
        expect(added.map((r) => ({ action: r.action, actor: r.actor, vaultId: r.vaultId, source: r.details.source, count: r.details.count }))).toEqual([
          { action: 'auth.refused', actor: 'anonymous', vaultId: null, source: '127.0.0.1', count: 5000 },
        ]);
        expect(added[0]!.details.reasons).toBe('missing Authorization header: 5000');
        expect(added[0]!.details.vaults).toBe(vaultId); // the existing vault only, never the path's other text
      } finally {
        db.close();
      }
    } finally {
      if (!stopped) await s.stop();
      else await rm(s.dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the per-client-address limit, taken before authentication', () => {
  let s: TestServer;
  let apiKey: string;
  let base: string;
  beforeAll(async () => {
    s = await startTestServer({ env: { VAULT_ADDRESS_RATE_LIMIT_PER_MINUTE: '5' } });
    const vaultId = (await s.createVault({ name: 'limited' })).id;
    apiKey = (await s.createApiKey(vaultId)).apiKey;
    base = `/api/v1/vaults/${vaultId}`;
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('answers 429 with Retry-After once an address has spent its limit, credentials or not, and does not count it as refused', async () => {
    const from = '127.0.0.3';
    for (let i = 0; i < 5; i++) expect((await requestFrom(from, `${s.url}${base}/wallets`)).status).toBe(401);
    const anonymous = await requestFrom(from, `${s.url}${base}/wallets`);
    expect(anonymous.status).toBe(429);
    expect(Number(anonymous.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(anonymous.body).toEqual({ success: false, error: expect.stringMatching(/rate limit exceeded for this client address/), code: 'RATE_LIMITED' });
    // A valid key does not get past it either: the limit is taken before the key is even looked at.
    const sign = await requestFrom(from, `${s.url}${base}/sign`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: '{}' });
    expect(sign.status).toBe(429);
    // X-Forwarded-For from a peer that is not a trusted proxy changes nothing.
    const spoofed = await requestFrom(from, `${s.url}${base}/wallets`, { headers: { 'x-forwarded-for': '198.51.100.77' } });
    expect(spoofed.status).toBe(429);

    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(sample(metrics, 'wallet_vault_address_rate_limited_total')).toBe(3);
    expect(sample(metrics, 'wallet_vault_auth_refused_total', { reason: 'missing_header' })).toBe(5);
  });

  it('does not limit legitimate traffic from another address', async () => {
    for (let i = 0; i < 5; i++) expect((await requestFrom('127.0.0.4', `${s.url}${base}/wallets`)).status).toBe(401);
    expect((await requestFrom('127.0.0.4', `${s.url}${base}/wallets`)).status).toBe(429);
    const legit = await requestFrom('127.0.0.5', `${s.url}${base}/wallets`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(legit.status).toBe(200);
  });

  it('leaves /healthz, /readyz and /metrics outside the limit', async () => {
    for (let i = 0; i < 8; i++) expect((await requestFrom('127.0.0.6', `${s.url}/healthz`)).status).toBe(200);
  });
});

describe('behind a trusted proxy', () => {
  let s: TestServer;
  let base: string;
  beforeAll(async () => {
    // The tests' loopback peer stands for the proxy.
    s = await startTestServer({ env: { VAULT_ADDRESS_RATE_LIMIT_PER_MINUTE: '3', VAULT_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8', VAULT_AUTH_REFUSED_SUMMARY_SECONDS: '3600' } });
    base = `/api/v1/vaults/${(await s.createVault({ name: 'proxied' })).id}`;
  });
  afterAll(async () => {
    await s?.stop();
  });

  const viaProxy = (forwardedFor: string) => client(s.url).get(`${base}/wallets`, { 'x-forwarded-for': forwardedFor });

  it("honours the proxy's X-Forwarded-For: each client it names has a limit of its own", async () => {
    for (let i = 0; i < 3; i++) expect((await viaProxy('203.0.113.10')).status).toBe(401);
    expect((await viaProxy('203.0.113.10')).status).toBe(429);
    expect((await viaProxy('203.0.113.11')).status).toBe(401);
    // Through a second trusted proxy (10.1.2.3), the client is still the address before it.
    expect((await viaProxy('203.0.113.10, 10.1.2.3')).status).toBe(429);
    // What the client wrote itself, left of what the proxy appended, is not believed.
    expect((await viaProxy('203.0.113.99, 203.0.113.10')).status).toBe(429);
  });

  it('ignores X-Forwarded-For from a peer that is not trusted', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await requestFrom('127.0.0.7', `${s.url}${base}/wallets`, { headers: { 'x-forwarded-for': `203.0.113.${50 + i}` } })).status).toBe(401);
    }
    expect((await requestFrom('127.0.0.7', `${s.url}${base}/wallets`, { headers: { 'x-forwarded-for': '203.0.113.60' } })).status).toBe(429);
  });

  it('summarises refusals under the address the proxy named', async () => {
    const summary = s.server.container.get(RefusedAuthSummary);
    await summary.flush();
    expect((await viaProxy('192.0.2.44')).status).toBe(401);
    const records = () => s.server.container.get(ListAuditRecords).execute({ limit: 1000 });
    const head = (await records()).length;
    await summary.flush();
    expect((await records()).slice(head).map((r) => [r.details.source, r.details.count])).toEqual([['192.0.2.44', 1]]);
  });
});

describe('VAULT_AUTH_REFUSED_SUMMARY_SECONDS', () => {
  it('writes the summary at its interval, not only at shutdown', async () => {
    const s = await startTestServer({ env: { VAULT_AUTH_REFUSED_SUMMARY_SECONDS: '1' } });
    try {
      const vaultId = (await s.createVault({ name: 'periodic' })).id;
      const records = () => s.server.container.get(ListAuditRecords).execute({ limit: 1000 });
      const head = (await records()).length;
      for (let i = 0; i < 3; i++) expect((await client(s.url).get(`/api/v1/vaults/${vaultId}/wallets`)).status).toBe(401);
      const added = async () => (await records()).slice(head);
      // The requests may straddle an interval: then two records share the three.
      const counted = async () => (await added()).reduce((sum, r) => sum + Number(r.details.count), 0);
      await expect.poll(counted, { timeout: 20_000 }).toBe(3);
      for (const r of await added()) expect(r).toMatchObject({ action: 'auth.refused', details: { source: '127.0.0.1' } });
    } finally {
      await s.stop();
    }
  }, 30_000);
});
