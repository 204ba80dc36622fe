import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../lib/index.js';
import { GetApproval } from '../../src/application/approvals/get-approval.use-case.js';
import { contractNameOf } from '../../src/domain/policy/contract-names.js';
import { PolicyCache } from '../../src/application/signing/policy-cache.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { MovableClock } from '../support/movable-clock.js';
import { DOCUMENT, ethersApprover, openStore, viemApprover, WIDER, type Approver, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];

/*
 * Governance (docs/governance.md) on each database: a governed vault's change is a proposal that takes
 * effect only with M signatures of its approvers and its delay; what is in force is verified at load, and
 * each attack by raw SQL either counts for nothing or stops the vault's signing with GOVERNANCE_UNVERIFIED.
 */
describe.each(DIALECTS)('governance on %s', (dialect) => {
  let store: Store;
  let vault: Vault;
  const clock = new MovableClock();
  clock.freeze();
  const approvers: Approver[] = [ethersApprover(), viemApprover(), ethersApprover()];
  const outsider = ethersApprover();

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open({ clock });
  });
  afterAll(async () => {
    await store?.close();
  });

  const cache = () => vault.container.get(PolicyCache);
  /** What the sign path is given (or the refusal it throws), after this process's cached copy is dropped. */
  const inForce = async (vaultId: string) => {
    cache().invalidate(vaultId);
    return cache().find(vaultId);
  };
  const refusal = (vaultId: string) => inForce(vaultId).then(() => null, (e: { code: string; message: string }) => e);
  const trail = async (vaultId: string, action: string) => (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === action);

  /** A vault governed 2-of-3 (delay as given), its policy DOCUMENT. */
  const governed = async (name: string, delay = '0s') => {
    const { id: vaultId } = await vault.manageVaults.create({ name });
    await vault.managePolicies.apply(vaultId, DOCUMENT);
    const set = await vault.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address), delay }, 'operator');
    if (!('genesis' in set)) throw new Error('expected a genesis');
    return { vaultId, genesis: set.genesis.hash, pin: set.genesis.pin };
  };
  const approve = async (vaultId: string, id: string, who: Approver) => {
    const view = await vault.governance.get(vaultId, id);
    return vault.governance.vote(vaultId, id, 'approve', await who.sign(view.typedData), 'operator');
  };

  it('genesis: the state in force is the policy and the approvers; the pin line names its hash; --required above the approvers is refused', async () => {
    const { vaultId, genesis, pin } = await governed('genesis');
    expect(pin).toBe(`VAULT_GOVERNANCE_PINS=${vaultId}:${genesis}`);
    expect(genesis).toMatch(/^0x[0-9a-f]{64}$/);
    const shown = await vault.governance.show(vaultId);
    expect(shown).toMatchObject({ governed: true, hash: genesis, pinned: false, problem: null });
    expect(shown.state!.governance.approvers).toEqual(approvers.map((a) => a.address).sort());
    expect(await inForce(vaultId)).toMatchObject({ rules: [{ id: 'messages' }] });
    expect(await trail(vaultId, 'governance.set')).toHaveLength(1);
    const { id: other } = await vault.manageVaults.create({ name: 'too-many' });
    await expect(vault.governance.set(other, { required: 4, approvers: approvers.map((a) => a.address) }, 'operator')).rejects.toThrow(/required: 4 is more than the 3/);
  });

  it('a policy edit is a proposal: in force with 2 signatures (ethers and viem) and its delay, moved by the clock; 1 is not enough', async () => {
    const { vaultId, genesis } = await governed('proposal', '1h');
    const made = await vault.managePolicies.apply(vaultId, WIDER);
    expect(made).toEqual({ proposal: { id: expect.any(String), documentHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
    const { id } = (made as { proposal: { id: string } }).proposal;
    const view = await vault.governance.get(vaultId, id);
    expect(view.diff.policy.added).toEqual(['rule typed']);
    expect(view.typedData.message).toEqual({ vault: vaultId, proposal: id, document: view.documentHash });
    expect(await inForce(vaultId)).toMatchObject({ rules: [{ id: 'messages' }] });

    await approve(vaultId, id, approvers[0]!);
    clock.advance(2 * 3_600_000);
    expect((await inForce(vaultId))!.rules).toHaveLength(1);
    // A signature of someone else, and a second one by the same approver, count for nothing.
    await expect(approve(vaultId, id, outsider)).rejects.toMatchObject({ code: 'APPROVAL_SIGNATURE_INVALID' });
    await expect(approve(vaultId, id, approvers[0]!)).rejects.toMatchObject({ code: 'APPROVAL_ALREADY_VOTED' });
    await expect(vault.governance.vote(vaultId, id, 'approve', '0x1234', 'operator')).rejects.toMatchObject({ code: 'APPROVAL_SIGNATURE_INVALID' });

    const second = await approve(vaultId, id, approvers[1]!); // viem
    expect(second.approvals).toHaveLength(2);
    expect(second.status).toBe('pending');
    clock.advance(3_600_000 - 1);
    expect((await inForce(vaultId))!.rules).toHaveLength(1);
    clock.advance(1);
    expect((await inForce(vaultId))!.rules.map((r) => r.id)).toEqual(['messages', 'typed']);
    expect((await vault.governance.get(vaultId, id)).status).toBe('applied');
    expect((await vault.governance.show(vaultId)).hash).toBe(view.documentHash);
    expect(await trail(vaultId, 'governance.applied')).toHaveLength(1);
    expect(view.previous).toBe(genesis);
  });

  it('one signed reject closes a proposal; a proposal built on a replaced state is superseded', async () => {
    const { vaultId } = await governed('reject');
    const a = ((await vault.managePolicies.apply(vaultId, WIDER)) as { proposal: { id: string } }).proposal.id;
    const b = ((await vault.managePolicies.clear(vaultId)) as { proposal: { id: string } }).proposal.id;
    const view = await vault.governance.get(vaultId, a);
    expect(view.rejectTypedData).toMatchObject({ primaryType: 'Decision', message: { vault: vaultId, approval: a, request: view.documentHash, decision: 'reject' } });
    await vault.governance.vote(vaultId, a, 'reject', await approvers[2]!.sign(view.rejectTypedData), 'operator');
    expect((await vault.governance.get(vaultId, a)).status).toBe('rejected');
    await expect(approve(vaultId, a, approvers[0]!)).rejects.toMatchObject({ code: 'PROPOSAL_CLOSED' });
    const c = ((await vault.managePolicies.apply(vaultId, WIDER)) as { proposal: { id: string } }).proposal.id;
    await approve(vaultId, c, approvers[0]!);
    await approve(vaultId, c, approvers[1]!);
    expect((await vault.governance.get(vaultId, b)).status).toBe('superseded');
    expect((await inForce(vaultId))!.rules).toHaveLength(2);
  });

  it("attack: an approve signature replayed as a reject is refused, and a reject row carrying one counts for nothing", async () => {
    const { vaultId } = await governed('replayed-reject');
    const id = ((await vault.managePolicies.apply(vaultId, WIDER)) as { proposal: { id: string } }).proposal.id;
    const view = await vault.governance.get(vaultId, id);
    const approval = await approvers[0]!.sign(view.typedData);
    await vault.governance.vote(vaultId, id, 'approve', approval, 'operator');
    // The approve signature is in the votes table for anyone who reads it: as a reject it is no signature.
    await expect(vault.governance.vote(vaultId, id, 'reject', approval, 'operator')).rejects.toMatchObject({ code: 'APPROVAL_SIGNATURE_INVALID', message: expect.stringContaining('Decision (reject)') });
    const second = await approvers[1]!.sign(view.typedData);
    await expect(vault.governance.vote(vaultId, id, 'reject', second, 'operator')).rejects.toMatchObject({ code: 'APPROVAL_SIGNATURE_INVALID' });
    // Written by SQL as a reject of the approver who signed the approve: the proposal is still pending, not vetoed.
    await store.sql('UPDATE governance_votes SET decision = $1 WHERE proposal_id = $2', ['reject', id]);
    const after = await vault.governance.get(vaultId, id);
    expect(after).toMatchObject({ status: 'pending', rejectedBy: null, approvals: [] });
  });

  it("contract names are governed: naming a contract is a proposal (document settings); a rename written by SQL refuses every sign and names nothing", async () => {
    const { vaultId } = await governed('named-contracts');
    const contract = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    const made = await vault.managePolicies.apply(vaultId, { ...DOCUMENT, contractNames: { [contract]: 'Treasury payouts' } });
    const { id } = (made as { proposal: { id: string } }).proposal;
    expect((await vault.governance.get(vaultId, id)).diff.policy).toEqual({
      added: [],
      removed: [],
      changed: ['document settings'],
      fields: [{ entry: 'document settings', field: 'contractNames', from: null, to: { [contract]: 'Treasury payouts' } }],
    });
    expect(await inForce(vaultId)).not.toHaveProperty('contractNames');
    await approve(vaultId, id, approvers[0]!);
    await approve(vaultId, id, approvers[1]!);
    expect((await inForce(vaultId))!.contractNames).toEqual({ [contract]: 'Treasury payouts' });
    const namer = async () => (cache().invalidate(vaultId), contractNameOf(await vault.container.get(GetApproval).shownPolicy(vaultId), contract));
    expect(await namer()).toBe('Treasury payouts');

    // A database writer renames the contract to mislead approvers: the row is no longer the signed state.
    const [row] = (await store.sql('SELECT policy FROM sign_policies WHERE vault_id = $1', [vaultId])) as { policy: string | Record<string, unknown> }[];
    const policy = typeof row!.policy === 'string' ? JSON.parse(row!.policy) : row!.policy;
    policy.contractNames[contract] = 'Payroll (safe)';
    await store.sql('UPDATE sign_policies SET policy = $1 WHERE vault_id = $2', [JSON.stringify(policy), vaultId]);
    expect(await refusal(vaultId)).toMatchObject({ code: 'GOVERNANCE_UNVERIFIED', message: expect.stringMatching(/policy row/) });
    expect(await namer()).toBeNull();
  });

  it('attack: the policy row edited by SQL refuses every sign (GOVERNANCE_UNVERIFIED), recorded once', async () => {
    const { vaultId } = await governed('edited-row');
    const wide = JSON.stringify({ version: 2, rules: [{ id: 'all', effect: 'allow' }], limits: [] });
    await store.sql('UPDATE sign_policies SET policy = $1 WHERE vault_id = $2', [wide, vaultId]);
    expect(await refusal(vaultId)).toMatchObject({ code: 'GOVERNANCE_UNVERIFIED', message: expect.stringMatching(/policy row/) });
    expect(await refusal(vaultId)).toMatchObject({ code: 'GOVERNANCE_UNVERIFIED' });
    expect(await trail(vaultId, 'governance.unverified')).toHaveLength(1);
    expect(vault.container.get(PolicyCache) && (await vault.governance.show(vaultId)).problem).toMatch(/policy row/);
  });

  it('attack: an approver added to a stored state by SQL breaks the chain', async () => {
    const { vaultId } = await governed('added-approver');
    const [row] = (await store.sql('SELECT genesis_state FROM vault_governance WHERE vault_id = $1', [vaultId])) as { genesis_state: string }[];
    const state = JSON.parse(row!.genesis_state);
    state.governance.approvers.push(outsider.address);
    await store.sql('UPDATE vault_governance SET genesis_state = $1 WHERE vault_id = $2', [JSON.stringify(state), vaultId]);
    expect(await refusal(vaultId)).toMatchObject({ code: 'GOVERNANCE_UNVERIFIED', message: expect.stringMatching(/genesis/) });
  });

  it('attack: a governance row replaced whole (its own hash beside it) does not match the pin; a pinned vault without governance signs nothing', async () => {
    const { vaultId, genesis } = await governed('replaced');
    const pinned = await store.open({ clock, pins: new Map([[vaultId, genesis]]) });
    const verifiedFind = async () => {
      const c = pinned.container.get(PolicyCache);
      c.invalidate(vaultId);
      return c.find(vaultId).then(() => null, (e: { code: string; message: string }) => e);
    };
    expect(await verifiedFind()).toBeNull();
    // The attacker's own state: themselves the only approver, the widest policy; hashed right, stored as genesis.
    const { stateHash, canonicalStateJson } = await import('../../src/domain/governance.js');
    const forged = { version: 1, vault: vaultId, previous: null, policy: null, governance: { required: 1, approvers: [outsider.address], delay: '0s' }, liftedFreezes: 0 };
    const text = canonicalStateJson(forged);
    await store.sql('UPDATE vault_governance SET genesis_state = $1, genesis_hash = $2, head_hash = $2 WHERE vault_id = $3', [text, stateHash(text), vaultId]);
    await store.sql('DELETE FROM sign_policies WHERE vault_id = $1', [vaultId]);
    expect(await verifiedFind()).toMatchObject({ code: 'GOVERNANCE_UNVERIFIED', message: expect.stringMatching(/pinned/) });
    await store.sql('DELETE FROM vault_governance WHERE vault_id = $1', [vaultId]);
    expect(await verifiedFind()).toMatchObject({ code: 'GOVERNANCE_UNVERIFIED', message: expect.stringMatching(/holds no governance/) });
    expect(pinned.container.get((await import('../../src/application/governance/governance-verifier.js')).GovernanceVerifier).health().unverified.map((u) => u.vault)).toContain(vaultId);
  });

  it('attack: signature rows inserted by SQL (garbage, copied from another proposal) count for nothing; marking it applied by SQL breaks the chain', async () => {
    const { vaultId } = await governed('inserted-votes');
    const id = ((await vault.managePolicies.apply(vaultId, WIDER)) as { proposal: { id: string } }).proposal.id;
    const other = ((await vault.managePolicies.clear(vaultId)) as { proposal: { id: string } }).proposal.id;
    const otherView = await vault.governance.get(vaultId, other);
    const copied = await approvers[1]!.sign(otherView.typedData);
    const at = dialect === 'postgres' ? new Date() : Date.now();
    await store.sql('INSERT INTO governance_votes (proposal_id, address, decision, signature, created) VALUES ($1, $2, $3, $4, $5)', [id, approvers[1]!.address, 'approve', copied, at]);
    await store.sql('INSERT INTO governance_votes (proposal_id, address, decision, signature, created) VALUES ($1, $2, $3, $4, $5)', [id, approvers[2]!.address, 'approve', `0x${'11'.repeat(65)}`, at]);
    await approve(vaultId, id, approvers[0]!);
    expect((await vault.governance.get(vaultId, id)).approvals).toEqual([approvers[0]!.address]);
    expect((await inForce(vaultId))!.rules).toHaveLength(1);
    // Force it: status, head and policy row all as an apply would leave them.
    const view = await vault.governance.get(vaultId, id);
    await store.sql(`UPDATE governance_proposals SET status = 'applied', applied_seq = 1 WHERE id = $1`, [id]);
    await store.sql('UPDATE vault_governance SET head_hash = $1 WHERE vault_id = $2', [view.documentHash, vaultId]);
    await store.sql('UPDATE sign_policies SET policy = $1 WHERE vault_id = $2', [JSON.stringify(WIDER), vaultId]);
    expect(await refusal(vaultId)).toMatchObject({ code: 'GOVERNANCE_UNVERIFIED', message: expect.stringMatching(/1 valid PolicyChange signature/) });
  });

  it('attack: a vetoed proposal with its full quorum marked applied by SQL: the valid reject breaks the chain', async () => {
    const { vaultId } = await governed('vetoed', '1h');
    const id = ((await vault.managePolicies.apply(vaultId, WIDER)) as { proposal: { id: string } }).proposal.id;
    await approve(vaultId, id, approvers[0]!);
    await approve(vaultId, id, approvers[1]!);
    // Within the delay the third approver vetoes it: closed, never in force.
    const view = await vault.governance.get(vaultId, id);
    await vault.governance.vote(vaultId, id, 'reject', await approvers[2]!.sign(view.rejectTypedData), 'operator');
    expect((await vault.governance.get(vaultId, id)).status).toBe('rejected');
    // The writer puts it in force as an apply would: status, head and policy row.
    await store.sql(`UPDATE governance_proposals SET status = 'applied', applied_seq = 1 WHERE id = $1`, [id]);
    await store.sql('UPDATE vault_governance SET head_hash = $1 WHERE vault_id = $2', [view.documentHash, vaultId]);
    await store.sql('UPDATE sign_policies SET policy = $1 WHERE vault_id = $2', [JSON.stringify(WIDER), vaultId]);
    clock.advance(2 * 3_600_000);
    expect(await refusal(vaultId)).toMatchObject({ code: 'GOVERNANCE_UNVERIFIED', message: expect.stringMatching(new RegExp(`applied proposal ${id} carries a valid reject of ${approvers[2]!.address}`)) });
  });

  it('attack: a vetoed proposal marked applied by SQL and its reject row deleted: the instance that saw the veto refuses it (GOVERNANCE_UNVERIFIED)', async () => {
    const { vaultId } = await governed('veto deleted', '1h');
    const id = ((await vault.managePolicies.apply(vaultId, WIDER)) as { proposal: { id: string } }).proposal.id;
    await approve(vaultId, id, approvers[0]!);
    await approve(vaultId, id, approvers[1]!);
    const view = await vault.governance.get(vaultId, id);
    await vault.governance.vote(vaultId, id, 'reject', await approvers[2]!.sign(view.rejectTypedData), 'operator');
    // The writer removes the veto and puts the proposal in force as an apply would.
    await store.sql(`DELETE FROM governance_votes WHERE proposal_id = $1 AND decision = 'reject'`, [id]);
    await store.sql(`UPDATE governance_proposals SET status = 'applied', applied_seq = 1 WHERE id = $1`, [id]);
    await store.sql('UPDATE vault_governance SET head_hash = $1 WHERE vault_id = $2', [view.documentHash, vaultId]);
    await store.sql('UPDATE sign_policies SET policy = $1 WHERE vault_id = $2', [JSON.stringify(WIDER), vaultId]);
    clock.advance(2 * 3_600_000);
    expect(await refusal(vaultId)).toMatchObject({ code: 'GOVERNANCE_UNVERIFIED', message: expect.stringMatching(new RegExp(`applied proposal ${id} was rejected, as this instance saw: its reject was deleted in the database`)) });
  });

  it('attack: an unpinned governed vault whose governance rows are deleted by SQL: the instance that found it governed refuses to sign (GOVERNANCE_UNVERIFIED), it is not read as ungoverned', async () => {
    const { vaultId } = await governed('unpinned deleted');
    expect(await refusal(vaultId)).toBeNull();
    await store.sql('DELETE FROM governance_votes WHERE proposal_id IN (SELECT id FROM governance_proposals WHERE vault_id = $1)', [vaultId]);
    await store.sql('DELETE FROM governance_proposals WHERE vault_id = $1', [vaultId]);
    await store.sql('DELETE FROM vault_governance WHERE vault_id = $1', [vaultId]);
    await store.sql('UPDATE sign_policies SET policy = $1 WHERE vault_id = $2', [JSON.stringify({ version: 2, rules: [{ id: 'all', effect: 'allow' }], limits: [] }), vaultId]);
    expect(await refusal(vaultId)).toMatchObject({ code: 'GOVERNANCE_UNVERIFIED', message: expect.stringMatching(/this instance found vault \S+ governed, and the database no longer holds its governance: its rows were deleted in the database/) });
  });

  it('changing the approvers needs the current quorum; the new set then decides', async () => {
    const { vaultId } = await governed('rotate');
    const next = [approvers[0]!.address, outsider.address];
    const set = await vault.governance.set(vaultId, { required: 2, approvers: next }, 'operator');
    if (!('proposal' in set)) throw new Error('expected a proposal');
    await expect(approve(vaultId, set.proposal.id, outsider)).rejects.toMatchObject({ code: 'APPROVAL_SIGNATURE_INVALID' });
    await approve(vaultId, set.proposal.id, approvers[0]!);
    await approve(vaultId, set.proposal.id, approvers[2]!);
    expect((await vault.governance.show(vaultId)).state!.governance.approvers).toEqual([...next].sort());
    const id = ((await vault.managePolicies.apply(vaultId, WIDER)) as { proposal: { id: string } }).proposal.id;
    await expect(approve(vaultId, id, approvers[1]!)).rejects.toMatchObject({ code: 'APPROVAL_SIGNATURE_INVALID' });
    await approve(vaultId, id, outsider);
    await approve(vaultId, id, approvers[0]!);
    expect((await inForce(vaultId))!.rules).toHaveLength(2);
  });
});
