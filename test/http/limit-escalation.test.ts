import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import { client } from '../support/http-client.js';
import { describeEachBackend, type Target } from '../support/backends.js';
import { localSignBody, MINT_TO } from '../support/sign-request.js';

const ETHER = 10n ** 18n;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

/** A transaction of `value` wei on chain 1 to RECIPIENT; fees 0, so the wei moved is the value alone. */
const payment = (value: bigint, nonce: number) => ({ type: 'eip1559', chainId: 1, nonce, to: RECIPIENT, value: value.toString(), gas: 21000, maxFeePerGas: '0', maxPriorityFeePerGas: '0' });
const rules = [{ id: 'pay', effect: 'allow', kinds: ['transaction'], chains: ['1'], contracts: [RECIPIENT], selectors: ['0x'], maxValue: (10n * ETHER).toString() }];

/**
 * Limits that escalate: past a limit with `onExceed: hold`, the request is held for the limit's approvers
 * instead of refused, and their release is not refused by the limit it was held for (it still counts in
 * the window). Limits in dollars from the document's operator-set prices.
 */
describeEachBackend('limits that escalate over HTTP', (backend) => {
  let s: Target;

  beforeAll(async () => {
    s = await backend.start();
  });
  afterAll(async () => {
    await s?.close();
  });

  const aVaultWith = async (name: string, document: unknown, group?: string) => {
    const v = await s.vaultWithKey(name);
    const keyWith = async (roles: ApiKeyRole[], keyGroup?: string) => {
      const { apiKey, record } = await s.vault.manageVaults.createApiKey(v.vaultId, { roles, ...(keyGroup ? { group: keyGroup } : {}) });
      return { api: client(s.url, apiKey), id: record.id };
    };
    const wallet: string = (await v.api.post(`${v.base}/wallets`, { name: 'payer' })).body.data.address;
    await s.vault.managePolicies.apply(v.vaultId, document);
    const approvers = [await keyWith(['approver'], group), await keyWith(['approver'], group), await keyWith(['approver'])];
    const sign = (value: bigint, nonce: number) => v.api.post(`${v.base}/wallets/${wallet}/sign-transaction`, payment(value, nonce));
    return { ...v, wallet, approvers, sign };
  };

  it('past a daily limit with onExceed hold: held for 2 approvers of the group, released by them, and the release counts in the day', async () => {
    const v = await aVaultWith(
      'escalate',
      { version: 2, rules, limits: [{ id: 'daily', kinds: ['transaction'], each: 'wallet', maxValue: ETHER.toString(), per: '1d', onExceed: { hold: { required: 2, group: 'treasury' } } }] },
      'treasury',
    );
    s.clock.freeze();
    expect((await v.sign((6n * ETHER) / 10n, 0)).status).toBe(200);
    const held = await v.sign((5n * ETHER) / 10n, 1);
    expect(held.status).toBe(202);
    const approval = held.body.data.approval;
    expect(approval).toMatchObject({ status: 'pending', required: 2, group: 'treasury', rule: 'limit:daily' });
    const requested = (await s.vault.listAuditRecords.execute({ vaultId: v.vaultId, limit: 1000 })).find((r) => r.action === 'approval.requested');
    expect(requested?.details).toMatchObject({ rule: 'limit:daily', required: 2, group: 'treasury' });
    // A key outside the limit's group does not vote on it.
    expect((await v.approvers[2]!.api.post(`${v.base}/approvals/${approval.id}/approve`)).body.code).toBe('APPROVER_NOT_IN_GROUP');
    expect((await v.approvers[0]!.api.post(`${v.base}/approvals/${approval.id}/approve`)).body.data).toMatchObject({ status: 'pending', approvalCount: 1 });
    const released = await v.approvers[1]!.api.post(`${v.base}/approvals/${approval.id}/approve`);
    expect(released.status).toBe(200);
    expect(released.body.data.status).toBe('approved');
    expect(released.body.data.result.serialized).toMatch(/^0x02/);
    // The released 0.5 ETH counts: the day holds 1.1 ETH, so even 1 wei more is held again, not signed.
    const next = await v.sign(1n, 2);
    expect(next.status).toBe(202);
    expect(next.body.data.approval.rule).toBe('limit:daily');
    s.clock.advance(86_400_000);
    expect((await v.sign(1n, 2)).status).toBe(200);
  });

  it('a Sign call past a count limit with onExceed: held (202), released by one approver, counted in the window', async () => {
    const v = await aVaultWith('escalate sign', {
      version: 2,
      rules: [{ id: 'calls', effect: 'allow', kinds: ['call'] }],
      limits: [{ id: 'one-a-day', kinds: ['call'], maxSigns: 1, per: '1d', onExceed: { hold: { required: 1 } } }],
    });
    s.clock.freeze();
    const signer: string = (await v.api.post(`${v.base}/wallets`, { name: 'signer' })).body.data.address;
    const body = () => localSignBody(signer, { args: [MINT_TO, '5'] });
    expect((await v.api.post(`${v.base}/sign`, body())).status).toBe(200);
    const held = await v.api.post(`${v.base}/sign`, body());
    expect(held.status).toBe(202);
    expect(held.body.data.approval).toMatchObject({ rule: 'limit:one-a-day', required: 1 });
    const released = await v.approvers[0]!.api.post(`${v.base}/approvals/${held.body.data.approval.id}/approve`);
    expect(released.body.data.status).toBe('approved');
    expect(released.body.data.result.submissionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await v.api.post(`${v.base}/sign`, body())).status).toBe(202);
  });

  it('a limit without onExceed still refuses (429)', async () => {
    const v = await aVaultWith('no escalation', { version: 2, rules, limits: [{ id: 'daily', kinds: ['transaction'], maxValue: ETHER.toString(), per: '1d' }] });
    s.clock.freeze();
    expect((await v.sign(ETHER, 0)).status).toBe(200);
    const over = await v.sign(1n, 1);
    expect([over.status, over.body.code]).toEqual([429, 'SIGN_LIMIT_REACHED']);
  });

  it('maxValueUsd with the document\'s prices: dollars counted exactly (bigint), past it held when onExceed says so', async () => {
    const v = await aVaultWith('usd', {
      version: 2,
      rules,
      prices: { native: { usd: '2000.50' } },
      limits: [{ id: 'daily-usd', kinds: ['transaction'], maxValueUsd: '1000.25', per: '1d' }],
    });
    s.clock.freeze();
    // 0.5 ETH at 2000.50 USD is exactly 1000.25 USD: it fits, and then not a wei more.
    expect((await v.sign(ETHER / 2n, 0)).status).toBe(200);
    const over = await v.sign(1n, 1);
    expect([over.status, over.body.code]).toEqual([429, 'SIGN_LIMIT_REACHED']);
    expect(over.body.error).toMatch(/^limit daily-usd: at most 1000\.25 USD of the native unit per 1d in all reached/);
  });

  it('refuses a document whose onExceed, maxValueUsd or prices are wrong, naming the field', async () => {
    const v = await s.vaultWithKey('bad documents');
    const refusal = async (document: unknown) => {
      try {
        await s.vault.managePolicies.apply(v.vaultId, document);
      } catch (error) {
        return (error as Error).message;
      }
      return 'applied';
    };
    const limit = { id: 'l', maxValue: '1', per: '1d' };
    expect(await refusal({ version: 2, rules, limits: [{ ...limit, onExceed: { hold: { required: 0 } } }] })).toBe('limits[0].onExceed.hold.required: must be a whole number from 1 to 10');
    expect(await refusal({ version: 2, rules, limits: [{ ...limit, onExceed: { hold: { required: 2, expiresIn: '1h' } } }] })).toMatch(/^limits\[0\]\.onExceed\.hold\.expiresIn: is not a field here/);
    expect(await refusal({ version: 2, rules, limits: [{ id: 'l', maxValueUsd: '10', per: '1d' }] })).toBe('limits[0].maxValueUsd: native has no price: give it in prices or priceFeeds');
    expect(await refusal({ version: 2, rules, prices: { native: { usd: 2000.5 } }, limits: [] })).toMatch(/^prices\.native\.usd: must be a decimal dollar amount/);
    expect(await refusal({ version: 2, rules, prices: { native: { usd: '1' } }, priceFeeds: { native: { feed: RECIPIENT, maxAgeSeconds: 60 } }, limits: [] })).toBe('priceFeeds.native: native has a price in prices too; give one source of its price');
  });
});
