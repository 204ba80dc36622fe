import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import type { Vault } from '../../lib/index.js';
import type { Approval } from '../../src/domain/approval.js';
import type { Principal } from '../../src/application/access/principal.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { CONTRACT, SENDER, SIGNER_ABI } from '../support/sign-fixtures.js';
import { approveDecision, heldMessage, openStore, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];

/*
 * What a held request needs is the policy's, never the row's (docs/policy.md, "Who releases a held
 * request"): the release decides the stored request again with the verified policy in force and needs
 * the quorum (and group) that decision asks, the stricter of it and the row's; and a quorum counts
 * distinct approvers (an address, a passkey), not API keys. Each attack is the database writer's SQL.
 */
describe.each(DIALECTS)('the quorum of a held request on %s', (dialect) => {
  let store: Store;
  let vault: Vault;
  const approvers = [Wallet.createRandom(), Wallet.createRandom()];
  let vaultId: string;
  let signer: Principal;
  /** Messages of `pair` are held for 2 approvals; of `finance` for 1 of group finance. */
  let pair: string;
  let finance: string;

  /** An approver key of the governed vault, listed by the signed state (its proposal signed by an approver). */
  const keyOf = async (address: string, group?: string): Promise<Principal> => {
    const { apiKey, proposal } = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], approverAddress: address, ...(group ? { group } : {}) });
    const t = (await vault.governance.get(vaultId, proposal!.id)).typedData;
    await vault.governance.vote(vaultId, proposal!.id, 'approve', await approvers[0]!.signTypedData(t.domain, { ...t.types } as never, t.message), 'operator');
    // As a client's request finds it: the roles, group and credential the signed state lists.
    return vault.authenticate.execute(apiKey, vaultId);
  };
  const held = (wallet: string, message: string) => heldMessage(vault, signer, wallet, message);
  const vote = async (principal: Principal, approval: Approval, who: Pick<Wallet, 'signTypedData'>) =>
    vault.voteOnApproval.execute({ principal, id: approval.id, vote: 'approve', signature: await approveDecision(who, approval) });

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open();
    ({ id: vaultId } = await vault.manageVaults.create({ name: 'held quorum' }));
    const { record } = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    signer = { apiKeyId: record.id, vaultId, roles: record.roles };
    pair = (await vault.createWallet.execute({ principal: signer, name: 'pair' })).address;
    finance = (await vault.createWallet.execute({ principal: signer, name: 'finance' })).address;
    const solo = (await vault.createWallet.execute({ principal: signer, name: 'solo' })).address;
    await vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [
        { id: 'two-eyes', effect: { hold: { required: 2 } }, kinds: ['message'], wallets: [pair] },
        { id: 'finance-eyes', effect: { hold: { required: 1, group: 'finance' } }, kinds: ['message'], wallets: [finance] },
        { id: 'solo', effect: { hold: { required: 1 } }, kinds: ['message'], wallets: [solo] },
        { id: 'calls', effect: { hold: { required: 2 } }, kinds: ['call'] },
      ],
      limits: [],
    });
    const set = await vault.governance.set(vaultId, { required: 1, approvers: approvers.map((a) => a.address) }, 'operator');
    expect('genesis' in set).toBe(true);
  });
  afterAll(async () => {
    await store?.close();
  });

  it('attack: the row lowered to required 1; one valid Decision leaves it pending (1 of 2); the second releases it', async () => {
    const [first, second] = [await keyOf(approvers[0]!.address), await keyOf(approvers[1]!.address)];
    const approval = await held(pair, 'pay 1000');
    expect(approval.required).toBe(2);
    await store.sql('UPDATE approvals SET required = 1 WHERE id = $1', [approval.id]);
    const after = await vote(first, approval, approvers[0]!);
    expect(after).toMatchObject({ status: 'pending', approvals: 1, required: 2 });
    expect(await vault.getApproval.execute(vaultId, approval.id)).toMatchObject({ status: 'pending', approvals: 1, required: 2 });
    expect((await vault.listApprovals.execute(vaultId, { status: 'pending' })).page.find((a) => a.id === approval.id)).toMatchObject({ required: 2 });
    expect((await vote(second, approval, approvers[1]!)).status).toBe('approved');
  });

  it('attack: a held Sign call (its row lowered to 1) is released only by the quorum the policy decides at the release', async () => {
    const [first, second] = [await keyOf(approvers[0]!.address), await keyOf(approvers[1]!.address)];
    const outcome = await vault.signCall.execute({ principal: signer, chain: 'local', contract: CONTRACT, sender: SENDER, uniq: `0x${'11'.repeat(32)}`, signer: pair, abi: SIGNER_ABI, args: [7] });
    if (!('approval' in outcome)) throw new Error('expected the call to be held');
    const approval = outcome.approval as Approval;
    // Both the row's quorum and the rule it names lowered: what reads show follows the row, the release does not.
    await store.sql('UPDATE approvals SET required = 1, rule_id = $1 WHERE id = $2', ['solo', approval.id]);
    expect(await vote(first, approval, approvers[0]!)).toMatchObject({ status: 'pending', approvals: 1 });
    expect((await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'signature.issued' && r.details.approval === approval.id)).toEqual([]);
    expect((await vote(second, approval, approvers[1]!)).status).toBe('approved');
  });

  it('attack: a released Sign call set back to pending by SQL: a repeated approve gets no second signature (a fresh nonce would be a second submission)', async () => {
    const [first, second] = [await keyOf(approvers[0]!.address), await keyOf(approvers[1]!.address)];
    const outcome = await vault.signCall.execute({ principal: signer, chain: 'local', contract: CONTRACT, sender: SENDER, uniq: `0x${'22'.repeat(32)}`, signer: pair, abi: SIGNER_ABI, args: [8] });
    if (!('approval' in outcome)) throw new Error('expected the call to be held');
    const approval = outcome.approval as Approval;
    await vote(first, approval, approvers[0]!);
    expect((await vote(second, approval, approvers[1]!)).status).toBe('approved');
    const issued = async () => (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'signature.issued' && r.details.approval === approval.id);
    expect(await issued()).toHaveLength(1);
    await store.sql("UPDATE approvals SET status = 'pending', result = NULL, decided = NULL WHERE id = $1", [approval.id]);
    // Its approvers see it pending again; the one who voted retries, as after a failed release.
    await vote(second, approval, approvers[1]!);
    expect(await issued()).toHaveLength(1);
  });

  it("attack: the row's group cleared; the rule in force still names finance: a vote of another group is refused, the approval shows finance", async () => {
    const ops = await keyOf(approvers[0]!.address, 'ops');
    const approval = await held(finance, 'pay the auditors');
    expect(approval.group).toBe('finance');
    await store.sql('UPDATE approvals SET approver_group = NULL WHERE id = $1', [approval.id]);
    await expect(vote(ops, approval, approvers[0]!)).rejects.toMatchObject({ code: 'APPROVER_NOT_IN_GROUP' });
    expect(await vault.getApproval.execute(vaultId, approval.id)).toMatchObject({ status: 'pending', group: 'finance', votes: [] });
    const accountant = await keyOf(approvers[1]!.address, 'finance');
    expect((await vote(accountant, approval, approvers[1]!)).status).toBe('approved');
  });

  it('attack: the row pointed at a rule of no group (rule_id, group, required): the release decides again and needs group finance', async () => {
    const ops = await keyOf(approvers[0]!.address, 'ops');
    const approval = await held(finance, 'pay the consultants');
    // `solo` holds another wallet's messages for 1 approval of any group: what the row now claims held this one.
    await store.sql('UPDATE approvals SET rule_id = $1, approver_group = NULL, required = 1 WHERE id = $2', ['solo', approval.id]);
    expect(await vault.getApproval.execute(vaultId, approval.id)).toMatchObject({ required: 1, group: null });
    // The vote is taken (the rule the row names asks no group), and reaches that rule's quorum: the release
    // decides the message again with the policy in force, which holds it for group finance, so nothing is signed.
    expect(await vote(ops, approval, approvers[0]!)).toMatchObject({ status: 'pending', approvals: 1 });
    expect((await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'sign.message' && r.details.approval === approval.id)).toEqual([]);
    const accountant = await keyOf(approvers[1]!.address, 'finance');
    expect((await vote(accountant, approval, approvers[1]!)).status).toBe('approved');
  });

  it('attack: one approver address on two keys, one Decision posted through both, is 1 of 2', async () => {
    const [a, b] = [await keyOf(approvers[0]!.address), await keyOf(approvers[0]!.address)];
    const approval = await held(pair, 'pay twice');
    const signature = await approveDecision(approvers[0]!, approval);
    await vault.voteOnApproval.execute({ principal: a, id: approval.id, vote: 'approve', signature });
    const after = await vault.voteOnApproval.execute({ principal: b, id: approval.id, vote: 'approve', signature });
    expect(after).toMatchObject({ status: 'pending', approvals: 1, required: 2 });
    expect(await vault.getApproval.execute(vaultId, approval.id)).toMatchObject({ status: 'pending', approvals: 1 });
    const other = await keyOf(approvers[1]!.address);
    expect((await vote(other, approval, approvers[1]!)).status).toBe('approved');
  });
});

