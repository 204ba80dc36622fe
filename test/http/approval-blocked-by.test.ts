import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import { client } from '../support/http-client.js';
import { describeEachBackend, type Target } from '../support/backends.js';
import { sqlSessionOn } from '../support/sql-session.js';

const ETHER = 10n ** 18n;
const DAY = 86_400_000;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

/** A transaction of `value` wei on chain 1 to RECIPIENT; fees 0, so the wei moved is the value alone. */
const payment = (value: bigint, nonce: number) => ({ type: 'eip1559', chainId: 1, nonce, to: RECIPIENT, value: value.toString(), gas: 21000, maxFeePerGas: '0', maxPriorityFeePerGas: '0' });
const held = (required: number) => [
  { id: 'pay', effect: { hold: { required, expiresIn: '72h' } }, kinds: ['transaction'], chains: ['1'], contracts: [RECIPIENT], selectors: ['0x'] },
];

/*
 * A request with its quorum whose release is refused for a reason that leaves it pending says why where its
 * status is shown (Approval.blockedBy): recorded with the failed release, cleared by the one that succeeds.
 */
describeEachBackend('why an approved request is not released, over HTTP', (backend) => {
  let s: Target;

  beforeAll(async () => {
    s = await backend.start();
  });
  afterAll(async () => {
    await s?.close();
  });

  const aVaultWith = async (name: string, document: unknown) => {
    const v = await s.vaultWithKey(name);
    const keyWith = async (roles: ApiKeyRole[]) => {
      const { apiKey, record } = await s.vault.manageVaults.createApiKey(v.vaultId, { roles });
      return { api: client(s.url, apiKey), id: record.id };
    };
    const wallet: string = (await v.api.post(`${v.base}/wallets`, { name: 'payer' })).body.data.address;
    await s.vault.managePolicies.apply(v.vaultId, document);
    const approvers = [await keyWith(['approver']), await keyWith(['approver'])];
    const hold = async (value: bigint, nonce: number): Promise<string> => {
      const r = await v.api.post(`${v.base}/wallets/${wallet}/sign-transaction`, payment(value, nonce));
      expect(r.status).toBe(202);
      return r.body.data.approval.id;
    };
    const approve = (i: number, id: string) => approvers[i]!.api.post(`${v.base}/approvals/${id}/approve`);
    const read = async (id: string) => (await approvers[0]!.api.get(`${v.base}/approvals/${id}`)).body.data;
    return { ...v, wallet, approvers, hold, approve, read };
  };

  it('a 2-of-2 request whose release a daily limit refuses reads pending with blockedBy limit; released after the window, blockedBy null', async () => {
    const v = await aVaultWith('blocked by limit', {
      version: 2,
      rules: held(2),
      limits: [{ id: 'daily', kinds: ['transaction'], each: 'wallet', maxValue: ETHER.toString(), per: '1d' }],
    });
    s.clock.freeze();
    const first = await v.hold((6n * ETHER) / 10n, 0);
    const second = await v.hold((5n * ETHER) / 10n, 1);
    expect((await v.read(second)).blockedBy).toBeNull();
    for (const i of [0, 1]) expect((await v.approve(i, first)).status).toBe(200);
    expect((await v.read(first)).status).toBe('approved');
    // The day holds 0.6 ETH: the second's 0.5 ETH is over the limit at its release.
    expect((await v.approve(0, second)).status).toBe(200);
    const refused = await v.approve(1, second);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('SIGN_LIMIT_REACHED');
    const blocked = await v.read(second);
    expect(blocked).toMatchObject({ status: 'pending', approvalCount: 2, required: 2 });
    expect(blocked.blockedBy).toEqual({ reason: 'limit', code: 'SIGN_LIMIT_REACHED', message: refused.body.error, at: s.clock.now().toISOString() });
    const listed = (await v.approvers[0]!.api.get(`${v.base}/approvals?status=pending`)).body.data.page;
    expect(listed.map((a: { id: string; blockedBy: unknown }) => [a.id, a.blockedBy])).toEqual([[second, blocked.blockedBy]]);

    s.clock.advance(DAY);
    // An approver's approve again retries the release: signed now, and the reason is gone.
    const released = await v.approve(0, second);
    expect(released.status).toBe(200);
    expect(released.body.data).toMatchObject({ status: 'approved', blockedBy: null });
    expect((await v.read(second)).blockedBy).toBeNull();
  });

  it('residual: a database writer can forge or clear the reason shown, not hold or release anything by it (the release never reads it)', async () => {
    const v = await aVaultWith('forged reason', { version: 2, rules: held(1), limits: [] });
    const id = await v.hold(ETHER / 10n, 0);
    const writer = await sqlSessionOn(s.dataDir, s.database?.url);
    try {
      const at = s.database ? new Date() : Date.now();
      const changed = await writer.run('UPDATE approvals SET blocked_by = ?, blocked_code = ?, blocked_message = ?, blocked_at = ? WHERE id = ?', ['freeze', 'VAULT_FROZEN', 'forged', at, id]);
      expect(changed).toBe(1);
    } finally {
      await writer.close();
    }
    // What approvers read is the writer's text...
    expect((await v.read(id)).blockedBy).toMatchObject({ reason: 'freeze', code: 'VAULT_FROZEN', message: 'forged' });
    // ...but the vault is not frozen and the release goes through, clearing it.
    const released = await v.approve(0, id);
    expect(released.status).toBe(200);
    expect(released.body.data).toMatchObject({ status: 'approved', blockedBy: null });
  });

  it("a frozen vault's release reads pending with blockedBy freeze", async () => {
    const v = await aVaultWith('blocked by freeze', { version: 2, rules: held(1) });
    const id = await v.hold(ETHER / 10n, 0);
    await s.vault.governance.freeze(v.vaultId, 'approver key may be stolen', 'operator');
    const refused = await v.approve(0, id);
    expect(refused.body.code).toBe('VAULT_FROZEN');
    expect(await v.read(id)).toMatchObject({ status: 'pending', approvalCount: 1, blockedBy: { reason: 'freeze', code: 'VAULT_FROZEN', message: refused.body.error } });
  });
});
