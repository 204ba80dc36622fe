import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import { parseCidrs } from '../../src/domain/api-key-access.js';
import { cliJson } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { describeEachBackend, itOn, type Target } from '../support/backends.js';
import { sample } from '../support/prometheus-sample.js';
import { localSignBody } from '../support/sign-request.js';

/** One request over a connection from `localAddress` (any 127.x address is this host on Linux). */
function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: { code?: string; error?: string } }> {
  return new Promise((resolve, reject) => {
    const headers = init.body === undefined ? init.headers : { 'content-type': 'application/json', ...init.headers };
    const req = http.request(url, { method: init.method ?? 'GET', headers, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * Issue 26, roles and network allow lists, as the attempts to get around them: a key doing what its
 * roles do not allow, a key used from outside its networks (and a forged X-Forwarded-For without a
 * trusted proxy), on every backend.
 */
describeEachBackend('API key roles and network allow lists', (backend) => {
  let s: Target;
  let vaultId: string;
  let base: string;
  let wallet: string;
  const keyWith = async (roles?: readonly ApiKeyRole[], cidrs?: string) => {
    const { apiKey, record } = await s.vault.manageVaults.createApiKey(vaultId, {
      ...(roles ? { roles } : {}),
      ...(cidrs ? { allowCidrs: parseCidrs(cidrs) } : {}),
    });
    return { apiKey, id: record.id, api: client(s.url, apiKey) };
  };
  const refusedRole = (role: string) => ({ success: false, error: expect.stringContaining(`lacks the role "${role}"`), code: 'ROLE_REQUIRED' });

  beforeAll(async () => {
    s = await backend.start();
    vaultId = (await s.createVault({ name: 'roles' })).id;
    base = `/api/v1/vaults/${vaultId}`;
    const admin = await keyWith(['admin']);
    wallet = (await admin.api.post(`${base}/wallets`, { name: 'treasury' })).body.data.address;
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a reader key reads, and may not sign, record a submission, create, rename, expire or unexpire a wallet', async () => {
    const { api } = await keyWith(['reader']);
    expect((await api.get(`${base}/wallets`)).status).toBe(200);
    expect((await api.get(`${base}/wallets/${wallet}`)).status).toBe(200);
    expect((await api.get(`${base}/status`)).status).toBe(200);
    const tries = [
      ['signer', await api.post(`${base}/sign`, localSignBody(wallet))],
      ['signer', await api.post(`${base}/submissions`, { submissionHash: `0x${'11'.repeat(32)}`, transactionHash: `0x${'22'.repeat(32)}` })],
      ['admin', await api.post(`${base}/wallets`, { name: 'mine now' })],
      ['admin', await api.put(`${base}/wallets/${wallet}`, { name: 'renamed' })],
      ['admin', await api.delete(`${base}/wallets/${wallet}`)],
      ['admin', await api.post(`${base}/wallets/${wallet}`)],
    ] as const;
    for (const [role, reply] of tries) {
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual(refusedRole(role));
    }
    // Nothing happened: one wallet, its name, no expiry.
    const listed = (await api.get(`${base}/wallets`)).body.data;
    expect(listed.count).toBe(1);
    expect(listed.page[0]).toMatchObject({ name: 'treasury' });
    expect(listed.page[0].expires).toBeUndefined();
  });

  it('a signer key signs and records, and may not rename, create or read wallets', async () => {
    const { api } = await keyWith(['signer']);
    const signed = await api.post(`${base}/sign`, localSignBody(wallet));
    expect(signed.status).toBe(200);
    const submitted = await api.post(`${base}/submissions`, { submissionHash: signed.body.data.submissionHash, transactionHash: `0x${'33'.repeat(32)}` });
    expect(submitted.status).toBe(200);
    expect((await api.put(`${base}/wallets/${wallet}`, { name: 'renamed' })).body).toEqual(refusedRole('admin'));
    expect((await api.post(`${base}/wallets`, { name: 'x' })).body).toEqual(refusedRole('admin'));
    expect((await api.get(`${base}/wallets`)).body).toEqual(refusedRole('reader'));
    expect((await api.get(`${base}/submissions/${signed.body.data.submissionHash}`)).body).toEqual(refusedRole('reader'));
  });

  it('an approver key (reserved for approvals) may do nothing else; a key made without roles may do everything but approve', async () => {
    const approver = await keyWith(['approver']);
    expect((await approver.api.get(`${base}/status`)).body).toEqual(refusedRole('reader'));
    const plain = await keyWith();
    expect((await plain.api.get(`${base}/status`)).status).toBe(200);
    expect((await plain.api.post(`${base}/sign`, localSignBody(wallet))).status).toBe(200);
    // Checked before the approval is looked up: the id need not exist.
    expect((await plain.api.post(`${base}/approvals/01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62/approve`, {})).body).toEqual(refusedRole('approver'));
  });

  it('each role refusal is an audit record naming the key, the role and the route', async () => {
    const { api, id } = await keyWith(['reader']);
    expect((await api.delete(`${base}/wallets/${wallet}`)).status).toBe(403);
    const records = await s.vault.listAuditRecords.execute({ vaultId, limit: 1000 });
    const refusal = records.filter((r) => r.action === 'auth.refused' && r.actor === `api-key:${id}`);
    expect(refusal).toEqual([
      expect.objectContaining({
        vaultId,
        subject: id,
        details: { reason: 'missing role admin', operation: `DELETE /api/v1/vaults/:vaultId/wallets/:address`, roles: 'reader' },
      }),
    ]);
  });

  it('a key bound to networks is refused from any other address, also when it forges X-Forwarded-For (no trusted proxy)', async () => {
    const { apiKey } = await keyWith(undefined, '127.0.0.2/32,10.0.0.0/8');
    const bearer = { authorization: `Bearer ${apiKey}` };
    const status = `${s.url}${base}/status`;
    expect((await requestFrom('127.0.0.2', status, { headers: bearer })).status).toBe(200);
    const foreign = await requestFrom('127.0.0.3', status, { headers: bearer });
    expect(foreign).toEqual({ status: 403, body: { success: false, error: 'this API key may not be used from 127.0.0.3', code: 'FORBIDDEN_NETWORK' } });
    // Anyone can write X-Forwarded-For: without a trusted proxy it is not believed.
    for (const forged of ['127.0.0.2', '10.1.2.3', '127.0.0.3, 127.0.0.2']) {
      expect((await requestFrom('127.0.0.3', status, { headers: { ...bearer, 'x-forwarded-for': forged } })).status, forged).toBe(403);
    }
    // Sign too: refused before its body is read.
    const sign = await requestFrom('127.0.0.4', `${s.url}${base}/sign`, { method: 'POST', headers: bearer, body: JSON.stringify(localSignBody(wallet)) });
    expect(sign.body.code).toBe('FORBIDDEN_NETWORK');
  });

  itOn(backend, { shell: 'standalone' }, 'the standalone server serves /metrics')('a network refusal is counted in /metrics under its own reason', async () => {
    const { apiKey } = await keyWith(undefined, '192.0.2.0/24');
    const counted = async () => sample(await (await fetch(`${s.url}/metrics`)).text(), 'wallet_vault_auth_refused_total', { reason: 'foreign_network' }) ?? 0;
    const before = await counted();
    for (let i = 0; i < 3; i++) await requestFrom('127.0.0.6', `${s.url}${base}/status`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect((await counted()) - before).toBe(3);
  });

  it('a network refusal is counted and summarised like a refused authentication (reason, source, key)', async () => {
    const { apiKey, id } = await keyWith(undefined, '192.0.2.7/32');
    for (let i = 0; i < 2; i++) expect((await requestFrom('127.0.0.5', `${s.url}${base}/status`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(403);
    await s.stop(); // flushes the summary (the last test of the file: the server stays stopped)
    const env = { VAULT_DATA_DIR: s.dataDir, ...(s.database ? { VAULT_DATABASE_URL: s.database.url } : {}) };
    const records = await cliJson<{ action: string; actor: string; vault: string | null; details: Record<string, unknown> }[]>(['audit', 'list', '--limit', '1000'], env);
    const summary = records.find((r) => r.action === 'auth.refused' && r.details.source === '127.0.0.5');
    expect(summary).toMatchObject({ actor: `api-key:${id}`, vault: vaultId, details: { count: 2, reasons: 'API key used from outside its networks: 2', apiKeys: id } });
  });
});

/** Behind a trusted proxy the key's networks are checked against the client X-Forwarded-For names. */
describeEachBackend('API key network allow lists behind a trusted proxy', (backend) => {
  let s: Target;
  let base: string;
  let keys: { v4: string; v6: string };

  beforeAll(async () => {
    s = await backend.start({ trustedProxies: ['127.0.0.2'] });
    const vaultId = (await s.createVault({ name: 'proxied' })).id;
    base = `${s.url}/api/v1/vaults/${vaultId}/status`;
    const create = async (cidrs: string) => (await s.vault.manageVaults.createApiKey(vaultId, { allowCidrs: parseCidrs(cidrs) })).apiKey;
    keys = { v4: await create('10.0.0.0/8'), v6: await create('2001:db8::/32') };
  });
  afterAll(async () => {
    await s?.close();
  });

  const through = (from: string, key: string, forwarded: string) =>
    requestFrom(from, base, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': forwarded } }).then((r) => r.status);

  it('believes the proxy for IPv4, IPv4-mapped IPv6 and IPv6 clients, inside and outside the ranges', async () => {
    expect(await through('127.0.0.2', keys.v4, '10.1.2.3')).toBe(200);
    expect(await through('127.0.0.2', keys.v4, '::ffff:10.1.2.3')).toBe(200);
    expect(await through('127.0.0.2', keys.v4, '11.1.2.3')).toBe(403);
    expect(await through('127.0.0.2', keys.v4, '::ffff:11.1.2.3')).toBe(403);
    expect(await through('127.0.0.2', keys.v6, '2001:db8::5')).toBe(200);
    expect(await through('127.0.0.2', keys.v6, '2001:db9::5')).toBe(403);
    expect(await through('127.0.0.2', keys.v6, '10.1.2.3')).toBe(403);
  });

  it('a client that prepends an allowed address to its own is still itself; a peer that is no proxy is not believed', async () => {
    // The proxy appended the real client (198.51.100.1) after what the client sent.
    expect(await through('127.0.0.2', keys.v4, '10.1.2.3, 198.51.100.1')).toBe(403);
    expect(await through('127.0.0.3', keys.v4, '10.1.2.3')).toBe(403);
  });
});
