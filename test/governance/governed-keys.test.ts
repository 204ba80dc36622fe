import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../lib/index.js';
import { PolicyCache } from '../../src/application/signing/policy-cache.js';
import { canonicalStateJson, stateHash } from '../../src/domain/governance.js';
import { MovableClock } from '../support/movable-clock.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { startReceiver, until, type Receiver } from '../support/webhook-receiver.js';
import { DOCUMENT, ethersApprover, openStore, viemApprover, type Approver, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];

/*
 * API keys under governance (docs/governance.md, "API keys and webhooks"): on a vault whose signed state
 * lists its keys, a key authenticates only when the state lists it, and acts with the state's roles, group
 * and credential; a database writer's key row, or a row it widens, gets nothing more. Creating a key is a
 * proposal; revoking one takes effect at once.
 */
describe.each(DIALECTS)('governed API keys on %s', (dialect) => {
  let store: Store;
  let vault: Vault;
  const approvers: Approver[] = [ethersApprover(), viemApprover(), ethersApprover()];

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open();
  });
  afterAll(async () => {
    await store?.close();
  });

  const authenticate = (apiKey: string, vaultId: string) => {
    // Another instance's view: this process's cached state is dropped first, so what is read is the database's.
    vault.container.get(PolicyCache).invalidate(vaultId);
    return vault.authenticate.execute(apiKey, vaultId);
  };
  /** The database writer's SQL on api_keys; a key made elsewhere then makes this process's key cache (PostgreSQL's) read rows again. */
  const writeKeys = async (text: string, params: unknown[]) => {
    await store.sql(text, params);
    const { id } = await vault.manageVaults.create({ name: 'flush' });
    await vault.manageVaults.createApiKey(id, { roles: ['reader'] });
  };
  const refused = (apiKey: string, vaultId: string) => authenticate(apiKey, vaultId).then(() => null, (e: { code: string }) => e.code);
  const approve = async (vaultId: string, id: string, who: Approver) => {
    const view = await vault.governance.get(vaultId, id);
    return vault.governance.vote(vaultId, id, 'approve', await who.sign(view.typedData), 'operator');
  };
  const inForce = async (vaultId: string, id: string) => {
    await approve(vaultId, id, approvers[0]!);
    const view = await approve(vaultId, id, approvers[1]!);
    expect(view.status).toBe('applied');
  };
  /** A vault with a signer+admin key and a reader key, governed 2-of-3 after they were made. */
  const governed = async (name: string) => {
    const { id: vaultId } = await vault.manageVaults.create({ name });
    await vault.managePolicies.apply(vaultId, DOCUMENT);
    const signer = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    const reader = await vault.manageVaults.createApiKey(vaultId, { roles: ['reader'] });
    const gone = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer'] });
    await vault.manageVaults.revokeApiKey(gone.record.id);
    const set = await vault.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address) }, 'operator');
    if (!('genesis' in set)) throw new Error('expected a genesis');
    return { vaultId, signer, reader, gone, genesis: set.genesis };
  };

  it('the genesis lists the unrevoked keys by id with their roles; their holders authenticate with those roles', async () => {
    const { vaultId, signer, reader, genesis } = await governed('genesis keys');
    const ids = [signer.record.id, reader.record.id].sort();
    expect(genesis.state.apiKeys!.map((k) => k.id)).toEqual(ids);
    expect(genesis.state.apiKeys!.find((k) => k.id === reader.record.id)).toEqual({ id: reader.record.id, roles: ['reader'], group: null, approverAddress: null, secretHash: reader.record.secretHash });
    expect((await authenticate(signer.apiKey, vaultId)).roles).toEqual(['admin', 'signer']);
    expect((await authenticate(reader.apiKey, vaultId)).roles).toEqual(['reader']);
  });

  it('a key row a database writer adds (moved from another vault, with the signer role) is refused as unknown', async () => {
    const { vaultId } = await governed('added row');
    const { id: elsewhere } = await vault.manageVaults.create({ name: 'elsewhere' });
    const planted = await vault.manageVaults.createApiKey(elsewhere, { roles: ['signer', 'admin'] });
    expect((await authenticate(planted.apiKey, elsewhere)).roles).toEqual(['admin', 'signer']);
    await writeKeys('UPDATE api_keys SET vault_id = $1 WHERE id = $2', [vaultId, planted.record.id]);
    expect(await refused(planted.apiKey, vaultId)).toBe('UNAUTHENTICATED');
  });

  it("a reader key's row widened to signer by SQL still acts as a reader only", async () => {
    const { vaultId, reader } = await governed('widened row');
    await writeKeys('UPDATE api_keys SET roles = $1 WHERE id = $2', ['signer,admin,reader', reader.record.id]);
    expect((await vault.manageVaults.listApiKeys(vaultId)).find((k) => k.id === reader.record.id)!.roles).toContain('signer');
    expect((await authenticate(reader.apiKey, vaultId)).roles).toEqual(['reader']);
  });

  it("attack: a listed key's secret_hash replaced by SQL: the writer's own secret for that id is refused (the state's hash decides)", async () => {
    const { vaultId, signer, genesis } = await governed('taken-over secret');
    // The writer's own secret, its hash written over the row's: wv_<the listed id>_<own secret>.
    const own = randomBytes(32).toString('base64url');
    await writeKeys('UPDATE api_keys SET secret_hash = $1 WHERE id = $2', [createHash('sha256').update(own).digest('hex'), signer.record.id]);
    expect(await refused(`wv_${signer.record.id}_${own}`, vaultId)).toBe('UNAUTHENTICATED');
    // Because the state carries the key's secret hash as the row had it: sha256 of the 256-bit random secret.
    const entry = genesis.state.apiKeys!.find((k) => k.id === signer.record.id)!;
    expect(entry.secretHash).toBe(signer.record.secretHash);
    expect(entry.secretHash).toBe(createHash('sha256').update(signer.apiKey.slice('wv_'.length + 17)).digest('hex'));
    // The holder's key no longer matches the row: refused too (a writer can always deny; it cannot take over).
    expect(await refused(signer.apiKey, vaultId)).toBe('UNAUTHENTICATED');
    await writeKeys('UPDATE api_keys SET secret_hash = $1 WHERE id = $2', [signer.record.secretHash, signer.record.id]);
    expect((await authenticate(signer.apiKey, vaultId)).roles).toEqual(['admin', 'signer']);
  });

  it('a new key and a changed credential carry the secret hash into the proposal; the credential change keeps the state\'s, not the row\'s', async () => {
    const { vaultId } = await governed('secret in proposals');
    const voter = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], approverAddress: approvers[0]!.address });
    expect((await vault.governance.get(vaultId, voter.proposal!.id)).state.apiKeys!.find((k) => k.id === voter.record.id)!.secretHash).toBe(voter.record.secretHash);
    await inForce(vaultId, voter.proposal!.id);
    // A writer's hash in the row before the credential change: the proposal keeps the hash the state signed.
    await writeKeys('UPDATE api_keys SET secret_hash = $1 WHERE id = $2', ['ab'.repeat(32), voter.record.id]);
    const changed = await vault.manageVaults.setApproverAddress(vaultId, voter.record.id, approvers[1]!.address);
    expect((await vault.governance.get(vaultId, changed.proposal!.id)).state.apiKeys!.find((k) => k.id === voter.record.id)!.secretHash).toBe(voter.record.secretHash);
  });

  it("a listed approver key's group and credential rewritten by SQL: it acts with the state's group and address", async () => {
    const { vaultId } = await governed('rewritten approver');
    const voter = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], group: 'finance', approverAddress: approvers[0]!.address });
    await inForce(vaultId, voter.proposal!.id);
    await writeKeys('UPDATE api_keys SET approver_group = $1, approver_address = $2 WHERE id = $3', ['ops', approvers[2]!.address, voter.record.id]);
    expect((await vault.manageVaults.listApiKeys(vaultId)).find((k) => k.id === voter.record.id)).toMatchObject({ group: 'ops', approverAddress: approvers[2]!.address });
    expect(await authenticate(voter.apiKey, vaultId)).toMatchObject({ roles: ['approver'], group: 'finance', approverAddress: approvers[0]!.address });
  });

  it('api-keys create is a proposal: the key is refused until two approvers signed it, then works with its roles', async () => {
    const { vaultId } = await governed('create');
    const made = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer'] });
    expect(made.proposal).toEqual({ id: expect.any(String), documentHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const view = await vault.governance.get(vaultId, made.proposal!.id);
    expect(view.diff.apiKeys).toEqual({ added: [made.record.id], removed: [], changed: [] });
    expect(await refused(made.apiKey, vaultId)).toBe('UNAUTHENTICATED');
    await approve(vaultId, made.proposal!.id, approvers[0]!);
    expect(await refused(made.apiKey, vaultId)).toBe('UNAUTHENTICATED');
    await approve(vaultId, made.proposal!.id, approvers[2]!);
    expect((await authenticate(made.apiKey, vaultId)).roles).toEqual(['signer']);
  });

  it('revoke takes effect at once and proposes the removal; a database writer un-revoking the row restores only what the state lists', async () => {
    const { vaultId, signer } = await governed('revoke');
    const revoked = await vault.manageVaults.revokeApiKey(signer.record.id);
    expect(await refused(signer.apiKey, vaultId)).toBe('UNAUTHENTICATED');
    expect((await vault.governance.get(vaultId, revoked.proposal!.id)).diff.apiKeys).toEqual({ added: [], removed: [signer.record.id], changed: [] });
    // Before the removal is in force the state still lists the key: an un-revoked row authenticates again (docs/governance.md).
    await writeKeys('UPDATE api_keys SET revoked = NULL WHERE id = $1', [signer.record.id]);
    expect((await authenticate(signer.apiKey, vaultId)).roles).toEqual(['admin', 'signer']);
    await inForce(vaultId, revoked.proposal!.id);
    // Once the removal is in force, the un-revoked row gets nothing.
    expect(await refused(signer.apiKey, vaultId)).toBe('UNAUTHENTICATED');
  });

  it("set-roles on a governed vault is a proposal: the key keeps the state's roles until the quorum signed and the delay passed", async () => {
    const clock = new MovableClock();
    const timed = await store.open({ clock });
    const { id: vaultId } = await timed.manageVaults.create({ name: 'roles' });
    await timed.managePolicies.apply(vaultId, DOCUMENT);
    const key = await timed.manageVaults.createApiKey(vaultId, { roles: ['signer', 'reader'] });
    await timed.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address), delay: '1h' }, 'operator');
    const roles = async () => {
      timed.container.get(PolicyCache).invalidate(vaultId);
      return (await timed.authenticate.execute(key.apiKey, vaultId)).roles;
    };
    expect(await roles()).toEqual(['signer', 'reader']);
    await expect(timed.manageVaults.setApiKeyRoles(vaultId, key.record.id, ['signer', 'approver'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^roles: approver with signer/) });
    const changed = await timed.manageVaults.setApiKeyRoles(vaultId, key.record.id, ['reader'], 'operator:bob');
    expect(changed).toMatchObject({ roles: ['reader'], previousRoles: ['signer', 'reader'], proposal: { id: expect.any(String) } });
    const view = await timed.governance.get(vaultId, changed.proposal!.id);
    expect(view.diff.apiKeys).toEqual({ added: [], removed: [], changed: [key.record.id] });
    expect(view.state.apiKeys!.find((k) => k.id === key.record.id)).toEqual({ id: key.record.id, roles: ['reader'], group: null, approverAddress: null, secretHash: key.record.secretHash });
    const trail = (await timed.listAuditRecords.execute({ limit: 1000 })).filter((r) => r.vaultId === vaultId);
    expect(trail.filter((r) => r.action === 'api-key.roles-changed')).toEqual([]);
    expect(trail.filter((r) => r.action === 'governance.proposed').map((r) => r.actor)).toEqual(['operator:bob']);
    for (const who of [approvers[0]!, approvers[1]!]) await timed.governance.vote(vaultId, changed.proposal!.id, 'approve', await who.sign(view.typedData), 'operator');
    // The quorum signed; the delay has not passed.
    clock.advance(3_600_000 - 1000);
    expect(await roles()).toEqual(['signer', 'reader']);
    clock.advance(2000);
    expect(await roles()).toEqual(['reader']);
    // The row is left as it was: the state's roles are the ones that count.
    expect((await timed.manageVaults.listApiKeys(vaultId)).find((k) => k.id === key.record.id)!.roles).toEqual(['signer', 'reader']);
  });

  it("credential set on a governed vault is a proposal: the key's votes are signed by the new address once it is in force", async () => {
    const { vaultId } = await governed('credential');
    const voter = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], approverAddress: approvers[0]!.address });
    await inForce(vaultId, voter.proposal!.id);
    expect((await authenticate(voter.apiKey, vaultId)).approverAddress).toBe(approvers[0]!.address);
    const changed = await vault.manageVaults.setApproverAddress(vaultId, voter.record.id, approvers[1]!.address);
    expect((await vault.governance.get(vaultId, changed.proposal!.id)).diff.apiKeys).toEqual({ added: [], removed: [], changed: [voter.record.id] });
    expect((await authenticate(voter.apiKey, vaultId)).approverAddress).toBe(approvers[0]!.address);
    await inForce(vaultId, changed.proposal!.id);
    expect((await authenticate(voter.apiKey, vaultId)).approverAddress).toBe(approvers[1]!.address);
    // The row is left as it was: the state's credential is the one that counts.
    expect((await vault.manageVaults.listApiKeys(vaultId)).find((k) => k.id === voter.record.id)!.approverAddress).toBe(approvers[0]!.address);
  });

  it('a vault governed before keys were (its state has no apiKeys) takes its rows as they are; governance set proposes them', async () => {
    const { vaultId, reader, genesis } = await governed('earlier release');
    // The genesis as an earlier release wrote it: no apiKeys, no webhooks (the database of an upgraded vault).
    const { apiKeys: _keys, webhooks: _hooks, ...earlier } = genesis.state;
    const text = canonicalStateJson(earlier);
    await store.sql('UPDATE vault_governance SET genesis_state = $1, genesis_hash = $2, head_hash = $2 WHERE vault_id = $3', [text, stateHash(text), vaultId]);
    await writeKeys('UPDATE api_keys SET roles = $1 WHERE id = $2', ['signer,reader', reader.record.id]);
    expect((await vault.governance.show(vaultId)).problem).toBeNull();
    expect((await authenticate(reader.apiKey, vaultId)).roles).toEqual(['signer', 'reader']);
    const made = await vault.manageVaults.createApiKey(vaultId, { roles: ['reader'] });
    expect(made.proposal).toBeUndefined();

    const set = await vault.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address) }, 'operator');
    if (!('proposal' in set)) throw new Error('expected a proposal');
    const view = await vault.governance.get(vaultId, set.proposal.id);
    expect(view.diff.apiKeys).toMatchObject({ nowGoverned: true, removed: [] });
    expect(view.diff.apiKeys!.added).toContain(made.record.id);
    await inForce(vaultId, set.proposal.id);
    // From then on the roles the state captured; the row widened after that gets nothing.
    expect((await authenticate(made.apiKey, vaultId)).roles).toEqual(['reader']);
    await writeKeys('UPDATE api_keys SET roles = $1 WHERE id = $2', ['admin,signer,reader', made.record.id]);
    expect((await authenticate(made.apiKey, vaultId)).roles).toEqual(['reader']);
  });

  it('a state made before secret hashes were governed keeps its hash; its rows prove secrets until governance set proposes the hashes', async () => {
    const { vaultId, signer, reader, genesis } = await governed('earlier secrets');
    // The genesis as the release before wrote it: keys listed without secretHash.
    const earlier = { ...genesis.state, apiKeys: genesis.state.apiKeys!.map(({ secretHash: _hash, ...k }) => k) };
    const text = canonicalStateJson(earlier);
    await store.sql('UPDATE vault_governance SET genesis_state = $1, genesis_hash = $2, head_hash = $2 WHERE vault_id = $3', [text, stateHash(text), vaultId]);
    expect((await vault.governance.show(vaultId)).problem).toBeNull();
    // Not governed yet: the row's hash is the one that counts (docs/governance.md).
    const own = randomBytes(32).toString('base64url');
    await writeKeys('UPDATE api_keys SET secret_hash = $1 WHERE id = $2', [createHash('sha256').update(own).digest('hex'), reader.record.id]);
    expect((await authenticate(`wv_${reader.record.id}_${own}`, vaultId)).roles).toEqual(['reader']);
    await writeKeys('UPDATE api_keys SET secret_hash = $1 WHERE id = $2', [reader.record.secretHash, reader.record.id]);

    const set = await vault.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address) }, 'operator');
    if (!('proposal' in set)) throw new Error('expected a proposal');
    const view = await vault.governance.get(vaultId, set.proposal.id);
    expect(view.diff.apiKeys).toEqual({ added: [], removed: [], changed: [signer.record.id, reader.record.id].sort() });
    expect(view.state.apiKeys!.map((k) => k.secretHash)).toEqual(
      [signer.record, reader.record].sort((a, b) => (a.id < b.id ? -1 : 1)).map((r) => r.secretHash),
    );
    await inForce(vaultId, set.proposal.id);
    await writeKeys('UPDATE api_keys SET secret_hash = $1 WHERE id = $2', [createHash('sha256').update(own).digest('hex'), reader.record.id]);
    expect(await refused(`wv_${reader.record.id}_${own}`, vaultId)).toBe('UNAUTHENTICATED');
  });

  it('an ungoverned vault takes its key rows as they are', async () => {
    const { id: vaultId } = await vault.manageVaults.create({ name: 'plain' });
    const reader = await vault.manageVaults.createApiKey(vaultId, { roles: ['reader'] });
    expect(reader.proposal).toBeUndefined();
    await writeKeys('UPDATE api_keys SET roles = $1 WHERE id = $2', ['signer,reader', reader.record.id]);
    expect((await authenticate(reader.apiKey, vaultId)).roles).toEqual(['signer', 'reader']);
    expect(await vault.manageVaults.revokeApiKey(reader.record.id)).toEqual({});
  });
});

