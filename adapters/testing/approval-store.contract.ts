import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval } from '../../src/domain/approval.js';
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
      const a = anApproval(vaultId, { required: 3 });
      await store.create(a, event('approval.requested', a));
      const voted = (approval: Approval) => [event('approval.voted', approval, { approvals: approval.approvals })];
      const first = await store.vote(vaultId, a.id, { apiKeyId: 'k1', vote: 'approve', at: at(1000) }, voted);
      expect(first).toMatchObject({ kind: 'recorded', approval: { approvals: 1, status: 'pending', votes: [{ apiKeyId: 'k1', vote: 'approve', at: at(1000) }] } });
      expect(await store.vote(vaultId, a.id, { apiKeyId: 'k1', vote: 'approve', at: at(2000) }, voted)).toEqual({ kind: 'already-voted' });
      expect(await store.vote(vaultId, a.id, { apiKeyId: 'k1', vote: 'reject', at: at(2000) }, voted)).toEqual({ kind: 'already-voted' });
      const rejected = await store.vote(vaultId, a.id, { apiKeyId: 'k2', vote: 'reject', at: at(3000) }, (x) => [...voted(x), event('approval.decided', x, { status: x.status })]);
      expect(rejected).toMatchObject({ kind: 'recorded', approval: { approvals: 1, status: 'rejected', decided: at(3000) } });
      expect(await store.vote(vaultId, a.id, { apiKeyId: 'k3', vote: 'approve', at: at(4000) }, voted)).toEqual({ kind: 'closed' });
      expect((await store.find(vaultId, a.id))!.votes.map((v) => v.apiKeyId)).toEqual(['k1', 'k2']);
      const late = anApproval(vaultId, { expires: at(HOUR) });
      await store.create(late, event('approval.requested', late));
      expect(await store.vote(vaultId, late.id, { apiKeyId: 'k1', vote: 'approve', at: at(HOUR) }, voted)).toEqual({ kind: 'closed' });
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
      const keys = Array.from({ length: 8 }, (_, i) => `key${i}`);
      await Promise.all(keys.map((k, i) => f.stores[i % 2]!.vote(vaultId, a.id, { apiKeyId: k, vote: 'approve', at: at(1000 + i) }, (x) => [event('approval.voted', x)])));
      expect((await f.stores[0].find(vaultId, a.id))!.approvals).toBe(8);
    });

    it('gives the release to one claimer; only its release writes the signature, the result and the records', async () => {
      const vaultId = await f.newVault();
      const a = anApproval(vaultId, { required: 1 });
      const [one, two] = f.stores;
      await one.create(a, event('approval.requested', a));
      // No quorum, no claim.
      expect(await one.claimRelease(vaultId, a.id, 'early', at(500), at(500 + HOUR))).toBe(false);
      await one.vote(vaultId, a.id, { apiKeyId: 'k1', vote: 'approve', at: at(1000) }, (x) => [event('approval.voted', x)]);
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

    it('a claim given back or past its lease can be taken again', async () => {
      const vaultId = await f.newVault();
      const a = anApproval(vaultId, { required: 1 });
      const [one, two] = f.stores;
      await one.create(a, event('approval.requested', a));
      await one.vote(vaultId, a.id, { apiKeyId: 'k1', vote: 'approve', at: at(1000) }, (x) => [event('approval.voted', x)]);
      expect(await one.claimRelease(vaultId, a.id, 't1', at(2000), at(62_000))).toBe(true);
      expect(await two.claimRelease(vaultId, a.id, 't2', at(3000), at(63_000))).toBe(false);
      await one.abandonRelease(vaultId, a.id, 't1');
      expect(await two.claimRelease(vaultId, a.id, 't2', at(4000), at(64_000))).toBe(true);
      expect(await one.claimRelease(vaultId, a.id, 't3', at(64_000), at(124_000))).toBe(true);
      // The first claimer's lease passed and another took it: its release writes nothing.
      expect(await two.release(vaultId, a.id, 't2', at(65_000), aSignatureRecord(2, { vaultId, submissionHash: `0x${randomBytes(32).toString('hex')}` }), '{}', [])).toBe(false);
    });

    it('marks approvals past their expiry expired, each with its record, leaving a claimed release alone', async () => {
      const [store] = f.stores;
      const vaultId = await f.newVault();
      const due = anApproval(vaultId, { expires: at(HOUR) });
      const claimed = anApproval(vaultId, { expires: at(HOUR), required: 1 });
      const later = anApproval(vaultId, { expires: at(5 * HOUR) });
      for (const x of [due, claimed, later]) await store.create(x, event('approval.requested', x));
      await store.vote(vaultId, claimed.id, { apiKeyId: 'k1', vote: 'approve', at: at(1000) }, (x) => [event('approval.voted', x)]);
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
