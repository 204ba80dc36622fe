import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import type { Vault } from '../../lib/index.js';
import type { Approval } from '../../src/domain/approval.js';
import type { Principal } from '../../src/application/access/principal.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { approveDecision, heldMessage, openStore, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];

/*
 * On a governed vault the approver set is the signed one (docs/governance.md): a held sign's vote counts
 * only from a credential its governance names. An approver key the database writer adds, a credential it
 * changes, or a key without one counts for nothing, at the vote and again at the release.
 */
describe.each(DIALECTS)('approval votes on a governed vault on %s', (dialect) => {
  let store: Store;
  let vault: Vault;
  const approvers = [Wallet.createRandom(), Wallet.createRandom()];
  const outsider = Wallet.createRandom();
  let vaultId: string;
  let wallet: string;
  let signer: Principal;

  const HOLD = { version: 2, rules: [{ id: 'two-eyes', effect: { hold: { required: 1 } }, kinds: ['message'] }], limits: [] };
  /** An approver key; `inForce`: its proposal (the state lists the vault's keys) signed by an approver, so the state lists it. */
  const keyOf = async (address: string | null, inForce = false): Promise<Principal> => {
    const { record, proposal } = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], ...(address === null ? {} : { approverAddress: address }) });
    if (inForce) {
      const t = (await vault.governance.get(vaultId, proposal!.id)).typedData;
      await vault.governance.vote(vaultId, proposal!.id, 'approve', await approvers[0]!.signTypedData(t.domain, { ...t.types } as never, t.message), 'operator');
    }
    return { apiKeyId: record.id, vaultId, roles: record.roles, approverAddress: record.approverAddress ?? null };
  };
  const held = (message: string): Promise<Approval> => heldMessage(vault, signer, wallet, message);
  const sign = approveDecision;

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open();
    ({ id: vaultId } = await vault.manageVaults.create({ name: 'governed votes' }));
    await vault.managePolicies.apply(vaultId, HOLD);
    const set = await vault.governance.set(vaultId, { required: 1, approvers: approvers.map((a) => a.address) }, 'operator');
    expect('genesis' in set).toBe(true);
    const { record } = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    signer = { apiKeyId: record.id, vaultId, roles: record.roles };
    wallet = (await vault.createWallet.execute({ principal: signer, name: 'w' })).address;
  });
  afterAll(async () => {
    await store?.close();
  });

  it("a governance approver's signed vote releases the held message", async () => {
    const approval = await held('pay 1');
    const voter = await keyOf(approvers[0]!.address, true);
    const after = await vault.voteOnApproval.execute({ principal: voter, id: approval.id, vote: 'approve', signature: await sign(approvers[0]!, approval) });
    expect(after.status).toBe('approved');
  });

  it('a key whose credential the governance does not name, or without one, is refused and writes nothing', async () => {
    const approval = await held('pay 2');
    const stranger = await keyOf(outsider.address);
    await expect(vault.voteOnApproval.execute({ principal: stranger, id: approval.id, vote: 'approve', signature: await sign(outsider, approval) })).rejects.toMatchObject({
      code: 'APPROVAL_SIGNATURE_INVALID',
      message: expect.stringContaining('is governed, so only the approvers its signed governance names vote'),
    });
    const legacy = await keyOf(null);
    await expect(vault.voteOnApproval.execute({ principal: legacy, id: approval.id, vote: 'approve' })).rejects.toMatchObject({ code: 'APPROVAL_SIGNATURE_INVALID' });
    const now = await vault.getApproval.execute(vaultId, approval.id);
    expect([now.status, now.votes]).toEqual(['pending', []]);
  });

  it("an approver key the database writer adds, with its own validly signed vote, counts for nothing at release", async () => {
    const approval = await held('pay 3');
    // The writer's key row and vote row, signed by the writer's own address: a valid Decision of a key that exists.
    const forged = await keyOf(outsider.address);
    await store.sql('INSERT INTO approval_votes (approval_id, api_key_id, vote, at, signature) VALUES ($1, $2, $3, $4, $5)', [
      approval.id,
      forged.apiKeyId,
      'approve',
      dialect === 'postgres' ? new Date() : Date.now(),
      await sign(outsider, approval),
    ]);
    // Any approver's call now runs the release: the forged vote must not make the quorum.
    const honest = await keyOf(approvers[1]!.address, true);
    const rejected = await vault.voteOnApproval.execute({ principal: honest, id: approval.id, vote: 'approve', signature: await sign(approvers[1]!, approval) });
    expect(rejected.status).toBe('approved');
    const trail = await vault.listAuditRecords.execute({ vaultId, limit: 1000 });
    const invalid = trail.filter((r) => r.action === 'approval.vote-invalid' && r.subject === approval.id);
    expect(invalid).toHaveLength(1);
    expect(invalid[0]!.details).toMatchObject({ votes: `api-key:${forged.apiKeyId}`, valid: 1, released: true });
  });
  it('a key whose approver role a proposal in force took away: its vote cast before counts for nothing at release, whatever its row says', async () => {
    const { id: twoEyes } = await vault.manageVaults.create({ name: 'governed votes, two' });
    await vault.managePolicies.apply(twoEyes, { ...HOLD, rules: [{ ...HOLD.rules[0]!, effect: { hold: { required: 2 } } }] });
    await vault.governance.set(twoEyes, { required: 1, approvers: approvers.map((a) => a.address) }, 'operator');
    const inForce = async (proposal: { id: string } | undefined) => {
      const t = (await vault.governance.get(twoEyes, proposal!.id)).typedData;
      await vault.governance.vote(twoEyes, proposal!.id, 'approve', await approvers[0]!.signTypedData(t.domain, { ...t.types } as never, t.message), 'operator');
    };
    const requester = await vault.manageVaults.createApiKey(twoEyes, { roles: ['signer', 'admin'] });
    await inForce(requester.proposal);
    const asker: Principal = { apiKeyId: requester.record.id, vaultId: twoEyes, roles: requester.record.roles };
    const address = (await vault.createWallet.execute({ principal: asker, name: 'w2' })).address;
    const voters: Principal[] = [];
    for (const who of approvers) {
      const made = await vault.manageVaults.createApiKey(twoEyes, { roles: ['approver'], approverAddress: who.address });
      await inForce(made.proposal);
      voters.push({ apiKeyId: made.record.id, vaultId: twoEyes, roles: made.record.roles, approverAddress: who.address });
    }
    const approval = await heldMessage(vault, asker, address, 'pay 4');
    await vault.voteOnApproval.execute({ principal: voters[0]!, id: approval.id, vote: 'approve', signature: await sign(approvers[0]!, approval) });
    const changed = await vault.manageVaults.setApiKeyRoles(twoEyes, voters[0]!.apiKeyId, ['reader']);
    await inForce(changed.proposal);
    // The row still says approver (a governed vault's row is left as it is): the state's roles decide.
    expect((await vault.manageVaults.listApiKeys(twoEyes)).find((k) => k.id === voters[0]!.apiKeyId)!.roles).toEqual(['approver']);
    const after = await vault.voteOnApproval.execute({ principal: voters[1]!, id: approval.id, vote: 'approve', signature: await sign(approvers[1]!, approval) });
    expect(after.status).toBe('pending');
    const invalid = (await vault.listAuditRecords.execute({ vaultId: twoEyes, limit: 1000 })).filter((r) => r.action === 'approval.vote-invalid' && r.subject === approval.id);
    expect(invalid.at(-1)!.details).toMatchObject({ votes: `api-key:${voters[0]!.apiKeyId}`, valid: 1, released: false });
  });
});
