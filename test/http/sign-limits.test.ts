import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import { client } from '../support/http-client.js';
import { describeEachBackend, itOn, type Target } from '../support/backends.js';

const SIG = { name: 'sig', type: 'tuple', components: ['nonce', 'r', 's'].map((n) => ({ name: n, type: 'bytes32' })).concat({ name: 'v', type: 'uint8' }) };
const MINT = { type: 'function', name: 'mint', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }, SIG] };
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const SENDER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const OTHER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describeEachBackend('sign limits per window over HTTP', (backend) => {
  let s: Target;
  let policies: ManagePolicies;
  const pg = itOn(backend, { database: 'postgres' }, 'two instances share one database on PostgreSQL only');

  beforeAll(async () => {
    s = await backend.start();
    policies = s.vault.managePolicies;
  });
  afterAll(async () => {
    await s?.close();
  });

  /** A fresh vault with a wallet, and a sign request for it on chain local. */
  const aVaultThatSigns = async (name: string) => {
    const { vaultId, apiKey, api, base } = await s.vaultWithKey(name);
    const signer: string = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address;
    const body = (contract = CONTRACT) => ({ chain: 'local', contract, sender: SENDER, uniq: `0x${'ab'.repeat(32)}`, signer, abi: MINT, args: [OTHER, '1000'] });
    return { vaultId, apiKey, api, base, signer, body };
  };

  it('a wallet over its limit is refused with 429 and Retry-After until the oldest sign leaves the window', async () => {
    const { vaultId, api, base, signer, body } = await aVaultThatSigns('limited');
    await policies.addLimit(vaultId, { each: 'wallet', maxSigns: 3, per: '1m' });
    s.clock.freeze();
    for (let i = 0; i < 3; i++) expect((await api.post(`${base}/sign`, body())).status).toBe(200);
    const refused = await api.post(`${base}/sign`, body());
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.body).toEqual({
      success: false,
      error: `limit l1: at most 3 signs per 1m for wallet ${signer} reached; retry after 60 s`,
      code: 'SIGN_LIMIT_REACHED',
    });
    const records = await s.vault.listAuditRecords.execute({ limit: 1000 });
    expect(records.filter((r) => r.vaultId === vaultId && r.action === 'sign.denied').map((r) => r.details.rule)).toEqual([refused.body.error]);
    s.clock.advance(59_999);
    expect((await api.post(`${base}/sign`, body())).headers.get('retry-after')).toBe('1');
    s.clock.advance(1);
    expect((await api.post(`${base}/sign`, body())).status).toBe(200);
  });

  it('a limit on one contract leaves others alone; a sign the policy refuses first is not counted', async () => {
    const { vaultId, api, base, body } = await aVaultThatSigns('per contract');
    await policies.addLimit(vaultId, { contract: CONTRACT, maxSigns: 1, per: '1h' });
    await policies.addRules(vaultId, { function: 'mint(address to, uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)', arg: 'amount', lte: '1000' });
    expect((await api.post(`${base}/sign`, { ...body(), args: [OTHER, '1001'] })).status).toBe(403);
    expect((await api.post(`${base}/sign`, body())).status).toBe(200);
    expect((await api.post(`${base}/sign`, body())).body.code).toBe('SIGN_LIMIT_REACHED');
    for (let i = 0; i < 3; i++) expect((await api.post(`${base}/sign`, body(OTHER))).status).toBe(200);
    await policies.removeLimits(vaultId, { contract: CONTRACT });
    expect((await api.post(`${base}/sign`, body())).status).toBe(200);
  });

  pg('two instances on one database, 50 per window on a wallet, 200 signs spread over both: exactly 50 signed', async () => {
    const { vaultId, apiKey, base, body } = await aVaultThatSigns('shared limit');
    // A window no test run outlasts: what is tested is one count across instances, not time passing.
    await policies.addLimit(vaultId, { each: 'wallet', maxSigns: 50, per: '1h' });
    const peer = await s.peer({ shareKeys: true });
    const instances = [client(s.url, apiKey), client(peer.url, apiKey)];
    // 16 in flight at a time, alternating instances: concurrent, within what each one's small test pool lets wait.
    const replies: { status: number; retryAfter: string | null; code?: string }[] = [];
    let next = 0;
    const lane = async () => {
      while (next < 200) {
        const i = next++;
        const r = await instances[i % 2]!.post(`${base}/sign`, body());
        replies.push({ status: r.status, retryAfter: r.headers.get('retry-after'), code: r.body.code });
      }
    };
    await Promise.all(Array.from({ length: 16 }, lane));
    expect(replies).toHaveLength(200);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(50);
    const refused = replies.filter((r) => r.status === 429);
    expect(refused).toHaveLength(150);
    expect(refused.every((r) => r.code === 'SIGN_LIMIT_REACHED' && Number(r.retryAfter) > 0 && Number(r.retryAfter) <= 3600)).toBe(true);
    // What was signed is what the database holds: 50 signatures of the vault, whichever instance signed them.
    const records = await s.vault.listAuditRecords.execute({ limit: 1000 });
    expect(records.filter((r) => r.vaultId === vaultId && r.action === 'signature.issued')).toHaveLength(50);
    expect(records.filter((r) => r.vaultId === vaultId && r.action === 'sign.denied')).toHaveLength(150);
  });
});
