import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseTransaction, recoverMessageAddress, recoverTransactionAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { AUDIT_LIST_MAX } from '../../src/application/audit/list-audit-records.use-case.js';
import { describeEachBackend, type Target } from '../support/backends.js';
import { client } from '../support/http-client.js';
import { asJson, permit } from '../support/typed-data-fixtures.js';

/*
 * A hold rule on a message, typed data or a transaction holds it as Sign is held (issue 34): 202 with the
 * approval and nothing signed, then released by its quorum of approver keys, exactly once, under the policy
 * as it is at the release. On every backend.
 */
const CHAIN_ID = 31337;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const OTHER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

const transaction = (nonce = 0) => ({
  type: 'eip1559',
  chainId: CHAIN_ID,
  nonce,
  to: RECIPIENT,
  value: '1000',
  gas: '21000',
  maxFeePerGas: '2000000000',
  maxPriorityFeePerGas: '1000000000',
});
const permitOf = () => permit({ name: 'Token', version: '1', chainId: CHAIN_ID, verifyingContract: TOKEN as Hex }, { owner: OTHER, spender: RECIPIENT, value: 5n, nonce: 0n, deadline: 2n ** 40n });

/** Allows each kind, and holds each for two approvers: what is held is signed only once they approve. */
const HOLDING = {
  version: 2,
  rules: [
    { id: 'pay', effect: 'allow', kinds: ['transaction'], chains: [String(CHAIN_ID)], contracts: [RECIPIENT], maxValue: '1000' },
    { id: 'permits', effect: 'allow', kinds: ['typed-data'], contracts: [TOKEN] },
    { id: 'logins', effect: 'allow', kinds: ['message'] },
    { id: 'four-eyes', effect: { hold: { required: 2 } }, kinds: ['transaction', 'typed-data', 'message'] },
  ],
  limits: [],
};

