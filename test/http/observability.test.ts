import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { sample } from '../support/prometheus-sample.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { MINT_ABI as MINT, localSignBody } from '../support/sign-request.js';
import { cpuBudget, signingThreadPays } from '../../adapters/system/cpu-budget.js';

describe('request ids, /metrics and /readyz', () => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  let address: string;
  beforeAll(async () => {
    s = await startTestServer();
    const vaultId = (await s.createVault({ name: 'metrics' })).id;
    api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    base = `/api/v1/vaults/${vaultId}`;
    address = (await api.post(`${base}/wallets`, { name: 'm' })).body.data.address;
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('gives every answer a request id, keeping a caller id that is a plain token and replacing any other', async () => {
    const a = await api.get(`${base}/wallets`);
    const b = await api.post(`${base}/sign`, { chain: 'nope' });
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    expect((await api.get('/healthz', { 'x-request-id': 'lb-7f3a9c21' })).headers.get('x-request-id')).toBe('lb-7f3a9c21');
    expect((await api.post(`${base}/sign`, {}, { 'x-request-id': 'lb-7f3a9c22' })).headers.get('x-request-id')).toBe('lb-7f3a9c22');
    const hostile = (await api.get('/healthz', { 'x-request-id': 'x"} injected {"a' })).headers.get('x-request-id');
    expect(hostile).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('counts requests by route pattern and status, never by raw path', async () => {
    await api.get(`${base}/wallets/${address}`);
    await api.get(`${base}/wallets/${address.toLowerCase()}`);
    await api.get(`${base}/wallets/0x${'1'.repeat(40)}`);
    await api.get('/no/such/route');
    await client(s.url).get(`${base}/wallets`);
    const r = await api.get('/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = r.body as string;
    const route = '/api/v1/vaults/:vaultId/wallets/:address';
    expect(sample(text, 'wallet_vault_http_requests_total', { method: 'GET', route, status: '200' })).toBe(2);
    expect(sample(text, 'wallet_vault_http_requests_total', { method: 'GET', route, status: '404' })).toBe(1);
    expect(sample(text, 'wallet_vault_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    // Refused before routing (no API key): the vault prefix, still no raw path.
    expect(sample(text, 'wallet_vault_http_requests_total', { route: '/api/v1/vaults/:vaultId/*', status: '401' })).toBe(1);
    expect(sample(text, 'wallet_vault_http_request_duration_seconds_count', { method: 'GET', route, status: '200' })).toBe(2);
    expect(text).not.toContain(address.toLowerCase().slice(2));
    expect(text).not.toContain(base);
  });

  it('counts signatures and times key store operations by store; exports process memory', async () => {
    const before = sample((await api.get('/metrics')).body, 'wallet_vault_signatures_total', { key_store: 'local' }) ?? 0;
    const body = { ...localSignBody(address), abi: MINT, args: ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8', '1'] };
    for (let i = 0; i < 3; i++) expect((await api.post(`${base}/sign`, body)).status).toBe(200);
    const text = (await api.get('/metrics')).body as string;
    expect(sample(text, 'wallet_vault_signatures_total', { key_store: 'local' })).toBe(before + 3);
    expect(sample(text, 'wallet_vault_http_requests_total', { method: 'POST', route: '/api/v1/vaults/:vaultId/sign', status: '200' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'wallet_vault_key_store_operation_duration_seconds_count', { key_store: 'local', operation: 'create', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'wallet_vault_key_store_operation_duration_seconds_count', { key_store: 'local', operation: 'sign', outcome: 'ok' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'wallet_vault_info', { version: 'test' })).toBe(1);
    // The CPU the process was given, as read at start, and whether the local store signs on a thread from it.
    const budget = cpuBudget();
    expect(sample(text, 'wallet_vault_cpu_cores', { source: budget.quota?.source ?? 'cpus' })).toBe(budget.cores);
    expect(sample(text, 'wallet_vault_signing_thread')).toBe(signingThreadPays(budget) ? 1 : 0);
  });

  it('counts purge runs and the wallets they delete', async () => {
    const doomed = (await api.post(`${base}/wallets`, { name: 'doomed' })).body.data.address;
    await api.delete(`${base}/wallets/${doomed}`);
    const runs = (t: string) => sample(t, 'wallet_vault_purge_runs_total', { outcome: 'ok' }) ?? 0;
    const before = (await api.get('/metrics')).body as string;
    s.clock.advance(31 * 86_400_000);
    await s.server.purgeNow();
    const after = (await api.get('/metrics')).body as string;
    expect(runs(after)).toBe(runs(before) + 1);
    expect(sample(after, 'wallet_vault_purge_wallets_deleted_total')).toBe((sample(before, 'wallet_vault_purge_wallets_deleted_total') ?? 0) + 1);
  });

  it('/healthz and /readyz answer 200 when everything answers', async () => {
    expect((await client(s.url).get('/healthz')).status).toBe(200);
    expect((await client(s.url).get('/readyz')).body).toEqual({ status: 'ready' });
  });
});
