import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import { client } from '../support/http-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { DOCUMENT, ethersApprover, viemApprover, WIDER, type Approver } from '../governance/support.js';

/*
 * Governance over HTTP (docs/governance.md, decisions.md "Signed decisions"): the state in force, the
 * proposals with what to sign, votes that count only with an approver's EIP-712 signature, the freeze
 * of one admin key. Every answer is held to the OpenAPI document by the conformance setup.
 */
describe('governance over HTTP', () => {
  let s: TestServer;
  const approvers: Approver[] = [ethersApprover(), viemApprover(), ethersApprover()];
  const outsider = ethersApprover();

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** A 2-of-3 governed vault (delay 0s) with its policy DOCUMENT, a wallet, and a key of each role. */
  const governedVault = async (name: string) => {
    const vault = s.server.vault;
    const { id: vaultId } = await vault.manageVaults.create({ name });
    await vault.managePolicies.apply(vaultId, DOCUMENT);
    const key = async (role: ApiKeyRole) => client(s.url, (await vault.manageVaults.createApiKey(vaultId, { roles: [role] })).apiKey);
    // Made before the genesis, which lists them: a key made after is a proposal (docs/governance.md).
    const [admin, signer, reader, approver] = [await key('admin'), await key('signer'), await key('reader'), await key('approver')];
    await vault.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address), delay: '0s' }, 'operator');
    const base = `/api/v1/vaults/${vaultId}`;
    const wallet: string = (await admin.post(`${base}/wallets`, { name: 'w' })).body.data.address;
    const propose = async (document: unknown = WIDER) => ((await vault.managePolicies.apply(vaultId, document as never)) as { proposal: { id: string } }).proposal.id;
    return { vaultId, base, admin, signer, reader, approver, wallet, propose };
  };

  it('GET …/governance: the state in force, its hash and pin, frozen or not; for readers, approvers and admins', async () => {
    const v = await governedVault('shown');
    const r = await v.reader.get(`${v.base}/governance`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ vault: v.vaultId, governed: true, pinned: false, frozen: false, freezes: 0, liftedFreezes: 0, problem: null });
    expect(r.body.data.pin).toBe(`VAULT_GOVERNANCE_PINS=${v.vaultId}:${r.body.data.genesisHash}`);
    expect(r.body.data.state.governance).toEqual({ required: 2, approvers: approvers.map((a) => a.address).sort(), delay: '0s' });
    for (const key of [v.approver, v.admin]) expect((await key.get(`${v.base}/governance`)).status).toBe(200);
    expect((await v.signer.get(`${v.base}/governance`)).body.code).toBe('ROLE_REQUIRED');
  });

  it('proposals are listed and shown with their diff and both typed data; an unknown one is 404', async () => {
    const v = await governedVault('listed');
    const id = await v.propose();
    const list = await v.signer.get(`${v.base}/proposals`);
    expect(list.body.data).toMatchObject({ count: 1, page: [{ id, status: 'pending' }] });
    const one = (await v.approver.get(`${v.base}/proposals/${id}`)).body.data;
    expect(one.diff.policy.added).toEqual(['rule typed']);
    expect(one.typedData).toMatchObject({ primaryType: 'PolicyChange', message: { vault: v.vaultId, proposal: id, document: one.documentHash } });
    expect(one.rejectTypedData).toMatchObject({ primaryType: 'Decision', message: { vault: v.vaultId, approval: id, request: one.documentHash, decision: 'reject' } });
    const missing = await v.reader.get(`${v.base}/proposals/01a20a06-0000-7000-8000-000000000000`);
    expect([missing.status, missing.body.code]).toEqual([404, 'PROPOSAL_NOT_FOUND']);
  });

  it('approve: counts only with a signature of an approver (403 otherwise, missing included); strict body; in force with the second; then closed', async () => {
    const v = await governedVault('approved');
    const id = await v.propose();
    const view = (await v.approver.get(`${v.base}/proposals/${id}`)).body.data;
    const at = `${v.base}/proposals/${id}/approve`;
    const first = await approvers[0]!.sign(view.typedData);

    const missing = await v.approver.post(at, {});
    expect([missing.status, missing.body.code]).toEqual([403, 'APPROVAL_SIGNATURE_INVALID']);
    expect(missing.body.error).toMatch(/signature is required/);
    expect((await v.approver.post(at, { signature: 42 })).body.code).toBe('APPROVAL_SIGNATURE_INVALID');
    const extra = await v.approver.post(at, { signature: first, note: 'x' });
    expect([extra.status, extra.body.code, extra.body.error]).toEqual([400, 'INVALID_ARGUMENT', 'note: is not a field of this request (signature)']);
    expect((await v.approver.post(at, { signature: await outsider.sign(view.typedData) })).body.code).toBe('APPROVAL_SIGNATURE_INVALID');
    expect((await v.reader.post(at, { signature: first })).body.code).toBe('ROLE_REQUIRED');
    // A signature of the reject message is no approve.
    expect((await v.approver.post(at, { signature: await approvers[0]!.sign(view.rejectTypedData) })).body.code).toBe('APPROVAL_SIGNATURE_INVALID');

    const once = await v.approver.post(at, { signature: first });
    expect(once.status).toBe(200);
    // Issue 53: a proposal counts its votes as an approval does, in approvalCount (approvals, the list of signers, kept).
    expect(once.body.data).toMatchObject({ status: 'pending', approvals: [approvers[0]!.address], approvalCount: 1 });
    const again = await v.approver.post(at, { signature: first });
    expect([again.status, again.body.code]).toEqual([409, 'APPROVAL_ALREADY_VOTED']);
    // The approve signature, replayed as a reject: refused, the proposal still open.
    const replayed = await v.approver.post(`${v.base}/proposals/${id}/reject`, { signature: first });
    expect([replayed.status, replayed.body.code]).toEqual([403, 'APPROVAL_SIGNATURE_INVALID']);

    const second = await v.approver.post(at, { signature: await approvers[1]!.sign(view.typedData) });
    expect(second.body.data).toMatchObject({ status: 'applied', approvals: expect.arrayContaining([approvers[0]!.address, approvers[1]!.address]), approvalCount: 2 });
    expect((await v.reader.get(`${v.base}/governance`)).body.data.hash).toBe(view.documentHash);
    const closed = await v.approver.post(at, { signature: await approvers[2]!.sign(view.typedData) });
    expect([closed.status, closed.body.code]).toEqual([409, 'PROPOSAL_CLOSED']);
  });

  it('reject: one signed Decision "reject" of an approver closes the proposal', async () => {
    const v = await governedVault('rejected');
    const id = await v.propose();
    const view = (await v.approver.get(`${v.base}/proposals/${id}`)).body.data;
    const r = await v.approver.post(`${v.base}/proposals/${id}/reject`, { signature: await approvers[2]!.sign(view.rejectTypedData) });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'rejected', rejectedBy: approvers[2]!.address });
    const later = await v.approver.post(`${v.base}/proposals/${id}/approve`, { signature: await approvers[0]!.sign(view.typedData) });
    expect(later.body.code).toBe('PROPOSAL_CLOSED');
  });

  it('freeze: one admin key, no quorum; the next sign is VAULT_FROZEN; its body is strict', async () => {
    const v = await governedVault('frozen');
    const message = () => v.signer.post(`${v.base}/wallets/${v.wallet}/sign-message`, { message: 'hello' });
    expect((await message()).status).toBe(200);
    expect((await v.signer.post(`${v.base}/freeze`, {})).body.code).toBe('ROLE_REQUIRED');
    expect((await v.admin.post(`${v.base}/freeze`, { reason: 5 })).body.error).toBe('reason: must be a string');
    expect((await v.admin.post(`${v.base}/freeze`, { why: 'x' })).body.error).toBe('why: is not a field of this request (reason)');
    expect((await message()).status).toBe(200);
    const frozen = await v.admin.post(`${v.base}/freeze`, { reason: 'key may be stolen' });
    expect(frozen.body).toEqual({ success: true, data: { vault: v.vaultId, frozen: true, freezes: 1 } });
    const refused = await message();
    expect([refused.status, refused.body.code]).toEqual([403, 'VAULT_FROZEN']);
    expect((await v.admin.post(`${v.base}/freeze`, {})).body.data.freezes).toBe(2);
    expect((await v.reader.get(`${v.base}/governance`)).body.data).toMatchObject({ frozen: true, freezes: 2, liftedFreezes: 0 });
    const trail = await s.server.vault.listAuditRecords.execute({ vaultId: v.vaultId, limit: 100 });
    expect(trail.filter((r) => r.action === 'vault.frozen').map((r) => r.details?.reason)).toEqual(['key may be stolen', null]);
  });

  it('a vault whose governance does not verify shows no proposals and takes no votes (503 GOVERNANCE_UNVERIFIED)', async () => {
    const v = await governedVault('tampered');
    const id = await v.propose();
    const db = new Database(path.join(s.dataDir, 'vault.db'));
    try {
      db.prepare('UPDATE sign_policies SET policy = ? WHERE vault_id = ?').run(JSON.stringify({ version: 2, rules: [{ id: 'all', effect: 'allow' }], limits: [] }), v.vaultId);
    } finally {
      db.close();
    }
    const list = await v.reader.get(`${v.base}/proposals`);
    expect([list.status, list.body.code]).toEqual([503, 'GOVERNANCE_UNVERIFIED']);
    expect((await v.approver.post(`${v.base}/proposals/${id}/approve`, { signature: `0x${'1'.repeat(130)}` })).body.code).toBe('GOVERNANCE_UNVERIFIED');
    const shown = (await v.reader.get(`${v.base}/governance`)).body.data;
    expect(shown.problem).toMatch(/policy row is not the policy of the state in force/);
  });
});