describeEachBackend('holds of messages, typed data and transactions over HTTP', (backend) => {
  let t: Target;

  beforeAll(async () => {
    t = await backend.start();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A vault under HOLDING with a wallet, its requesting key, and three keys made with the approver role (only). */
  const aHeldVault = async (name: string) => {
    const { vaultId, api, base } = await t.vaultWithKey(name);
    const wallet: string = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address;
    await t.vault.managePolicies.apply(vaultId, HOLDING);
    const approvers = await Promise.all([0, 1, 2].map(async () => client(t.url, (await t.vault.manageVaults.createApiKey(vaultId, { roles: ['approver'] })).apiKey)));
    const at = (operation: string) => `${base}/wallets/${wallet}/${operation}`;
    const trail = async () => t.vault.listAuditRecords.execute({ vaultId, limit: AUDIT_LIST_MAX });
    const signed = async () => (await trail()).filter((r) => r.action.startsWith('sign.') && r.action !== 'sign.denied');
    return { vaultId, api, base, wallet, approvers, at, trail, signed };
  };
  type HeldVault = Awaited<ReturnType<typeof aHeldVault>>;

  /** Two approvals: the first leaves it pending, the second releases it; the answer of the second. */
  const release = async (v: HeldVault, id: string) => {
    const first = await v.approvers[0]!.post(`${v.base}/approvals/${id}/approve`);
    expect([first.status, first.body.data.status]).toEqual([200, 'pending']);
    expect(await v.signed()).toEqual([]);
    const second = await v.approvers[1]!.post(`${v.base}/approvals/${id}/approve`);
    expect(second.status).toBe(200);
    return second.body.data;
  };

  it('a held transaction answers 202 and nothing is signed; two approvals release it, recovering to the wallet and on record', async () => {
    const v = await aHeldVault('held transaction');
    const held = await v.api.post(v.at('sign-transaction'), transaction());
    expect(held.status).toBe(202);
    expect(held.body.success).toBe(true);
    const approval = held.body.data.approval;
    expect(approval).toMatchObject({ kind: 'transaction', status: 'pending', required: 2, approvals: 0, rule: 'four-eyes', result: null });
    expect(approval.request).toEqual({ wallet: v.wallet, transaction: transaction() });
    expect(await v.signed()).toEqual([]);

    const released = await release(v, approval.id);
    expect(released).toMatchObject({ status: 'approved', approvals: 2 });
    const { serialized, hash } = released.result;
    expect(await recoverTransactionAddress({ serializedTransaction: serialized })).toBe(v.wallet);
    expect(parseTransaction(serialized)).toMatchObject({ chainId: CHAIN_ID, nonce: 0, to: RECIPIENT.toLowerCase(), value: 1000n, type: 'eip1559' });
    // On record, once, with the approval; and the read answers the result.
    const records = await v.signed();
    expect(records.map((r) => [r.action, r.details.hash, r.details.approval])).toEqual([['sign.transaction', hash, approval.id]]);
    expect(records[0]!.actor).toBe(approval.requester);
    expect((await v.api.get(`${v.base}/approvals/${approval.id}`)).body.data).toMatchObject({ status: 'approved', result: { serialized, hash } });
    const decided = (await v.trail()).filter((r) => r.subject === approval.id).map((r) => [r.action, r.details.status ?? r.details.vote ?? null]);
    expect(decided).toEqual([
      ['approval.requested', null],
      ['approval.voted', 'approve'],
      ['approval.voted', 'approve'],
      ['approval.decided', 'approved'],
    ]);
    expect((await t.vault.verifyAuditChain.execute()).ok).toBe(true);
  });

  it('held typed data is released by its quorum as a signature recovering to the wallet', async () => {
    const v = await aHeldVault('held typed data');
    const held = await v.api.post(v.at('sign-typed-data'), asJson(permitOf()));
    expect(held.status).toBe(202);
    const approval = held.body.data.approval;
    expect(approval).toMatchObject({ kind: 'typed-data', request: { wallet: v.wallet, typedData: asJson(permitOf()) } });
    const { signature } = (await release(v, approval.id)).result;
    expect(await recoverTypedDataAddress({ ...permitOf(), signature })).toBe(v.wallet);
    expect((await v.signed()).map((r) => [r.action, r.details.approval, r.details.primaryType])).toEqual([['sign.typed-data', approval.id, 'Permit']]);
  });

  it('a held message is released by its quorum as a signature recovering to the wallet', async () => {
    const v = await aHeldVault('held message');
    const held = await v.api.post(v.at('sign-message'), { message: 'Sign in to example.org' });
    expect(held.status).toBe(202);
    const approval = held.body.data.approval;
    expect(approval).toMatchObject({ kind: 'message', request: { wallet: v.wallet, message: 'Sign in to example.org' } });
    const { signature } = (await release(v, approval.id)).result;
    expect(await recoverMessageAddress({ message: 'Sign in to example.org', signature })).toBe(v.wallet);
    expect((await v.api.get(`${v.base}/approvals/${approval.id}`)).body.data.result).toEqual({ signature });
    expect((await v.signed()).map((r) => r.action)).toEqual(['sign.message']);
  });

  it('a deny applied between the hold and the release refuses the release: nothing is signed, the approval stays pending', async () => {
    const v = await aHeldVault('denied before release');
    const id = (await v.api.post(v.at('sign-transaction'), transaction())).body.data.approval.id;
    await t.vault.managePolicies.apply(v.vaultId, { ...HOLDING, rules: [...HOLDING.rules, { id: 'freeze', effect: 'deny', kinds: ['transaction'] }] });
    expect((await v.approvers[0]!.post(`${v.base}/approvals/${id}/approve`)).status).toBe(200);
    const refused = await v.approvers[1]!.post(`${v.base}/approvals/${id}/approve`);
    expect([refused.status, refused.body.code]).toEqual([403, 'POLICY_DENIED']);
    expect(refused.body.error).toMatch(/rule freeze/);
    expect(await v.signed()).toEqual([]);
    expect((await v.api.get(`${v.base}/approvals/${id}`)).body.data).toMatchObject({ status: 'pending', approvals: 2, result: null });
    const denied = (await v.trail()).filter((r) => r.action === 'sign.denied');
    expect(denied.map((r) => r.details.payload)).toEqual(['transaction']);
  });

  it('concurrent approvals of a 2-of-3 quorum release exactly one signature', async () => {
    const v = await aHeldVault('concurrent');
    const id = (await v.api.post(v.at('sign-transaction'), transaction())).body.data.approval.id;
    const votes = await Promise.all(v.approvers.map((a) => a.post(`${v.base}/approvals/${id}/approve`)));
    for (const r of votes) expect([200, 409]).toContain(r.status);
    const final = (await v.api.get(`${v.base}/approvals/${id}`)).body.data;
    expect(final.status).toBe('approved');
    expect((await v.signed()).map((r) => r.details.hash)).toEqual([final.result.hash]);
  });

  it('an Idempotency-Key repeats a held request as Sign does: 202 while pending, 200 with the result once approved, 409 for another body', async () => {
    const v = await aHeldVault('idempotent');
    const key = { 'idempotency-key': 'payout-7' };
    const first = await v.api.post(v.at('sign-transaction'), transaction(), key);
    const again = await v.api.post(v.at('sign-transaction'), transaction(), key);
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body.data.approval.id).toBe(first.body.data.approval.id);
    expect((await v.api.post(v.at('sign-transaction'), transaction(1), key)).body.code).toBe('IDEMPOTENCY_CONFLICT');
    const result = (await release(v, first.body.data.approval.id)).result;
    const repeat = await v.api.post(v.at('sign-transaction'), transaction(), key);
    expect([repeat.status, repeat.body.data]).toEqual([200, result]);
    expect((await v.signed()).length).toBe(1);
  });
});
