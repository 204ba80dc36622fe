import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval } from '../../src/domain/approval.js';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import type { ApiKeyStore } from '../../src/ports/api-key-store.port.js';
import type { ApprovalStore, NewApproval } from '../../src/ports/approval-store.port.js';
import type { AuditEvent, AuditLog } from '../../src/ports/audit-log.port.js';
import type { SignatureLog } from '../../src/ports/signature-log.port.js';
import { aSignatureRecord, randomAddress } from './fixtures.js';

export interface ApprovalStoreFixture {
  /** Two stores on the same storage (two connections, as two instances would have; or one twice). */
  readonly stores: readonly [ApprovalStore, ApprovalStore];
  /** Where released signatures and the audit records land (the same storage). */
  readonly signatureLog: SignatureLog;
  readonly auditLog: AuditLog;
  /** A stored vault (approvals name their vault). */
  newVault(): Promise<string>;
  /** The API keys on the same storage: only votes of keys still valid approvers count. */
  readonly apiKeys: Pick<ApiKeyStore, 'insertApiKey' | 'revokeApiKey'>;
  cleanup(): Promise<void>;
}

const T0 = new Date('2026-06-01T00:00:00Z').getTime();
const at = (ms: number) => new Date(T0 + ms);
const HOUR = 3_600_000;

const anApproval = (vaultId: string, o: Partial<NewApproval> = {}): NewApproval => ({
  id: randomUUID(),
  vaultId,
  ruleId: 'a1',
  required: 2,
  group: null,
  requester: 'requester1',
  request: JSON.stringify({ chain: 'local' }),
  requestHash: 'ab'.repeat(32),
  idempotencyKey: null,
  chain: 'local',
  contract: randomAddress(),
  sender: randomAddress(),
  selector: '0x12345678',
  functionSignature: 'f(uint256,(bytes32,bytes32,bytes32,uint8))',
  created: at(0),
  expires: at(24 * HOUR),
  ...o,
});
const event = (action: AuditEvent['action'], a: Pick<Approval, 'id' | 'vaultId'>, details: AuditEvent['details'] = {}): AuditEvent => ({
  action,
  at: at(0),
  actor: 'api-key:x',
  vaultId: a.vaultId,
  subject: a.id,
  details: { approval: a.id, ...details },
});