/*
 * Webhook endpoints under governance: events go only to the endpoints the signed state lists. A row a
 * database writer adds (its URL would receive the audit trail) gets nothing; an endpoint added after the
 * genesis is delivered to once its proposal is in force; one whose removal is in force gets nothing more.
 */
describe.each(DIALECTS)('governed webhook endpoints on %s', (dialect) => {
  let store: Store;
  let vault: Vault;
  const approvers: Approver[] = [ethersApprover(), viemApprover()];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open({ webhooks: true });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await store?.close();
  });

  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };
  const inForce = async (vaultId: string, id: string) => {
    for (const who of approvers) {
      const view = await vault.governance.get(vaultId, id);
      await vault.governance.vote(vaultId, id, 'approve', await who.sign(view.typedData), 'operator');
    }
    expect((await vault.governance.get(vaultId, id)).status).toBe('applied');
  };
  const events = (r: Receiver) => r.deliveries.filter((d) => d.body.includes('"type":"wallet.expired"')).length;

  it("a row the database writer adds gets nothing; an endpoint added by an approved proposal does; a removal in force stops one", async () => {
    const { id: vaultId } = await vault.manageVaults.create({ name: 'hooks' });
    await vault.managePolicies.apply(vaultId, DOCUMENT);
    const { apiKey } = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    const [genesisHook, planted, added] = [await receiver(), await receiver(), await receiver()];
    const first = await vault.manageWebhooks.add({ vaultId, url: genesisHook.url, events: ['wallet.expired'] });
    const set = await vault.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address) }, 'operator');
    expect('genesis' in set && set.genesis.state.webhooks).toEqual([{ id: first.id, url: first.url, events: ['wallet.expired'] }]);
    const principal = await vault.authenticate.execute(apiKey, vaultId);
    // Each event: a wallet made and expired (`wallet.expired`, delivered to the endpoints of its types).
    const emit = async (name: string) => vault.expireWallet.execute(principal, (await vault.createWallet.execute({ principal, name })).address);

    // The writer's endpoint: made on another vault, moved to this one by SQL.
    const { id: elsewhere } = await vault.manageVaults.create({ name: 'elsewhere' });
    const writers = await vault.manageWebhooks.add({ vaultId: elsewhere, url: planted.url, events: ['wallet.expired'] });
    await store.sql('UPDATE webhook_endpoints SET vault_id = $1 WHERE id = $2', [vaultId, writers.id]);
    // Added after the genesis: a proposal, its row delivered nothing until the proposal is in force.
    const second = await vault.manageWebhooks.add({ vaultId, url: added.url, events: ['wallet.expired'] });
    expect((await vault.governance.get(vaultId, second.proposal!.id)).diff.webhooks).toEqual({ added: [second.id], removed: [], changed: [] });

    await emit('one');
    await until(() => events(genesisHook) >= 1, 'the governed endpoint gets the first event');
    await inForce(vaultId, second.proposal!.id);
    await emit('two');
    // The endpoint in force since the genesis gets both; the one just approved gets what happened since its row was made.
    await until(() => events(genesisHook) >= 2 && events(added) >= 2, 'both governed endpoints get both events');
    expect(events(planted)).toBe(0);
    // Its cursor never reached this vault's events: the dispatcher skipped it, it did not merely find nothing.
    // (While the row was still another vault's, before the UPDATE, a pass may have moved it past that
    // vault's records: only the events after the move are this test's.)
    const firstEvent = (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).find((r) => r.action === 'wallet.expired')!.seq;
    const [row] = (await store.sql('SELECT delivered_seq FROM webhook_endpoints WHERE id = $1', [writers.id])) as { delivered_seq: number | string }[];
    expect(Number(row!.delivered_seq)).toBeLessThan(firstEvent);

    // Removing the genesis endpoint is a proposal: it still gets events until the removal is in force.
    const removal = await vault.manageWebhooks.remove(vaultId, first.id);
    expect((await vault.governance.get(vaultId, removal.proposal!.id)).diff.webhooks).toEqual({ added: [], removed: [first.id], changed: [] });
    await inForce(vaultId, removal.proposal!.id);
    await emit('three');
    await until(() => events(added) >= 3, 'the remaining endpoint gets the third event');
    expect([events(genesisHook), events(planted)]).toEqual([2, 0]);
  });
});
