import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import type { Vault } from '../../lib/index.js';
import type { Approval } from '../../src/domain/approval.js';
import type { Principal } from '../../src/application/access/principal.js';
import { MovableClock } from '../support/movable-clock.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { approveDecision, heldMessage, openStore, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];

/*
 * A held request's row is sealed by its wallet's key when it is held (docs/security.md, "What a database
 * writer can change", `approvals.requester`, `approvals.expires`): who asked and until when votes are taken
 * are the key's word, checked by an approve vote and again at the release. Each attack is the database
 * writer's SQL; on a release before seals each of them released the request.
 */
describe.each(DIALECTS)('the seal of a held request on %s', (dialect) => {
  let store: Store;
  let vault: Vault;
  const clock = new MovableClock();
  const person = Wallet.createRandom();
  let vaultId: string;
  let wallet: string;
  let approver: Principal;

  const signerKey = async (): Promise<Principal> => {
    const { record } = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer'] });
    return { apiKeyId: record.id, vaultId, roles: record.roles };
  };
  const approve = async (approval: Approval) =>
    vault.voteOnApproval.execute({ principal: approver, id: approval.id, vote: 'approve', signature: await approveDecision(person, approval) });
  const codeOf = (p: Promise<unknown>) => p.then(() => 'approved', (e: { code?: string }) => e.code);
  const trail = async (action: string) => (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === action);
  /** Whether anything was signed for `approval`: a released message's approval.decided, and its result. */
  const released = async (approval: Approval) => ({
    decided: (await trail('approval.decided')).filter((r) => r.subject === approval.id).length,
    status: (await vault.getApproval.execute(vaultId, approval.id)).status,
  });

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open({ clock });
    ({ id: vaultId } = await vault.manageVaults.create({ name: 'sealed holds' }));
    const asker = await signerKey();
    wallet = (await vault.createWallet.execute({ principal: asker, name: 'treasury' })).address;
    await vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [{ id: 'one-eye', effect: { hold: { required: 1, expiresIn: '1h' } }, kinds: ['message'] }],
      limits: [],
    });
    const { record } = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], approverAddress: person.address });
    approver = { apiKeyId: record.id, vaultId, roles: record.roles, approverAddress: person.address };
  });
  afterAll(async () => {
    await store?.close();
  });

  it('untouched, a sealed request is released by its quorum', async () => {
    const approval = await heldMessage(vault, await signerKey(), wallet, 'pay the rent');
    expect(approval.seal).toMatch(/^0x[0-9a-f]{130}$/);
    expect((await approve(approval)).status).toBe('approved');
  });

  it('attack: the asking key revoked, the row pointed at another key by SQL: the approve is refused (APPROVAL_RECORD_INVALID), nothing signed, the refusal recorded', async () => {
    const asker = await signerKey();
    const other = await signerKey();
    const approval = await heldMessage(vault, asker, wallet, 'pay 1000 ETH');
    await vault.manageVaults.revokeApiKey(asker.apiKeyId);
    await store.sql('UPDATE approvals SET requester = $1 WHERE id = $2', [other.apiKeyId, approval.id]);
    await expect(approve(approval)).rejects.toMatchObject({
      code: 'APPROVAL_RECORD_INVALID',
      message: expect.stringMatching(/its row does not carry the seal its wallet made when it was held .*it is never released/),
    });
    expect(await released(approval)).toEqual({ decided: 0, status: 'pending' });
    expect((await trail('auth.refused')).filter((r) => r.details.approval === approval.id)).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ reason: 'approval row not sealed by its wallet' }) }),
    ]);
    // Set back, the row's own requester is revoked: still nothing signed.
    await store.sql('UPDATE approvals SET requester = $1 WHERE id = $2', [asker.apiKeyId, approval.id]);
    await expect(approve(approval)).rejects.toMatchObject({ code: 'POLICY_DENIED', message: expect.stringMatching(/is revoked; it is not signed/) });
  });

  it('attack: an expired request given a later expiry by SQL: the approve is refused, nothing signed', async () => {
    const approval = await heldMessage(vault, await signerKey(), wallet, 'pay the old invoice');
    clock.advance(2 * 60 * 60 * 1000);
    const later = dialect === 'postgres' ? new Date(clock.now().getTime() + 3_600_000) : clock.now().getTime() + 3_600_000;
    await store.sql('UPDATE approvals SET expires = $1 WHERE id = $2', [later, approval.id]);
    expect(await codeOf(approve(approval))).toBe('APPROVAL_RECORD_INVALID');
    expect((await released(approval)).decided).toBe(0);
  });

  it('attack: an approval row copied by SQL under a new id (its seal, request and votes to come with it): refused', async () => {
    const approval = await heldMessage(vault, await signerKey(), wallet, 'pay once');
    const copy = '0a0a0a0a-0a0a-4a0a-8a0a-0a0a0a0a0a0a';
    const columns = 'vault_id, status, rule_id, required, approver_group, approvals, requester, request, request_hash, chain, contract, sender, selector, function_signature, created, expires, simulation, seal';
    await store.sql(`INSERT INTO approvals (id, ${columns}) SELECT $1, ${columns} FROM approvals WHERE id = $2`, [copy, approval.id]);
    expect(await codeOf(approve({ ...approval, id: copy }))).toBe('APPROVAL_RECORD_INVALID');
    expect((await released({ ...approval, id: copy })).decided).toBe(0);
  });

  it('a request whose seal is gone (held by a release before seals, or cleared by SQL) is never released; a reject still ends it', async () => {
    const approval = await heldMessage(vault, await signerKey(), wallet, 'pay the contractor');
    await store.sql('UPDATE approvals SET seal = NULL WHERE id = $1', [approval.id]);
    await expect(approve(approval)).rejects.toMatchObject({ code: 'APPROVAL_RECORD_INVALID', message: expect.stringMatching(/or it was held by a release before seals/) });
    const t = (await import('../../src/domain/signed-decisions.js')).decisionTypedData(approval.vaultId, approval.id, approval.requestHash, 'reject');
    const rejected = await vault.voteOnApproval.execute({ principal: approver, id: approval.id, vote: 'reject', signature: await person.signTypedData(t.domain, { ...t.types } as never, t.message) });
    expect(rejected.status).toBe('rejected');
  });
});