/** What every approval store must do: the request whole, one vote per key, one release, every step on record. */
export function describeApprovalStoreContract(name: string, make: () => Promise<ApprovalStoreFixture>): void {
  describe(`ApprovalStore contract: ${name}`, () => {
    let f: ApprovalStoreFixture;
    beforeAll(async () => {
      f = await make();
    });
    afterAll(async () => {
      await f?.cleanup();
    });
    /** A stored key of the vault (an approver key unless `roles` says otherwise), its id. */
    const approver = async (vaultId: string, o: { roles?: readonly ApiKeyRole[]; group?: string; approverAddress?: string } = {}) => {
      const id = randomBytes(8).toString('hex');
      const roles = o.roles ?? ['approver'];
      await f.apiKeys.insertApiKey({
        id, vaultId, secretHash: randomBytes(32).toString('hex'), created: at(0), revoked: null, roles, allowCidrs: null,
        ...(o.group ? { group: o.group } : {}),
        ...(o.approverAddress ? { approverAddress: o.approverAddress } : {}),
      });
      return id;
    };
    const actions = async (vaultId: string) => (await f.auditLog.list({ afterSeq: 0, limit: 1000, vaultId })).map((r) => [r.action, r.subject]);

    it('stores an approval with its approval.requested record, and finds it by id and by idempotency key, in its vault only', async () => {
      const [store] = f.stores;
      const vaultId = await f.newVault();
      const a = anApproval(vaultId, { idempotencyKey: 'k1', group: 'treasury' });
      const created = await store.create(a, event('approval.requested', a));
      expect(created).toMatchObject({ ...a, status: 'pending', approvals: 0, votes: [], result: null, decided: null });
      expect(await store.find(vaultId, a.id)).toEqual(created);
      expect(await store.findByIdempotencyKey(vaultId, 'k1')).toEqual(created);
      expect(await store.find(await f.newVault(), a.id)).toBeNull();
      // The key is bound: a second approval with it stores nothing.
      const twin = anApproval(vaultId, { idempotencyKey: 'k1' });
      expect(await store.create(twin, event('approval.requested', twin))).toBeNull();
      expect(await store.find(vaultId, twin.id)).toBeNull();
      expect(await actions(vaultId)).toEqual([['approval.requested', a.id]]);
    });

    it('counts one vote per key; a reject ends it; a vote after the end or the expiry is refused and not kept', async () => {
      const [store] = f.stores;
      const vaultId = await f.newVault();
      const [k1, k2, k3] = [await approver(vaultId), await approver(vaultId), await approver(vaultId)];
      const a = anApproval(vaultId, { required: 3 });
      await store.create(a, event('approval.requested', a));
      const voted = (approval: Approval) => [event('approval.voted', approval, { approvals: approval.approvals })];
      const first = await store.vote(vaultId, a.id, { apiKeyId: k1, vote: 'approve', at: at(1000) }, voted);
      expect(first).toMatchObject({ kind: 'recorded', approval: { approvals: 1, status: 'pending', votes: [{ apiKeyId: k1, vote: 'approve', at: at(1000) }] } });
      expect(await store.vote(vaultId, a.id, { apiKeyId: k1, vote: 'approve', at: at(2000) }, voted)).toEqual({ kind: 'already-voted' });
      expect(await store.vote(vaultId, a.id, { apiKeyId: k1, vote: 'reject', at: at(2000) }, voted)).toEqual({ kind: 'already-voted' });
      const rejected = await store.vote(vaultId, a.id, { apiKeyId: k2, vote: 'reject', at: at(3000) }, (x) => [...voted(x), event('approval.decided', x, { status: x.status })]);
      expect(rejected).toMatchObject({ kind: 'recorded', approval: { approvals: 1, status: 'rejected', decided: at(3000) } });
      expect(await store.vote(vaultId, a.id, { apiKeyId: k3, vote: 'approve', at: at(4000) }, voted)).toEqual({ kind: 'closed' });
      expect((await store.find(vaultId, a.id))!.votes.map((v) => v.apiKeyId)).toEqual([k1, k2]);
      const late = anApproval(vaultId, { expires: at(HOUR) });
      await store.create(late, event('approval.requested', late));
      expect(await store.vote(vaultId, late.id, { apiKeyId: k1, vote: 'approve', at: at(HOUR) }, voted)).toEqual({ kind: 'closed' });
      expect((await store.find(vaultId, late.id))!.votes).toEqual([]);
      expect((await actions(vaultId)).map(([action]) => action)).toEqual([
        'approval.requested',
        'approval.voted',
        'approval.voted',
        'approval.decided',
        'approval.requested',
      ]);
    });

    it('concurrent votes of distinct keys on two connections are all counted', async () => {
      const vaultId = await f.newVault();
      const a = anApproval(vaultId, { required: 10 });
      await f.stores[0].create(a, event('approval.requested', a));
      const keys = await Promise.all(Array.from({ length: 8 }, () => approver(vaultId)));
      await Promise.all(keys.map((k, i) => f.stores[i % 2]!.vote(vaultId, a.id, { apiKeyId: k, vote: 'approve', at: at(1000 + i) }, (x) => [event('approval.voted', x)])));
      expect((await f.stores[0].find(vaultId, a.id))!.approvals).toBe(8);
    });

    it('counts, at every read and at the claim, only approve votes of keys still unrevoked, still approvers, of the group: a vote of a key revoked after voting counts for nothing', async () => {
      const [store] = f.stores;
      const vaultId = await f.newVault();
      const treasury = () => approver(vaultId, { group: 'treasury' });
      const [k1, k2, k3] = [await treasury(), await treasury(), await treasury()];
      const signer = await approver(vaultId, { roles: ['signer', 'reader'], group: 'treasury' });
      const elsewhere = await approver(vaultId, { group: 'ops' });
      const noGroup = await approver(vaultId);
      const otherVault = await approver(await f.newVault(), { group: 'treasury' });
      const a = anApproval(vaultId, { required: 2, group: 'treasury' });
      await store.create(a, event('approval.requested', a));
      const vote = (apiKeyId: string, ms: number) => store.vote(vaultId, a.id, { apiKeyId, vote: 'approve', at: at(ms) }, (x) => [event('approval.voted', x)]);
      // Keys the store cannot count (whatever the use case checked before them): no quorum, no claim.
      for (const [i, k] of [signer, elsewhere, noGroup, otherVault].entries()) expect(await vote(k, 1000 + i)).toMatchObject({ approval: { approvals: 0 } });
      expect(await store.claimRelease(vaultId, a.id, 't0', at(1500), at(1500 + HOUR))).toBe(false);
      expect(await vote(k1, 2000)).toMatchObject({ approval: { approvals: 1 } });
      expect(await f.apiKeys.revokeApiKey(k1, at(2500))).toBe(true);
      expect((await store.find(vaultId, a.id))!.approvals).toBe(0);
      // Two votes cast by approvers, one of them revoked since: one counts, nothing is released.
      expect(await vote(k2, 3000)).toMatchObject({ approval: { approvals: 1, votes: expect.arrayContaining([expect.objectContaining({ apiKeyId: k1 })]) } });
      expect(await store.claimRelease(vaultId, a.id, 't1', at(3500), at(3500 + HOUR))).toBe(false);
      expect(await vote(k3, 4000)).toMatchObject({ approval: { approvals: 2 } });
      expect((await store.list(vaultId, { now: at(4000), offset: 0, count: 10 })).page.map((x) => x.approvals)).toEqual([2]);
      expect(await store.claimRelease(vaultId, a.id, 't2', at(4500), at(4500 + HOUR))).toBe(true);
    });

    it('keeps each vote\'s signature; countedVotes answers the votes the quorum counts, each with its signature and its key\'s approver address now', async () => {
      const [store, other] = f.stores;
      const vaultId = await f.newVault();
      const address = randomAddress();
      const [signed, legacy, revoked] = [await approver(vaultId, { approverAddress: address }), await approver(vaultId), await approver(vaultId, { approverAddress: randomAddress() })];
      const rejecter = await approver(vaultId);
      const a = anApproval(vaultId, { required: 3 });
      await store.create(a, event('approval.requested', a));
      const signature = `0x${'1b'.repeat(65)}`;
      const vote = (apiKeyId: string, ms: number, sig?: string) =>
        store.vote(vaultId, a.id, { apiKeyId, vote: 'approve', at: at(ms), ...(sig ? { signature: sig } : {}) }, (x) => [event('approval.voted', x)]);
      await vote(signed, 1000, signature);
      await vote(legacy, 2000);
      await vote(revoked, 3000, signature);
      expect(await f.apiKeys.revokeApiKey(revoked, at(3500))).toBe(true);
      const read = (await other.find(vaultId, a.id))!;
      expect(read.votes).toEqual([
        { apiKeyId: signed, vote: 'approve', at: at(1000), signature },
        { apiKeyId: legacy, vote: 'approve', at: at(2000) },
        { apiKeyId: revoked, vote: 'approve', at: at(3000), signature },
      ]);
      expect(await other.countedVotes(vaultId, a.id)).toEqual([
        { apiKeyId: signed, signature, approverAddress: address, group: null },
        { apiKeyId: legacy, signature: null, approverAddress: null, group: null },
      ]);
      // Another vault's id answers nothing; a reject is not counted.
      expect(await other.countedVotes(await f.newVault(), a.id)).toEqual([]);
      await store.vote(vaultId, a.id, { apiKeyId: rejecter, vote: 'reject', at: at(4000) }, (x) => [event('approval.voted', x)]);
      expect((await other.countedVotes(vaultId, a.id)).map((v) => v.apiKeyId)).toEqual([signed, legacy]);
    });

    it('counts an approver once: two keys of one approver address (any case) are one approval, at every read and at the claim', async () => {
      const [store, other] = f.stores;
      const vaultId = await f.newVault();
      const address = randomAddress();
      const [first, twin, noAddress] = [await approver(vaultId, { approverAddress: address }), await approver(vaultId, { approverAddress: address.toLowerCase() }), await approver(vaultId)];
      const a = anApproval(vaultId, { required: 2 });
      await store.create(a, event('approval.requested', a));
      const vote = (apiKeyId: string, ms: number) => store.vote(vaultId, a.id, { apiKeyId, vote: 'approve', at: at(ms) }, (x) => [event('approval.voted', x)]);
      expect(await vote(first, 1000)).toMatchObject({ approval: { approvals: 1 } });
      expect(await vote(twin, 2000)).toMatchObject({ approval: { approvals: 1 } });
      expect((await other.find(vaultId, a.id))!.approvals).toBe(1);
      expect(await store.claimRelease(vaultId, a.id, 't1', at(2500), at(2500 + HOUR))).toBe(false);
      // Both votes are kept, and countedVotes answers both: the release judges each one.
      expect((await other.countedVotes(vaultId, a.id)).map((v) => v.apiKeyId)).toEqual([first, twin]);
      expect(await vote(noAddress, 3000)).toMatchObject({ approval: { approvals: 2 } });
      expect(await store.claimRelease(vaultId, a.id, 't2', at(3500), at(3500 + HOUR))).toBe(true);
    });

    it('a key revoked between the claim and the release takes the quorum with it: the release writes nothing', async () => {
      const vaultId = await f.newVault();
      const k1 = await approver(vaultId);
      const a = anApproval(vaultId, { required: 1 });
      const [one] = f.stores;
      await one.create(a, event('approval.requested', a));
      await one.vote(vaultId, a.id, { apiKeyId: k1, vote: 'approve', at: at(1000) }, (x) => [event('approval.voted', x)]);
      expect(await one.claimRelease(vaultId, a.id, 't', at(2000), at(2000 + HOUR))).toBe(true);
      await f.apiKeys.revokeApiKey(k1, at(2500));
      const signature = aSignatureRecord(3, { vaultId, created: at(3000), submissionHash: `0x${randomBytes(32).toString('hex')}` });
      expect(await one.release(vaultId, a.id, 't', at(3000), signature, '{}', [event('approval.decided', a, { status: 'approved' })])).toBe(false);
      expect(await f.signatureLog.find(vaultId, signature.submissionHash)).toBeNull();
      expect(await one.find(vaultId, a.id)).toMatchObject({ status: 'pending', approvals: 0, result: null });
    });

    it('gives the release to one claimer; only its release writes the signature, the result and the records', async () => {
      const vaultId = await f.newVault();
      const k1 = await approver(vaultId);
      const a = anApproval(vaultId, { required: 1 });
      const [one, two] = f.stores;
      await one.create(a, event('approval.requested', a));
      // No quorum, no claim.
      expect(await one.claimRelease(vaultId, a.id, 'early', at(500), at(500 + HOUR))).toBe(false);
      await one.vote(vaultId, a.id, { apiKeyId: k1, vote: 'approve', at: at(1000) }, (x) => [event('approval.voted', x)]);
      const claims = await Promise.all(['t1', 't2', 't3', 't4'].map((t, i) => [one, two][i % 2]!.claimRelease(vaultId, a.id, t, at(2000), at(2000 + 120_000))));
      expect(claims.filter(Boolean)).toHaveLength(1);
      const winner = ['t1', 't2', 't3', 't4'][claims.indexOf(true)]!;
      const loser = winner === 't1' ? 't2' : 't1';
      const signature = aSignatureRecord(1, { vaultId, created: at(3000), submissionHash: `0x${randomBytes(32).toString('hex')}` });
      const records = [event('signature.issued', { id: signature.submissionHash, vaultId }), event('approval.decided', a, { status: 'approved' })];
      expect(await two.release(vaultId, a.id, loser, at(3000), signature, '{"submissionHash":"x","args":[]}', records)).toBe(false);
      expect(await f.signatureLog.find(vaultId, signature.submissionHash)).toBeNull();
      expect(await one.release(vaultId, a.id, winner, at(3000), signature, '{"submissionHash":"x","args":[]}', records)).toBe(true);
      expect(await f.signatureLog.find(vaultId, signature.submissionHash)).toMatchObject({ submissionHash: signature.submissionHash });
      expect(await one.find(vaultId, a.id)).toMatchObject({ status: 'approved', decided: at(3000), result: '{"submissionHash":"x","args":[]}' });
      expect((await actions(vaultId)).slice(-2)).toEqual([
        ['signature.issued', signature.submissionHash],
        ['approval.decided', a.id],
      ]);
      // Done: no second claim, no second release.
      expect(await two.claimRelease(vaultId, a.id, 't5', at(10 * HOUR), at(11 * HOUR))).toBe(false);
    });

    it('releases a standard request without a signature row: the result and the records only', async () => {
      const vaultId = await f.newVault();
      const k1 = await approver(vaultId);
      const a = anApproval(vaultId, { required: 1 });
      const [one] = f.stores;
      await one.create(a, event('approval.requested', a));
      await one.vote(vaultId, a.id, { apiKeyId: k1, vote: 'approve', at: at(1000) }, (x) => [event('approval.voted', x)]);
      expect(await one.claimRelease(vaultId, a.id, 't', at(2000), at(2000 + HOUR))).toBe(true);
      const records = [event('sign.message', { id: a.id, vaultId }), event('approval.decided', a, { status: 'approved' })];
      expect(await one.release(vaultId, a.id, 't', at(3000), null, '{"signature":"0x01"}', records)).toBe(true);
      expect(await one.find(vaultId, a.id)).toMatchObject({ status: 'approved', result: '{"signature":"0x01"}' });
      expect((await actions(vaultId)).slice(-2)).toEqual([
        ['sign.message', a.id],
        ['approval.decided', a.id],
      ]);
    });

    it('a claim given back or past its lease can be taken again', async () => {
      const vaultId = await f.newVault();
      const k1 = await approver(vaultId);
      const a = anApproval(vaultId, { required: 1 });
      const [one, two] = f.stores;
      await one.create(a, event('approval.requested', a));
      await one.vote(vaultId, a.id, { apiKeyId: k1, vote: 'approve', at: at(1000) }, (x) => [event('approval.voted', x)]);
      expect(await one.claimRelease(vaultId, a.id, 't1', at(2000), at(62_000))).toBe(true);
      expect(await two.claimRelease(vaultId, a.id, 't2', at(3000), at(63_000))).toBe(false);
      await one.abandonRelease(vaultId, a.id, 't1');
      expect(await two.claimRelease(vaultId, a.id, 't2', at(4000), at(64_000))).toBe(true);
      expect(await one.claimRelease(vaultId, a.id, 't3', at(64_000), at(124_000))).toBe(true);
      // The first claimer's lease passed and another took it: its release writes nothing.
      expect(await two.release(vaultId, a.id, 't2', at(65_000), aSignatureRecord(2, { vaultId, submissionHash: `0x${randomBytes(32).toString('hex')}` }), '{}', [])).toBe(false);
    });

    it('a claim given back with why records blockedBy, seen by every instance; given back without keeps it; the release clears it', async () => {
      const vaultId = await f.newVault();
      const k1 = await approver(vaultId);
      const a = anApproval(vaultId, { required: 1 });
      const [one, two] = f.stores;
      expect((await one.create(a, event('approval.requested', a)))?.blockedBy).toBeNull();
      await one.vote(vaultId, a.id, { apiKeyId: k1, vote: 'approve', at: at(1000) }, (x) => [event('approval.voted', x)]);
      const blocked = { reason: 'limit', code: 'SIGN_LIMIT_REACHED', message: 'limit daily: 1 sign per 1d', at: at(2500) } as const;
      expect(await one.claimRelease(vaultId, a.id, 't1', at(2000), at(62_000))).toBe(true);
      // Not the claimer's token: nothing is written.
      await two.abandonRelease(vaultId, a.id, 'other', { ...blocked, reason: 'freeze' });
      await one.abandonRelease(vaultId, a.id, 't1', blocked);
      expect((await two.find(vaultId, a.id))?.blockedBy).toEqual(blocked);
      expect(await two.claimRelease(vaultId, a.id, 't2', at(3000), at(63_000))).toBe(true);
      await two.abandonRelease(vaultId, a.id, 't2');
      expect((await one.list(vaultId, { now: at(3000), offset: 0, count: 10 })).page.map((x) => x.blockedBy)).toEqual([blocked]);
      expect(await one.claimRelease(vaultId, a.id, 't3', at(4000), at(64_000))).toBe(true);
      expect(await one.release(vaultId, a.id, 't3', at(5000), null, '{"signature":"0x01"}', [event('approval.decided', a, { status: 'approved' })])).toBe(true);
      expect(await two.find(vaultId, a.id)).toMatchObject({ status: 'approved', blockedBy: null });
    });

    it('marks approvals past their expiry expired, each with its record, leaving a claimed release alone', async () => {
      const [store] = f.stores;
      const vaultId = await f.newVault();
      const k1 = await approver(vaultId);
      const due = anApproval(vaultId, { expires: at(HOUR) });
      const claimed = anApproval(vaultId, { expires: at(HOUR), required: 1 });
      const later = anApproval(vaultId, { expires: at(5 * HOUR) });
      for (const x of [due, claimed, later]) await store.create(x, event('approval.requested', x));
      await store.vote(vaultId, claimed.id, { apiKeyId: k1, vote: 'approve', at: at(1000) }, (x) => [event('approval.voted', x)]);
      expect(await store.claimRelease(vaultId, claimed.id, 't', at(HOUR - 1000), at(HOUR + 60_000))).toBe(true);
      const expired = await store.expire(at(HOUR), 100, (x) => event('approval.decided', x, { status: 'expired' }));
      expect(expired.filter((x) => x.vaultId === vaultId).map((x) => [x.id, x.status, x.decided])).toEqual([[due.id, 'expired', at(HOUR)]]);
      expect((await store.find(vaultId, due.id))!.status).toBe('expired');
      expect((await store.find(vaultId, later.id))!.status).toBe('pending');
      const pending = await store.list(vaultId, { status: 'pending', now: at(HOUR), offset: 0, count: 10 });
      expect(pending.page.map((x) => x.id)).toEqual([later.id]);
      // Pending past its expiry (the claimed one) lists as expired, with the marked one.
      expect((await store.list(vaultId, { status: 'expired', now: at(HOUR), offset: 0, count: 10 })).count).toBe(2);
      expect((await store.list(vaultId, { now: at(HOUR), offset: 1, count: 1 })).page).toHaveLength(1);
    });
  });
}
