import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMasterKeyFile } from '../../adapters/keystore/local-file/master-key.js';
import { splitMasterKey } from '../../adapters/keystore/local-file/master-key-shares.js';
import { client } from '../support/http-client.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/*
 * A sealed server (VAULT_SEAL=shamir) beyond the unseal itself: every route of the OpenAPI document
 * answers one of its documented statuses and never 500; the seal is asked before the policy gate, so
 * sealed refusals are neither `sign.denied` nor counted against a limit; audit checkpoints are skipped
 * (said once in the log), while the chain is written as ever.
 */
describe('a sealed server', () => {
  let dataDir: string;
  let s: TestServer;
  let shares: string[];
  let vaultId: string;
  let apiKey: string;
  let signer: string;
  let sweep: { vaultId: string; apiKey: string; wallet: string };
  let logged = '';
  let restore: (() => void) | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-sealed-server-'));
    const first = await startTestServer({ dataDir });
    vaultId = (await first.createVault({ name: 'limited' })).id;
    apiKey = (await first.createApiKey(vaultId)).apiKey;
    signer = (await client(first.url, apiKey).post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'signer' })).body.data.address as string;
    // One signature a day: a sealed refusal that counted would use it up.
    await first.server.vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [{ id: 'calls', effect: 'allow', kinds: ['call'], chains: ['local'] }],
      limits: [{ id: 'one', each: 'wallet', maxSigns: 1, per: '1d' }],
    });
    const other = (await first.createVault({ name: 'sweep' })).id;
    const otherKey = (await first.createApiKey(other)).apiKey;
    sweep = { vaultId: other, apiKey: otherKey, wallet: (await client(first.url, otherKey).post(`/api/v1/vaults/${other}/wallets`, { name: 'w' })).body.data.address as string };
    await first.stop({ keepData: true });
    const key = (await readMasterKeyFile(path.join(dataDir, 'master.key')))!;
    shares = await splitMasterKey(key, 3, 2);
    await rm(path.join(dataDir, 'master.key'));
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      logged += String(chunk);
      return write(chunk, ...rest);
    }) as typeof process.stdout.write;
    restore = () => (process.stdout.write = write);
    s = await startTestServer({ dataDir, env: { VAULT_SEAL: 'shamir', LOG_LEVEL: 'info', VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: '60' } });
  });

  afterAll(async () => {
    restore?.();
    await s?.stop({ keepData: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers every route of its OpenAPI document with a documented status, never 500', async () => {
    const document = (await client(s.url).get('/openapi.json')).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const params: Record<string, string> = { vaultId: sweep.vaultId, address: sweep.wallet, approvalId: 'no-such-approval', proposalId: 'no-such-proposal', keyId: 'no-such-key', submissionHash: `0x${'ab'.repeat(32)}` };
    const answered: string[] = [];
    for (const [template, operations] of Object.entries(document.paths)) {
      const url = template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? 'x');
      for (const [method, operation] of Object.entries(operations)) {
        if (!['get', 'post', 'put', 'delete'].includes(method)) continue;
        const body = url.endsWith('/sign') ? localSignBody(sweep.wallet) : {};
        const r = await fetch(`${s.url}${url}`, {
          method: method.toUpperCase(),
          headers: { authorization: `Bearer ${sweep.apiKey}`, ...(method === 'get' || method === 'delete' ? {} : { 'content-type': 'application/json' }) },
          ...(method === 'get' || method === 'delete' ? {} : { body: JSON.stringify(body) }),
        });
        await r.arrayBuffer();
        const where = `${method.toUpperCase()} ${template}: ${r.status}`;
        expect(r.status, where).not.toBe(500);
        expect(Object.keys(operation.responses), where).toContain(String(r.status));
        answered.push(where);
      }
    }
    expect(answered.length).toBeGreaterThan(40);
    // The first route of the document is Sign, answered before the sweep froze its vault: sealed, by name.
    expect(answered[0]).toBe('POST /api/v1/vaults/{vaultId}/sign: 503');
    expect((await client(s.url).get('/readyz')).status).toBe(503);
  });

  it('refuses sealed signs before the policy gate: no sign.denied, nothing counted under the limit', async () => {
    const api = client(s.url, apiKey);
    const sign = () => api.post(`/api/v1/vaults/${vaultId}/sign`, localSignBody(signer));
    const before = (await s.server.vault.listAuditRecords.execute({ limit: 1000 })).length;
    for (let i = 0; i < 3; i++) {
      const r = await sign();
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('VAULT_SEALED');
    }
    const trail = await s.server.vault.listAuditRecords.execute({ limit: 1000 });
    expect(trail.slice(before).filter((r) => r.action === 'sign.denied')).toEqual([]);
    for (const share of shares.slice(0, 2)) expect((await client(s.url).post('/api/v1/sys/unseal', { share })).status).toBe(200);
    // The day's one signature is still there, then the limit holds.
    const first = await sign();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const second = await sign();
    expect(second.status).toBe(429);
    expect(second.body.code).toBe('SIGN_LIMIT_REACHED');
  });

  it('skips audit checkpoints while sealed and after the unseal, says so once, and keeps writing the chain', async () => {
    expect(logged).toMatch(/audit checkpoints skipped: VAULT_SEAL=shamir/);
    s.clock.advance(3_600_000);
    const trail = await s.server.vault.listAuditRecords.execute({ limit: 1000 });
    expect(trail.filter((r) => r.action === 'audit.checkpoint')).toEqual([]);
    expect(trail.some((r) => r.action === 'seal.unsealed')).toBe(true);
    expect((await s.server.vault.verifyAuditChain.execute()).ok).toBe(true);
    expect((await client(s.url).get('/.well-known/wallet-vault-audit-checkpoint-keys')).status).not.toBe(500);
  });
});
