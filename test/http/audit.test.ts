import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefusedAuthSummary } from '../../src/application/access/refused-auth-summary.js';
import { createAuthSignature } from '../../src/domain/auth-signature.js';
import type { AuditRecord } from '../../src/ports/audit-log.port.js';
import { client } from '../support/http-client.js';
import { localSignBody, MINT_TO } from '../support/sign-request.js';
import { describeEachBackend, type Target } from '../support/backends.js';

const SECRET = 'audit-test-secret-that-is-longer-than-32-characters';

describeEachBackend('the audit trail over HTTP', (backend) => {
  let s: Target;
  let api: ReturnType<typeof client>;
  let apiKey: string;
  let keyId: string;
  let base: string;
  let vaultId: string;

  const records = () => s.vault.listAuditRecords.execute({ limit: 1000 });
  const after = async (seq: number) => (await records()).filter((r) => r.seq > seq);
  const headSeq = async () => (await records()).at(-1)?.seq ?? 0;
  const view = (r: AuditRecord) => ({ action: r.action, actor: r.actor, vaultId: r.vaultId, subject: r.subject, details: r.details });
  const signed = (payload: object) => {
    const raw = Buffer.from(JSON.stringify(payload));
    return api.raw('POST', `${base}/sign`, { raw: raw.toString(), headers: { 'x-vault-auth-signature': createAuthSignature(raw, SECRET, s.clock.now()) } });
  };

  beforeAll(async () => {
    // Refused API keys are summarised when the test flushes, not by the periodic flush.
    s = await backend.start({ authSecret: SECRET, authRefusedSummaryMs: 3_600_000 });
    ({ vaultId, apiKey, keyId, api, base } = await s.vaultWithKey('audited'));
  });
  afterAll(async () => {
    await s?.close();
  });

  it('records the wallet lifecycle against the API key id, changes only', async () => {
    const start = await headSeq();
    const w = (await api.post(`${base}/wallets`, { name: 'one' })).body.data;
    await api.put(`${base}/wallets/${w.address}`, { name: 'two' });
    await api.put(`${base}/wallets/${w.address}`, { name: 'two' });
    const expired = (await api.delete(`${base}/wallets/${w.address.toLowerCase()}`)).body.data;
    await api.delete(`${base}/wallets/${w.address}`);
    await api.post(`${base}/wallets/${w.address}`);
    await api.post(`${base}/wallets/${w.address}`);
    const on = { actor: `api-key:${keyId}`, vaultId, subject: w.address };
    expect((await after(start)).map(view)).toEqual([
      { action: 'wallet.created', ...on, details: { walletId: w.id, name: 'one', keyStore: 'local' } },
      { action: 'wallet.renamed', ...on, details: { walletId: w.id, from: 'one', to: 'two' } },
      { action: 'wallet.expired', ...on, details: { walletId: w.id, expires: expired.expires } },
      { action: 'wallet.unexpired', ...on, details: { walletId: w.id, cancelledExpiry: expired.expires } },
    ]);
  });

  it('records a signature issued (on the standalone server, by its fast path), and refusals of the auth signature', async () => {
    const signer = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address;
    const start = await headSeq();
    const payload = localSignBody(signer, { args: [MINT_TO, '5'] });
    const ok = await signed(payload);
    expect(ok.status).toBe(200);
    const missing = await api.post(`${base}/sign`, payload);
    expect(missing.status).toBe(401);
    const recorded = (await after(start)).map(view);
    expect(recorded).toEqual([
      {
        action: 'signature.issued',
        actor: `api-key:${keyId}`,
        vaultId,
        subject: ok.body.data.submissionHash,
        details: {
          wallet: signer,
          chain: 'local',
          contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
          uniq: payload.uniq,
          selector: expect.stringMatching(/^0x[0-9a-f]{8}$/),
          sender: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        },
      },
      { action: 'auth.refused', actor: `api-key:${keyId}`, vaultId, subject: null, details: { reason: 'X-Vault-Auth-Signature header is required' } },
    ]);
  });

  it('summarises refused API keys on every route per client address, by id or as anonymous, never the key', async () => {
    const start = await headSeq();
    const wrong = `${apiKey.slice(0, 20)}${'B'.repeat(43)}`;
    expect((await client(s.url).get(`${base}/wallets`)).status).toBe(401);
    expect((await client(s.url, wrong).get(`${base}/status`)).status).toBe(401);
    expect((await client(s.url, wrong).post(`${base}/sign`, {})).status).toBe(401);
    expect((await client(s.url, apiKey).get('/api/v1/vaults/elsewhere/wallets')).status).toBe(401);
    expect(await after(start)).toEqual([]); // a refusal writes nothing of its own
    await s.vault.container.get(RefusedAuthSummary).flush();
    expect((await after(start)).map(view)).toEqual([
      {
        action: 'auth.refused',
        actor: 'anonymous',
        vaultId: null,
        subject: null,
        details: {
          source: '127.0.0.1',
          count: 4,
          since: expect.any(String),
          reasons: 'missing Authorization header: 1; wrong secret: 2; malformed vault id: 1', // 'elsewhere' cannot be a vault id
          apiKeys: keyId,
          vaults: vaultId,
        },
      },
    ]);
    const text = JSON.stringify(await records());
    expect(text).not.toContain(apiKey.slice(20));
    expect(text).not.toContain('B'.repeat(43));
    expect(text).not.toContain('elsewhere');
  });

  it('records the purge deleting an expired wallet as the system', async () => {
    const w = (await api.post(`${base}/wallets`, { name: 'doomed' })).body.data;
    await api.delete(`${base}/wallets/${w.address}`);
    const start = await headSeq();
    s.clock.advance(30 * 24 * 60 * 60 * 1000);
    await s.purgeNow();
    expect((await after(start)).map(view)).toContainEqual({
      action: 'wallet.deleted',
      actor: 'system',
      vaultId,
      subject: w.address,
      details: { walletId: w.id, keyStore: 'local', expired: expect.any(String) },
    });
  });

  it('leaves a chain that verifies', async () => {
    const verdict = await s.vault.verifyAuditChain.execute();
    expect(verdict).toMatchObject({ ok: true, records: await headSeq() });
  });
});
