import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import { client } from '../support/http-client.js';
import { LOCAL_CONTRACT, LOCAL_UNIQ, localSignBody, MINT_ABI, MINT_TO } from '../support/sign-request.js';
import { describeEachBackend, itOn, type Target } from '../support/backends.js';

const MINT_TEXT = 'mint(address to, uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)';
// As the approval shows them: EIP-55.
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const MINTED_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/*
 * The four-eyes control over HTTP, written as attempts to get around it: every way a single key might get
 * a held signature, and each must fail. Only a quorum of other approver keys releases it, exactly once.
 */
describeEachBackend('approvals (four eyes) over HTTP', (backend) => {
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

  /** A vault with a wallet, a signer key, three approver keys (of `group` when given) and a rule of `required`. */
  const aHeldVault = async (name: string, o: { required?: number; group?: string; ruleGroup?: string; bound?: boolean; expiresIn?: string } = {}) => {
    const { vaultId, api, base } = await s.vaultWithKey(name);
    const signer: string = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address;
    const keyWith = async (roles: ApiKeyRole[], group?: string) => {
      // allowSignerApprover: the requester below holds both on purpose; approver keys alone need no flag.
      const { apiKey, record } = await s.vault.manageVaults.createApiKey(vaultId, { roles, ...(group ? { group } : {}), allowSignerApprover: true });
      return { api: client(s.url, apiKey), id: record.id };
    };
    // The requester also holds the approver role: it still may never vote on its own request.
    const requester = await keyWith(['signer', 'approver']);
    const approvers = [await keyWith(['approver'], o.group), await keyWith(['approver'], o.group), await keyWith(['approver'], o.group)];
    await policies.addApprovalRule(vaultId, {
      required: o.required ?? 2,
      ...(o.ruleGroup ? { group: o.ruleGroup } : {}),
      ...(o.bound ? { function: MINT_TEXT, arg: 'amount', gt: '10000' } : {}),
      ...(o.expiresIn ? { expiresIn: o.expiresIn } : {}),
    });
    const body = (amount = '20000') => localSignBody(signer, { args: [MINT_TO, amount] });
    return { vaultId, base, admin: api, requester, approvers, keyWith, body, signer };
  };

  const trailOf = (vaultId: string) => s.vault.listAuditRecords.execute({ vaultId, limit: 1000 });
  const signatures = async (vaultId: string) => (await trailOf(vaultId)).filter((r) => r.action === 'signature.issued');

  it('a held sign answers 202 with the approval; nothing is signed until the quorum approves, then exactly once', async () => {
    const v = await aHeldVault('quorum');
    const held = await v.requester.api.post(`${v.base}/sign`, v.body());
    expect(held.status).toBe(202);
    const approval = held.body.data.approval;
    expect(held.body.success).toBe(true);
    expect(approval).toMatchObject({ status: 'pending', required: 2, approvals: 0, rule: 'a1', group: null, requester: `api-key:${v.requester.id}`, result: null });
    expect(new Date(approval.expires).getTime() - new Date(approval.created).getTime()).toBe(24 * 3600 * 1000);
    expect(approval.request).toMatchObject({
      chain: 'local',
      contract: CONTRACT,
      function: 'mint(address,uint256,(bytes32,bytes32,bytes32,uint8))',
      arguments: [
        { name: 'args[0]', type: 'address', value: MINTED_TO },
        { name: 'args[1]', type: 'uint256', value: '20000' },
      ],
    });
    expect(await signatures(v.vaultId)).toEqual([]);

    // The requester's own approval is refused, whatever roles its key holds.
    const self = await v.requester.api.post(`${v.base}/approvals/${approval.id}/approve`);
    expect(self.status).toBe(403);
    expect(self.body.code).toBe('APPROVAL_SELF_VOTE');

    const first = await v.approvers[0]!.api.post(`${v.base}/approvals/${approval.id}/approve`);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'pending', approvals: 1, result: null });
    expect(first.body.data.votes).toEqual([{ by: `api-key:${v.approvers[0]!.id}`, vote: 'approve', at: expect.any(String), signature: null }]);
    // The same key again: one vote per key.
    const again = await v.approvers[0]!.api.post(`${v.base}/approvals/${approval.id}/approve`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('APPROVAL_ALREADY_VOTED');
    expect(await signatures(v.vaultId)).toEqual([]);

    const second = await v.approvers[1]!.api.post(`${v.base}/approvals/${approval.id}/approve`);
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ status: 'approved', approvals: 2 });
    const result = second.body.data.result;
    expect(result.submissionHash).toMatch(/^0x[0-9a-f]{64}$/);
    // As supplied, unchanged.
    expect(result.args.slice(0, 2)).toEqual([MINT_TO, '20000']);
    const issued = await signatures(v.vaultId);
    expect(issued.map((r) => r.subject)).toEqual([result.submissionHash]);
    expect(issued[0]!.details.approval).toBe(approval.id);
    // The submission is on record like any other.
    expect((await v.admin.get(`${v.base}/submissions/${result.submissionHash}`)).status).toBe(200);

    // Decided: no more votes, and the read gives the result.
    const late = await v.approvers[2]!.api.post(`${v.base}/approvals/${approval.id}/approve`);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('APPROVAL_CLOSED');
    const read = await v.requester.api.get(`${v.base}/approvals/${approval.id}`);
    expect(read.body.data).toMatchObject({ status: 'approved', result });

    const trail = (await trailOf(v.vaultId)).filter((r) => r.action.startsWith('approval.'));
    expect(trail.map((r) => [r.action, r.details.status ?? r.details.vote ?? null])).toEqual([
      ['approval.requested', null],
      ['approval.voted', 'approve'],
      ['approval.voted', 'approve'],
      ['approval.decided', 'approved'],
    ]);
    expect((await s.vault.verifyAuditChain.execute()).ok).toBe(true);
  });

  it('approvers see arguments by position, never the names the requester gave them (amount named harmlessFee)', async () => {
    const v = await aHeldVault('requester names');
    // Same types, same selector: the names are the requester's to choose.
    const [to, amount, sig] = MINT_ABI.inputs;
    const abi = { ...MINT_ABI, inputs: [{ ...to, name: 'yourOwnTreasury' }, { ...amount, name: 'harmlessFee' }, sig] };
    const held = await v.requester.api.post(`${v.base}/sign`, { ...v.body(), abi });
    expect(held.status).toBe(202);
    const id = held.body.data.approval.id;
    const expected = [
      { name: 'args[0]', type: 'address', value: MINTED_TO },
      { name: 'args[1]', type: 'uint256', value: '20000' },
    ];
    expect(held.body.data.approval.request.arguments).toEqual(expected);
    expect((await v.approvers[0]!.api.get(`${v.base}/approvals/${id}`)).body.data.request.arguments).toEqual(expected);
    const listed = (await v.approvers[0]!.api.get(`${v.base}/approvals?status=pending`)).body.data;
    expect(listed.page.find((a: { id: string }) => a.id === id).request.arguments).toEqual(expected);
    expect(JSON.stringify(listed)).not.toMatch(/harmlessFee|yourOwnTreasury/);
    const records = (await trailOf(v.vaultId)).filter((r) => r.subject === id);
    expect(JSON.stringify(records)).not.toMatch(/harmlessFee|yourOwnTreasury/);
  });

  it("the reads name arguments by the operator's function, as the console does: the holding rule's parameter names, never the requester's", async () => {
    const v = await aHeldVault('operator names');
    // The holding rule names its function `mint(address to, uint256 amount, … sig)`; the requester calls them otherwise.
    await policies.apply(v.vaultId, {
      version: 2,
      rules: [{ id: 'mints', effect: { hold: { required: 2 } }, kinds: ['call'], function: MINT_TEXT }],
      limits: [],
      uniqs: { [LOCAL_CONTRACT]: LOCAL_UNIQ },
    });
    const [to, amount, sig] = MINT_ABI.inputs;
    const abi = { ...MINT_ABI, inputs: [{ ...to, name: 'yourOwnTreasury' }, { ...amount, name: 'harmlessFee' }, { ...sig, name: 'whatever' }] };
    const held = await v.requester.api.post(`${v.base}/sign`, { ...v.body(), abi });
    expect(held.status).toBe(202);
    const id = held.body.data.approval.id;
    // The answer that holds the sign reads no policy: by position.
    expect(held.body.data.approval.request.arguments.map((a: { name: string }) => a.name)).toEqual(['args[0]', 'args[1]']);
    const named = [
      { name: 'to', type: 'address', value: MINTED_TO },
      { name: 'amount', type: 'uint256', value: '20000' },
    ];
    const read = (await v.approvers[0]!.api.get(`${v.base}/approvals/${id}`)).body.data;
    expect(read.request.arguments).toEqual(named);
    const listed = (await v.approvers[0]!.api.get(`${v.base}/approvals?status=pending`)).body.data;
    expect(listed.page.find((a: { id: string }) => a.id === id).request.arguments).toEqual(named);
    const voted = (await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`)).body.data;
    expect(voted.request.arguments).toEqual(named);
    expect(JSON.stringify([read, listed, voted])).not.toMatch(/harmlessFee|yourOwnTreasury|whatever/);
  });

  it('a key without the approver role cannot vote; a key outside the rule\'s group neither', async () => {
    const v = await aHeldVault('group', { group: 'ops', ruleGroup: 'treasury' });
    const { body } = await v.requester.api.post(`${v.base}/sign`, v.body());
    const id = body.data.approval.id;
    expect(body.data.approval.group).toBe('treasury');
    const signerOnly = await v.keyWith(['signer', 'reader', 'admin']);
    const refused = await signerOnly.api.post(`${v.base}/approvals/${id}/approve`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ROLE_REQUIRED');
    const outside = await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`);
    expect(outside.status).toBe(403);
    expect(outside.body.code).toBe('APPROVER_NOT_IN_GROUP');
    const noGroup = await v.keyWith(['approver']);
    expect((await noGroup.api.post(`${v.base}/approvals/${id}/approve`)).body.code).toBe('APPROVER_NOT_IN_GROUP');
    const treasury = [await v.keyWith(['approver'], 'treasury'), await v.keyWith(['approver'], 'treasury')];
    // Issue 53: approvalCount is the count, as a proposal's; approvals, the same number, kept.
    expect((await treasury[0]!.api.post(`${v.base}/approvals/${id}/approve`)).body.data).toMatchObject({ approvals: 1, approvalCount: 1 });
    expect((await treasury[1]!.api.post(`${v.base}/approvals/${id}/approve`)).body.data).toMatchObject({ status: 'approved', approvals: 2, approvalCount: 2 });
    // Reads: signer, reader and approver keys; an admin-only key is refused.
    const adminOnly = await v.keyWith(['admin']);
    expect((await adminOnly.api.get(`${v.base}/approvals/${id}`)).body.code).toBe('ROLE_REQUIRED');
    expect((await adminOnly.api.get(`${v.base}/approvals/not-an-id`)).status).toBe(403);
    const reader = await v.keyWith(['reader']);
    expect((await reader.api.get(`${v.base}/approvals/%00`)).body.code).toBe('APPROVAL_NOT_FOUND');
    expect((await reader.api.get(`${v.base}/approvals/${randomUUID()}`)).body.code).toBe('APPROVAL_NOT_FOUND');
    expect((await reader.api.get(`${v.base}/approvals?status=open`)).body).toMatchObject({ code: 'INVALID_ARGUMENT', error: expect.stringMatching(/^status: /) });
    for (const roles of [['signer'], ['reader'], ['approver']] as ApiKeyRole[][]) {
      expect((await (await v.keyWith(roles)).api.get(`${v.base}/approvals?status=approved`)).body.data.count).toBe(1);
    }
  });

  it('a rejected request never signs, and a repeat with its Idempotency-Key is 403 APPROVAL_REJECTED', async () => {
    const v = await aHeldVault('rejected');
    const key = { 'idempotency-key': 'pay-invoice-17' };
    const id = (await v.requester.api.post(`${v.base}/sign`, v.body(), key)).body.data.approval.id;
    expect((await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`)).status).toBe(200);
    const rejected = await v.approvers[1]!.api.post(`${v.base}/approvals/${id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toMatchObject({ status: 'rejected', result: null });
    // The third approval would have made the quorum: too late.
    expect((await v.approvers[2]!.api.post(`${v.base}/approvals/${id}/approve`)).body.code).toBe('APPROVAL_CLOSED');
    const repeat = await v.requester.api.post(`${v.base}/sign`, v.body(), key);
    expect(repeat.status).toBe(403);
    expect(repeat.body.code).toBe('APPROVAL_REJECTED');
    expect(await signatures(v.vaultId)).toEqual([]);
  });

  it('an expired request never signs: votes refused, reads say expired, the job records approval.decided', async () => {
    const v = await aHeldVault('expired', { expiresIn: '1h' });
    const key = { 'idempotency-key': 'expiring' };
    const id = (await v.requester.api.post(`${v.base}/sign`, v.body(), key)).body.data.approval.id;
    expect((await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`)).status).toBe(200);
    s.clock.advance(3_600_000);
    const late = await v.approvers[1]!.api.post(`${v.base}/approvals/${id}/approve`);
    expect(late.status).toBe(403);
    expect(late.body.code).toBe('APPROVAL_EXPIRED');
    expect((await v.admin.get(`${v.base}/approvals/${id}`)).body.data.status).toBe('expired');
    expect((await v.admin.get(`${v.base}/approvals?status=pending`)).body.data.count).toBe(0);
    expect((await v.admin.get(`${v.base}/approvals?status=expired`)).body.data.page.map((a: { id: string }) => a.id)).toEqual([id]);
    expect((await v.requester.api.post(`${v.base}/sign`, v.body(), key)).body.code).toBe('APPROVAL_EXPIRED');
    await s.purgeNow();
    const decided = (await trailOf(v.vaultId)).filter((r) => r.subject === id && r.action === 'approval.decided');
    expect(decided.map((r) => r.details)).toEqual([{ approval: id, status: 'expired' }]);
    expect(await signatures(v.vaultId)).toEqual([]);
  });

  it('an idempotent repeat answers 202 while pending, then 200 with the same result; another body is 409', async () => {
    const v = await aHeldVault('idempotent');
    const key = { 'idempotency-key': 'transfer-42' };
    const first = await v.requester.api.post(`${v.base}/sign`, v.body(), key);
    const again = await v.requester.api.post(`${v.base}/sign`, v.body(), key);
    expect(again.status).toBe(202);
    expect(again.body.data.approval.id).toBe(first.body.data.approval.id);
    expect((await v.admin.get(`${v.base}/approvals`)).body.data.count).toBe(1);
    const conflict = await v.requester.api.post(`${v.base}/sign`, v.body('30000'), key);
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('IDEMPOTENCY_CONFLICT');
    const id = first.body.data.approval.id;
    await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`);
    const released = (await v.approvers[1]!.api.post(`${v.base}/approvals/${id}/approve`)).body.data.result;
    const repeat = await v.requester.api.post(`${v.base}/sign`, v.body(), key);
    expect(repeat.status).toBe(200);
    expect(repeat.body.data).toEqual(released);
    expect((await signatures(v.vaultId)).length).toBe(1);
  });

  it('a request whose requesting key was revoked while it waited is never signed', async () => {
    const v = await aHeldVault('revoked requester');
    const id = (await v.requester.api.post(`${v.base}/sign`, v.body())).body.data.approval.id;
    await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`);
    await s.vault.manageVaults.revokeApiKey(v.requester.id);
    const refused = await v.approvers[1]!.api.post(`${v.base}/approvals/${id}/approve`);
    expect([refused.status, refused.body.code]).toEqual([403, 'POLICY_DENIED']);
    expect((await v.admin.get(`${v.base}/approvals/${id}`)).body.data).toMatchObject({ status: 'pending', approvals: 2, result: null });
    expect(await signatures(v.vaultId)).toEqual([]);
  });

  it('a vote of an approver key revoked after voting counts for nothing: the quorum waits for another valid approver', async () => {
    const v = await aHeldVault('revoked approver');
    const id = (await v.requester.api.post(`${v.base}/sign`, v.body())).body.data.approval.id;
    expect((await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`)).body.data).toMatchObject({ approvals: 1 });
    await s.vault.manageVaults.revokeApiKey(v.approvers[0]!.id);
    // Two approve votes cast, one of a key revoked since: one counts, nothing is signed.
    const second = await v.approvers[1]!.api.post(`${v.base}/approvals/${id}/approve`);
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ status: 'pending', approvals: 1, result: null });
    expect(second.body.data.votes).toHaveLength(2);
    expect((await v.admin.get(`${v.base}/approvals/${id}`)).body.data).toMatchObject({ status: 'pending', approvals: 1 });
    expect(await signatures(v.vaultId)).toEqual([]);
    const third = await v.approvers[2]!.api.post(`${v.base}/approvals/${id}/approve`);
    expect(third.body.data).toMatchObject({ status: 'approved', approvals: 2 });
    expect((await signatures(v.vaultId)).map((r) => r.subject)).toEqual([third.body.data.result.submissionHash]);
  });

  it('two approvers voted (the release failed), one is revoked: the retry signs nothing until another valid approver votes', async () => {
    const v = await aHeldVault('revoked before the retry', { bound: true });
    await policies.addLimit(v.vaultId, { each: 'wallet', maxSigns: 1, per: '1h' });
    expect((await v.requester.api.post(`${v.base}/sign`, v.body('1'))).status).toBe(200);
    const id = (await v.requester.api.post(`${v.base}/sign`, v.body())).body.data.approval.id;
    await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`);
    expect((await v.approvers[1]!.api.post(`${v.base}/approvals/${id}/approve`)).body.code).toBe('SIGN_LIMIT_REACHED');
    await s.vault.manageVaults.revokeApiKey(v.approvers[1]!.id);
    s.clock.advance(3_600_000);
    // The limit has room again, but the quorum is one valid vote short: the retry is a second vote, refused.
    expect((await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`)).body.code).toBe('APPROVAL_ALREADY_VOTED');
    expect((await v.admin.get(`${v.base}/approvals/${id}`)).body.data).toMatchObject({ status: 'pending', approvals: 1, result: null });
    const third = await v.approvers[2]!.api.post(`${v.base}/approvals/${id}/approve`);
    expect(third.body.data).toMatchObject({ status: 'approved', approvals: 2 });
    expect((await signatures(v.vaultId)).map((r) => r.subject)).toContain(third.body.data.result.submissionHash);
  });

  it('an argument bound holds only signs past it; below it the sign goes through at once', async () => {
    const v = await aHeldVault('bound', { bound: true });
    expect((await v.requester.api.post(`${v.base}/sign`, v.body('10000'))).status).toBe(200);
    expect((await v.requester.api.post(`${v.base}/sign`, v.body('10001'))).status).toBe(202);
  });

  it('a release that fails leaves the approval pending with its votes; an approver who already voted retries it', async () => {
    const v = await aHeldVault('release retried', { bound: true });
    // One sign per hour for the wallet, taken by a sign below the bound: the release will find the limit full.
    await policies.addLimit(v.vaultId, { each: 'wallet', maxSigns: 1, per: '1h' });
    expect((await v.requester.api.post(`${v.base}/sign`, v.body('1'))).status).toBe(200);
    const id = (await v.requester.api.post(`${v.base}/sign`, v.body())).body.data.approval.id;
    await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`);
    const failed = await v.approvers[1]!.api.post(`${v.base}/approvals/${id}/approve`);
    expect([failed.status, failed.body.code]).toEqual([429, 'SIGN_LIMIT_REACHED']);
    expect((await v.admin.get(`${v.base}/approvals/${id}`)).body.data).toMatchObject({ status: 'pending', approvals: 2, result: null });
    // Still refused while the limit is full; a second vote of the key is not counted twice.
    expect((await v.approvers[1]!.api.post(`${v.base}/approvals/${id}/approve`)).body.code).toBe('SIGN_LIMIT_REACHED');
    s.clock.advance(3_600_000 - 1);
    s.clock.advance(1);
    const retried = await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/approve`);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ status: 'approved', approvals: 2 });
    expect((await signatures(v.vaultId)).map((r) => r.subject)).toContain(retried.body.data.result.submissionHash);
    // A reject by one who approved is a second vote, refused.
    expect((await v.approvers[1]!.api.post(`${v.base}/approvals/${id}/reject`)).body.code).toBe('APPROVAL_CLOSED');
  });

  it('concurrent approvals of a 2-of-3 quorum release exactly one signature', async () => {
    const v = await aHeldVault('concurrent');
    const id = (await v.requester.api.post(`${v.base}/sign`, v.body())).body.data.approval.id;
    const votes = await Promise.all(v.approvers.map((a) => a.api.post(`${v.base}/approvals/${id}/approve`)));
    // Each vote is counted or answered; none fails unexpectedly.
    for (const r of votes) expect([200, 409]).toContain(r.status);
    const final = (await v.admin.get(`${v.base}/approvals/${id}`)).body.data;
    expect(final.status).toBe('approved');
    const issued = await signatures(v.vaultId);
    expect(issued.map((r) => r.subject)).toEqual([final.result.submissionHash]);
  });

  pg('two instances on one database: votes split over both release exactly one signature', async () => {
    const v = await aHeldVault('two instances', { required: 3 });
    const peer = await s.peer({ shareKeys: true });
    const id = (await v.requester.api.post(`${v.base}/sign`, v.body())).body.data.approval.id;
    const keys = await Promise.all([0, 1, 2].map(async () => (await s.vault.manageVaults.createApiKey(v.vaultId, { roles: ['approver'] })).apiKey));
    const calls = keys.flatMap((k) => [client(s.url, k), client(peer.url, k)].map((c) => c.post(`${v.base}/approvals/${id}/approve`)));
    const replies = await Promise.all(calls);
    for (const r of replies) expect([200, 409]).toContain(r.status);
    const final = (await v.admin.get(`${v.base}/approvals/${id}`)).body.data;
    expect(final).toMatchObject({ status: 'approved', approvals: 3 });
    expect((await signatures(v.vaultId)).map((r) => r.subject)).toEqual([final.result.submissionHash]);
  });

  it("shows the operator's labels of the requester's and the voters' keys beside their ids (issue 52), never instead of them; an unlabelled key shows none", async () => {
    const v = await aHeldVault('labels');
    const labelled = async (roles: ApiKeyRole[], label: string) => {
      const { apiKey, record } = await s.vault.manageVaults.createApiKey(v.vaultId, { roles, label, allowSignerApprover: true });
      return { api: client(s.url, apiKey), id: record.id };
    };
    const bot = await labelled(['signer'], 'payments bot');
    const alice = await labelled(['approver'], 'alice (finance)');
    const held = await bot.api.post(`${v.base}/sign`, v.body());
    expect(held.status).toBe(202);
    const { id } = held.body.data.approval;
    expect((await alice.api.post(`${v.base}/approvals/${id}/approve`)).body.data).toMatchObject({
      requester: `api-key:${bot.id}`,
      requesterLabel: 'payments bot',
      votes: [{ by: `api-key:${alice.id}`, byLabel: 'alice (finance)', vote: 'approve' }],
    });
    await v.approvers[0]!.api.post(`${v.base}/approvals/${id}/reject`);
    const shown = (await v.admin.get(`${v.base}/approvals/${id}`)).body.data;
    expect(shown).toMatchObject({ requester: `api-key:${bot.id}`, requesterLabel: 'payments bot' });
    expect(shown.votes.map((x: { by: string; byLabel?: string }) => [x.by, x.byLabel])).toEqual([
      [`api-key:${alice.id}`, 'alice (finance)'],
      [`api-key:${v.approvers[0]!.id}`, undefined],
    ]);
    const listed = (await v.admin.get(`${v.base}/approvals`)).body.data.page.find((a: { id: string }) => a.id === id);
    expect(listed).toMatchObject({ requesterLabel: 'payments bot', votes: [{ byLabel: 'alice (finance)' }, {}] });
    // A key without a label: no field, as before.
    const plain = (await v.requester.api.post(`${v.base}/sign`, v.body())).body.data.approval;
    expect((await v.admin.get(`${v.base}/approvals/${plain.id}`)).body.data).not.toHaveProperty('requesterLabel');
  });
});
