import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlApprovalStore } from '../../adapters/persistence/sql/sql.approval-store.js';
import { SqlAuditLog } from '../../adapters/persistence/sql/sql.audit-log.js';
import { SqlSignatureLog } from '../../adapters/persistence/sql/sql.signature-log.js';
import { SqlWalletRepository } from '../../adapters/persistence/sql/sql.wallet-repository.js';
import type { NewApproval } from '../../src/ports/approval-store.port.js';
import type { AuditEvent } from '../../src/ports/audit-log.port.js';
import { aSignatureRecord, anAuditEvent } from '../../adapters/testing/fixtures.js';
import { describeEachDialect, type OpenedDatabase } from '../support/sql-dialects.js';
import { aVault } from '../support/wallet-mother.js';

/*
 * The FreezeFence (src/ports/freeze-fence.ts): a signing record is written under the freeze count its
 * sign was let through with, and the database counts the vault's freezes again in the record's own
 * transaction. A freeze added since (here: by another connection, as another instance or the CLI adds
 * one) refuses the record with VAULT_FROZEN and nothing of it is stored; its neighbours in the same batch
 * are stored; a freeze the sign already knew (its count in the fence) refuses nothing.
 */
describeEachDialect((d) => {
  let db: OpenedDatabase;
  let signatures: SqlSignatureLog;
  let audit: SqlAuditLog;
  let other: Awaited<ReturnType<OpenedDatabase['other']>>;

  beforeAll(async () => {
    db = await d.open();
    signatures = new SqlSignatureLog(db.sql);
    audit = new SqlAuditLog(db.sql);
    other = await db.other();
  });
  afterAll(async () => {
    await db?.cleanup();
  });

  /** A freeze row added through another connection: this process's seam is not told. */
  const freezeElsewhere = (vaultId: string) =>
    other.run('INSERT INTO vault_freezes (id, vault_id, reason, actor, created) VALUES ($1, $2, $3, $4, $5)', [randomUUID(), vaultId, null, 'operator', new Date()]);
  const record = (vaultId: string) => aSignatureRecord(0, { vaultId, submissionHash: `0x${randomBytes(32).toString('hex')}` });
  const issued = (vaultId: string, subject: string): AuditEvent => anAuditEvent({ action: 'signature.issued', vaultId, subject });
  const subjects = async (vaultId: string) => (await audit.list({ afterSeq: 0, limit: 1000, vaultId })).map((r) => r.subject);
  const codeOf = (p: Promise<unknown>) => p.then(() => null, (e: { code?: string }) => e.code ?? String(e));

  describe(`FreezeFence over ${d.name}`, () => {
    it('a signature record under a fence its vault still holds is stored; one under a fence a freeze broke is refused, nothing of it stored', async () => {
      const vaultId = randomUUID();
      const before = record(vaultId);
      await signatures.record(before, issued(vaultId, before.submissionHash), { vaultId, freezes: 0 });
      await freezeElsewhere(vaultId);
      const after = record(vaultId);
      expect(await codeOf(signatures.record(after, issued(vaultId, after.submissionHash), { vaultId, freezes: 0 }))).toBe('VAULT_FROZEN');
      expect(await signatures.find(vaultId, after.submissionHash)).toBeNull();
      expect(await subjects(vaultId)).toEqual([before.submissionHash]);
      // A sign that was let through knowing that freeze (lifted since) is not refused for it.
      const known = record(vaultId);
      await signatures.record(known, issued(vaultId, known.submissionHash), { vaultId, freezes: 1 });
      expect(await signatures.find(vaultId, known.submissionHash)).not.toBeNull();
    });

    it('in one batch, only the frozen vault\'s records are refused: the other vault\'s are stored, chained as usual', async () => {
      const [frozen, open] = [randomUUID(), randomUUID()];
      await freezeElsewhere(frozen);
      const [a, b, c] = [record(frozen), record(open), record(open)];
      // Submitted in the same turn: one batch (group commit).
      const codes = await Promise.all([a, b, c].map((r) => codeOf(signatures.record(r, issued(r.vaultId, r.submissionHash), { vaultId: r.vaultId, freezes: 0 }))));
      expect(codes).toEqual(['VAULT_FROZEN', null, null]);
      expect(await signatures.find(frozen, a.submissionHash)).toBeNull();
      expect(await subjects(frozen)).toEqual([]);
      expect(await subjects(open)).toEqual([b.submissionHash, c.submissionHash]);
      const chain = await audit.list({ afterSeq: 0, limit: 10_000 });
      expect(chain.map((r) => r.seq)).toEqual(chain.map((_, i) => i + 1));
    });

    it('an audit append under a broken fence (a message, typed data or transaction signature) is refused; one without a fence is not', async () => {
      const vaultId = randomUUID();
      await freezeElsewhere(vaultId);
      expect(await codeOf(audit.append(anAuditEvent({ action: 'sign.message', vaultId, subject: 'refused' }), { vaultId, freezes: 0 }))).toBe('VAULT_FROZEN');
      await audit.append(anAuditEvent({ action: 'sign.denied', vaultId, subject: 'recorded' }));
      expect(await subjects(vaultId)).toEqual(['recorded']);
    });

    it('a release under a broken fence writes nothing: no signature, no records, the approval still pending', async () => {
      const repo = new SqlWalletRepository(db.sql);
      const vault = aVault();
      await repo.ensureAccount(vault.accountId, new Date());
      await repo.insertVault(vault);
      const keyId = randomBytes(8).toString('hex');
      await repo.insertApiKey({ id: keyId, vaultId: vault.id, secretHash: randomBytes(32).toString('hex'), created: new Date(0), revoked: null, roles: ['approver'], allowCidrs: null });
      const approvals = new SqlApprovalStore(db.sql);
      const now = new Date();
      const approval: NewApproval = {
        id: randomUUID(), vaultId: vault.id, ruleId: 'a1', required: 1, group: null, requester: 'requester1', request: '{}', requestHash: 'ab'.repeat(32),
        idempotencyKey: null, chain: 'local', contract: aSignatureRecord(0).contract, sender: aSignatureRecord(0).sender, selector: '0x12345678',
        functionSignature: 'f()', created: now, expires: new Date(now.getTime() + 3_600_000),
      };
      const event = (action: AuditEvent['action'], subject: string): AuditEvent => ({ action, at: now, actor: 'api-key:x', vaultId: vault.id, subject, details: { approval: approval.id } });
      await approvals.create(approval, event('approval.requested', approval.id));
      await approvals.vote(vault.id, approval.id, { apiKeyId: keyId, vote: 'approve', at: now }, () => [event('approval.voted', approval.id)]);
      expect(await approvals.claimRelease(vault.id, approval.id, 't', now, new Date(now.getTime() + 60_000))).toBe(true);
      await freezeElsewhere(vault.id);
      const signature = record(vault.id);
      const written = [event('signature.issued', signature.submissionHash), event('approval.decided', approval.id)];
      expect(await codeOf(approvals.release(vault.id, approval.id, 't', now, signature, '{}', written, { vaultId: vault.id, freezes: 0 }))).toBe('VAULT_FROZEN');
      expect(await signatures.find(vault.id, signature.submissionHash)).toBeNull();
      expect(await approvals.find(vault.id, approval.id)).toMatchObject({ status: 'pending' });
      expect(await subjects(vault.id)).toEqual([approval.id, approval.id]);
    });
  });
});
