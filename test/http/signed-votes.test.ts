import { Wallet } from 'ethers';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import { decisionTypedData, type DecisionKind } from '../../src/domain/signed-decisions.js';
import { describeEachBackend, type Target } from '../support/backends.js';
import { client } from '../support/http-client.js';
import { localSignBody, MINT_TO } from '../support/sign-request.js';
import { sqlSessionOn, type SqlSession } from '../support/sql-session.js';

/*
 * Votes are signatures (issue 35), played as the attacks: an approver key with a credential votes only
 * with its address's EIP-712 Decision, and at release the vault verifies every counted vote again from
 * the stored rows, so a vote a database writer inserted, copied or orphaned (by changing the key's
 * address) counts for nothing, on record. SQLite and PostgreSQL, through the standalone server.
 */
describeEachBackend(
  'votes are signatures',
  (backend) => {
    let s: Target;
    let sql: SqlSession;

    beforeAll(async () => {
      s = await backend.start();
      sql = await sqlSessionOn(s.dataDir, s.database?.url);
    });
    afterAll(async () => {
      await sql?.close();
      await s?.close();
    });

    /** An approver: its API key (with `wallet`'s address as credential unless `legacy`) and a signer of its Decisions. */
    interface Approver {
      readonly id: string;
      readonly api: ReturnType<typeof client>;
      readonly wallet: Wallet;
    }

    /** A vault with a wallet, a signer key, approvers with credentials (and legacy ones) and a 2-of-n rule. */
    const aHeldVault = async (name: string, o: { legacy?: number } = {}) => {
      const { vaultId, api, base } = await s.vaultWithKey(name);
      const signer: string = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address;
      const keyWith = async (roles: ApiKeyRole[], approverAddress?: string) => {
        const { apiKey, record } = await s.vault.manageVaults.createApiKey(vaultId, { roles, ...(approverAddress ? { approverAddress } : {}) });
        return { api: client(s.url, apiKey), id: record.id };
      };
      const requester = await keyWith(['signer']);
      const approverOf = async (legacy: boolean): Promise<Approver> => {
        const wallet = Wallet.createRandom() as unknown as Wallet;
        return { ...(await keyWith(['approver'], legacy ? undefined : wallet.address)), wallet };
      };
      const approvers = [await approverOf(false), await approverOf(false), await approverOf(false)];
      const legacy: Approver[] = [];
      for (let i = 0; i < (o.legacy ?? 0); i++) legacy.push(await approverOf(true));
      await s.vault.managePolicies.addApprovalRule(vaultId, { required: 2 });
      const hold = async (amount = '20000') => {
        const held = await requester.api.post(`${base}/sign`, localSignBody(signer, { args: [MINT_TO, amount] }));
        expect(held.status).toBe(202);
        return held.body.data.approval as { id: string; requestHash: string };
      };
      const typed = (approvalId: string, requestHash: string, decision: DecisionKind) => decisionTypedData(vaultId, approvalId, requestHash, decision);
      /** `who` signs the Decision with ethers (what an approver's wallet does) and posts it. */
      const vote = async (who: Approver, approvalId: string, decision: DecisionKind = 'approve') => {
        const read = await who.api.get(`${base}/approvals/${approvalId}`);
        const t = typed(approvalId, read.body.data.requestHash, decision);
        const signature = await who.wallet.signTypedData(t.domain, t.types as never, t.message);
        return who.api.post(`${base}/approvals/${approvalId}/${decision}`, { signature });
      };
      return { vaultId, base, requester, approvers, legacy, hold, typed, vote };
    };

    const trailOf = (vaultId: string) => s.vault.listAuditRecords.execute({ vaultId, limit: 1000 });
    const actions = async (vaultId: string, action: string) => (await trailOf(vaultId)).filter((r) => r.action === action);

    it('votes signed by ethers and by viem count; the approval shows its requestHash and each vote its signature', async () => {
      const v = await aHeldVault('ethers-viem');
      const approval = await v.hold();
      const read = await v.requester.api.get(`${v.base}/approvals/${approval.id}`);
      // The 0x form of sha256 over the stored request, as the Decision's bytes32 `request`.
      expect(read.body.data.requestHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(read.body.data.requestHash).toBe(approval.requestHash);

      const first = await v.vote(v.approvers[0]!, approval.id);
      expect([first.status, first.body.data?.status, first.body.data?.approvals]).toEqual([200, 'pending', 1]);
      expect(first.body.data.votes[0].signature).toMatch(/^0x[0-9a-f]{130}$/);

      const viem = privateKeyToAccount(v.approvers[1]!.wallet.privateKey as `0x${string}`);
      const t = v.typed(approval.id, approval.requestHash, 'approve');
      const signature = await viem.signTypedData({ domain: t.domain, types: t.types, primaryType: t.primaryType, message: t.message as never });
      const second = await v.approvers[1]!.api.post(`${v.base}/approvals/${approval.id}/approve`, { signature });
      expect([second.status, second.body.data?.status]).toEqual([200, 'approved']);
      expect(second.body.data.votes.map((x: { signature: string }) => x.signature)).toEqual([first.body.data.votes[0].signature, signature]);
      expect(await actions(v.vaultId, 'signature.issued')).toHaveLength(1);
      expect(await actions(v.vaultId, 'approval.vote-invalid')).toEqual([]);
    });

    it('a missing, malformed, wrong-signer or other-decision signature is 403 APPROVAL_SIGNATURE_INVALID, on record, and no vote is written', async () => {
      const v = await aHeldVault('refused');
      const approval = await v.hold();
      const [a, b] = v.approvers as [Approver, Approver];
      const url = `${v.base}/approvals/${approval.id}/approve`;
      const approveTyped = v.typed(approval.id, approval.requestHash, 'approve');
      const rejectTyped = v.typed(approval.id, approval.requestHash, 'reject');
      const attempts = {
        missing: await a.api.post(url),
        'empty body': await a.api.post(url, {}),
        malformed: await a.api.post(url, { signature: '0x1234' }),
        'another signer': await a.api.post(url, { signature: await b.wallet.signTypedData(approveTyped.domain, approveTyped.types as never, approveTyped.message) }),
        'the reject decision': await a.api.post(url, { signature: await a.wallet.signTypedData(rejectTyped.domain, rejectTyped.types as never, rejectTyped.message) }),
      };
      for (const [what, reply] of Object.entries(attempts)) expect([what, reply.status, reply.body.code]).toEqual([what, 403, 'APPROVAL_SIGNATURE_INVALID']);
      // A reject signed as approve is refused the same way, and ends nothing.
      const rejected = await a.api.post(`${v.base}/approvals/${approval.id}/reject`, { signature: await a.wallet.signTypedData(approveTyped.domain, approveTyped.types as never, approveTyped.message) });
      expect([rejected.status, rejected.body.code]).toEqual([403, 'APPROVAL_SIGNATURE_INVALID']);

      const read = await v.requester.api.get(`${v.base}/approvals/${approval.id}`);
      expect(read.body.data).toMatchObject({ status: 'pending', approvals: 0, votes: [] });
      const refusals = (await actions(v.vaultId, 'auth.refused')).filter((r) => r.details.operation === 'approval vote');
      expect(refusals).toHaveLength(6);
      expect(refusals.every((r) => r.actor === `api-key:${a.id}` && r.details.approval === approval.id)).toBe(true);
      expect(refusals[0]!.details.reason).toBe('vote no signature');
      expect(await actions(v.vaultId, 'approval.voted')).toEqual([]);
    });

    it('a body other than {"signature": "0x…"} is 400 naming the field', async () => {
      const v = await aHeldVault('bodies');
      const approval = await v.hold();
      const url = `${v.base}/approvals/${approval.id}/approve`;
      const notText = await v.approvers[0]!.api.post(url, { signature: 42 });
      expect([notText.status, notText.body.code, notText.body.error]).toEqual([400, 'INVALID_ARGUMENT', expect.stringMatching(/^signature: must be a string/)]);
      const extra = await v.approvers[0]!.api.post(url, { signature: '0x', vote: 'yes' });
      expect([extra.status, extra.body.error]).toEqual([400, 'vote: is not a field of a vote (signature)']);
      const array = await v.approvers[0]!.api.post(url, ['0x']);
      expect([array.status, array.body.error]).toEqual([400, 'body: must be a JSON object']);
    });

    it('a key without credential still votes without a body; attaching one makes its vote need a signature, also the vote it cast before', async () => {
      const v = await aHeldVault('legacy', { legacy: 2 });
      const approval = await v.hold();
      const [old, other] = v.legacy as [Approver, Approver];
      const first = await old.api.post(`${v.base}/approvals/${approval.id}/approve`);
      expect([first.status, first.body.data?.approvals]).toEqual([200, 1]);
      expect(first.body.data.votes[0].signature).toBeNull();

      // The operator migrates the key: from now on its unsigned vote counts for nothing at release.
      await s.vault.manageVaults.setApproverAddress(v.vaultId, old.id, old.wallet.address);
      const recorded = await actions(v.vaultId, 'api-key.credential-set');
      expect(recorded.map((r) => [r.subject, r.details.approverAddress, r.details.previous])).toEqual([[old.id, old.wallet.address, null]]);
      const second = await other.api.post(`${v.base}/approvals/${approval.id}/approve`);
      expect([second.status, second.body.data?.status]).toEqual([200, 'pending']);
      expect(await actions(v.vaultId, 'signature.issued')).toEqual([]);
      const invalid = await actions(v.vaultId, 'approval.vote-invalid');
      expect(invalid.map((r) => [r.subject, r.details.votes, r.details.valid, r.details.released])).toEqual([[approval.id, `api-key:${old.id}`, 1, false]]);

      // A signed vote of a key with a credential completes the quorum: two valid votes, one still invalid on record.
      const third = await v.vote(v.approvers[0]!, approval.id);
      expect([third.status, third.body.data?.status]).toEqual([200, 'approved']);
      expect((await actions(v.vaultId, 'approval.vote-invalid')).map((r) => r.details.released)).toEqual([false, true]);
    });

    describe('attacks with plain SQL on the database: each vote counts for nothing at release, and is on record', () => {
      it('a vote row inserted for a key with a credential (no signature)', async () => {
        const v = await aHeldVault('inserted');
        const approval = await v.hold();
        const [a, b, c] = v.approvers as [Approver, Approver, Approver];
        expect((await v.vote(a, approval.id)).body.data.approvals).toBe(1);
        // The quorum as SQL counts it: 2 of 2.
        expect(await sql.run(`INSERT INTO approval_votes (approval_id, api_key_id, vote, at) SELECT approval_id, ?, 'approve', at FROM approval_votes WHERE approval_id = ?`, [b.id, approval.id])).toBe(1);
        expect((await v.requester.api.get(`${v.base}/approvals/${approval.id}`)).body.data.approvals).toBe(2);
        // An approver's call retries the release: it finds b's vote unsigned and signs nothing.
        const retry = await v.vote(a, approval.id);
        expect([retry.status, retry.body.data?.status]).toEqual([200, 'pending']);
        expect(await actions(v.vaultId, 'signature.issued')).toEqual([]);
        const [invalid] = await actions(v.vaultId, 'approval.vote-invalid');
        expect(invalid).toMatchObject({ subject: approval.id, details: { approval: approval.id, votes: `api-key:${b.id}`, valid: 1, required: 2, released: false } });
        // A real second vote releases it.
        expect((await v.vote(c, approval.id)).body.data.status).toBe('approved');
        expect(await actions(v.vaultId, 'signature.issued')).toHaveLength(1);
      });

      it('a vote with its signature copied from another approval', async () => {
        const v = await aHeldVault('copied');
        const [a, b] = v.approvers as [Approver, Approver];
        const first = await v.hold('20000');
        const second = await v.hold('30000');
        expect((await v.vote(a, first.id)).status).toBe(200);
        expect(
          await sql.run(`INSERT INTO approval_votes (approval_id, api_key_id, vote, at, signature) SELECT ?, api_key_id, vote, at, signature FROM approval_votes WHERE approval_id = ?`, [second.id, first.id]),
        ).toBe(1);
        const completing = await v.vote(b, second.id);
        expect([completing.status, completing.body.data?.status, completing.body.data?.approvals]).toEqual([200, 'pending', 2]);
        expect(await actions(v.vaultId, 'signature.issued')).toEqual([]);
        const invalid = await actions(v.vaultId, 'approval.vote-invalid');
        expect(invalid.map((r) => [r.subject, r.details.votes, r.details.valid])).toEqual([[second.id, `api-key:${a.id}`, 1]]);
      });

      it("the key's approver address changed after its vote", async () => {
        const v = await aHeldVault('readdressed');
        const [a, b] = v.approvers as [Approver, Approver];
        const approval = await v.hold();
        expect((await v.vote(a, approval.id)).status).toBe(200);
        expect(await sql.run('UPDATE api_keys SET approver_address = ? WHERE id = ?', [Wallet.createRandom().address, a.id])).toBe(1);
        const completing = await v.vote(b, approval.id);
        expect([completing.status, completing.body.data?.status]).toEqual([200, 'pending']);
        expect(await actions(v.vaultId, 'signature.issued')).toEqual([]);
        expect((await actions(v.vaultId, 'approval.vote-invalid')).map((r) => r.details.votes)).toEqual([`api-key:${a.id}`]);
      });

      it('the stored request changed after the votes: no vote counts', async () => {
        const v = await aHeldVault('rewritten');
        const [a, b] = v.approvers as [Approver, Approver];
        const approval = await v.hold('20000');
        expect((await v.vote(a, approval.id)).status).toBe(200);
        const rewritten = await sql.run("UPDATE approvals SET request = replace(request, '20000', '90000') WHERE id = ?", [approval.id]);
        expect(rewritten).toBe(1);
        const completing = await v.vote(b, approval.id);
        expect([completing.status, completing.body.data?.status]).toEqual([200, 'pending']);
        expect(await actions(v.vaultId, 'signature.issued')).toEqual([]);
        const [invalid] = await actions(v.vaultId, 'approval.vote-invalid');
        expect(invalid!.details).toMatchObject({ reason: 'stored request does not hash to its requestHash', valid: 0, released: false });
      });
    });
  },
  { shell: 'standalone' },
);