/* The same on a vault that is not governed: the keys' rows are what there is, and an address still counts once. */
describe.each(DIALECTS)('distinct approvers on a vault that is not governed on %s', (dialect) => {
  let store: Store;
  let vault: Vault;

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('one approver address on two keys (warned at the second key), one Decision through both, is 1 of 2', async () => {
    const { id: vaultId } = await vault.manageVaults.create({ name: 'plain' });
    const { record } = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    const signer: Principal = { apiKeyId: record.id, vaultId, roles: record.roles };
    const wallet = (await vault.createWallet.execute({ principal: signer, name: 'w' })).address;
    await vault.managePolicies.apply(vaultId, { version: 2, rules: [{ id: 'two-eyes', effect: { hold: { required: 2 } }, kinds: ['message'] }], limits: [] });
    const person = Wallet.createRandom();
    const first = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], approverAddress: person.address });
    const second = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], approverAddress: person.address });
    const approval = await heldMessage(vault, signer, wallet, 'pay twice');
    const signature = await approveDecision(person, approval);
    for (const key of [first, second]) {
      const principal = await vault.authenticate.execute(key.apiKey, vaultId);
      await vault.voteOnApproval.execute({ principal, id: approval.id, vote: 'approve', signature });
    }
    expect(await vault.getApproval.execute(vaultId, approval.id)).toMatchObject({ status: 'pending', approvals: 1, required: 2 });
    // The second key is made (a rotation makes the new key before revoking the old), with a warning.
    expect(first.warnings ?? []).toEqual([]);
    expect(second.warnings).toEqual([expect.stringContaining(`api key ${first.record.id} of this vault already votes as ${person.address}`)]);
  });
});
