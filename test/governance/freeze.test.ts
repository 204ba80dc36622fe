import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../lib/index.js';
import { PolicyCache } from '../../src/application/signing/policy-cache.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { MovableClock } from '../support/movable-clock.js';
import { DOCUMENT, ethersApprover, openStore, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];

/*
 * Freeze (docs/governance.md): no quorum to freeze; the next signature on ANOTHER instance is refused at
 * once, while its copies of the policy and of the freeze count are still fresh: on SQLite its first check
 * reads the count (data_version tells it changed), on PostgreSQL the signature's record is fenced (the
 * count read again in the record's own transaction), and nothing of the refused signature is stored.
 * Unfreezing an ungoverned vault is a plain command; a governed vault's is a proposal its quorum signs.
 */
describe.each(DIALECTS)('freeze on %s', (dialect) => {
  let store: Store;
  let one: Vault;
  let two: Vault;
  const clock = new MovableClock();
  clock.freeze();

  beforeAll(async () => {
    store = await openStore(dialect);
    one = await store.open({ clock });
    two = await store.open({ clock });
  });
  afterAll(async () => {
    await store?.close();
  });

  const find = (v: Vault, vaultId: string) => v.container.get(PolicyCache).find(vaultId).then(() => null, (e: { code: string }) => e.code);

  it('a freeze on one instance refuses the next signature on the other at once, nothing of it stored; unfreeze (ungoverned) lifts it, audited', async () => {
    const { id: vaultId } = await one.manageVaults.create({ name: 'frozen' });
    await one.managePolicies.apply(vaultId, DOCUMENT);
    const { record } = await one.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    const signer = { apiKeyId: record.id, vaultId, roles: record.roles };
    const { address } = await one.createWallet.execute({ principal: signer, name: 'w' });
    const sign = (v: Vault, message: string) => v.signMessage.execute({ principal: signer, address, message }).then(() => null, (e: { code: string }) => e.code);
    const signed = async () => (await one.listAuditRecords.execute({ vaultId, limit: 100 })).filter((r) => r.action === 'sign.message').length;
    expect(await sign(two, 'before')).toBeNull(); // the other instance's copies are now cached
    await one.governance.freeze(vaultId, 'key may be stolen', 'operator');
    expect(await sign(two, 'after')).toBe('VAULT_FROZEN');
    expect(await sign(one, 'after')).toBe('VAULT_FROZEN');
    expect(await find(one, vaultId)).toBe('VAULT_FROZEN');
    expect(await signed()).toBe(1);
    const trail = await one.listAuditRecords.execute({ vaultId, limit: 100 });
    expect(trail.filter((r) => r.action === 'vault.frozen')).toHaveLength(1);
    expect(await one.governance.unfreeze(vaultId, 'operator')).toEqual({ lifted: 1 });
    expect(await sign(two, 'lifted')).toBeNull();
    expect(await signed()).toBe(2);
    expect((await one.listAuditRecords.execute({ vaultId, limit: 100 })).filter((r) => r.action === 'vault.unfrozen')).toHaveLength(1);
  });

  it('a governed vault: unfreeze is a proposal; lifted only once its quorum signed; lifting rows by SQL counts for nothing', async () => {
    const approvers = [ethersApprover(), ethersApprover()];
    const { id: vaultId } = await one.manageVaults.create({ name: 'frozen-governed' });
    await one.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address) }, 'operator');
    await one.governance.freeze(vaultId, null, 'operator');
    expect(await find(two, vaultId)).toBe('VAULT_FROZEN');
    await store.sql('UPDATE vault_freezes SET lifted = created WHERE vault_id = $1', [vaultId]);
    expect(await find(two, vaultId)).toBe('VAULT_FROZEN');
    const made = await one.governance.unfreeze(vaultId, 'operator');
    if (!('proposal' in made)) throw new Error('expected a proposal');
    const view = await one.governance.get(vaultId, made.proposal.id);
    expect(view.diff.liftedFreezes).toEqual({ from: 0, to: 1 });
    await one.governance.vote(vaultId, view.id, 'approve', await approvers[0]!.sign(view.typedData), 'operator');
    clock.advance(5_000); // the other instance's copy past its TTL (POLICY_CACHE_TTL_MS), as the docs promise
    expect(await find(two, vaultId)).toBe('VAULT_FROZEN');
    await one.governance.vote(vaultId, view.id, 'approve', await approvers[1]!.sign(view.typedData), 'operator');
    clock.advance(5_000); // the other instance's copy past its TTL (POLICY_CACHE_TTL_MS), as the docs promise
    expect(await find(two, vaultId)).toBeNull();
  });
});
