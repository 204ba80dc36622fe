import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import type { Vault } from '../../lib/index.js';
import { RefusedAuthSummary } from '../../src/application/access/refused-auth-summary.js';
import { MovableClock } from '../support/movable-clock.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { until } from '../support/webhook-receiver.js';
import { DOCUMENT, ethersApprover, openStore, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/*
 * API keys with a lifecycle (issue 52; docs/security.md, "API key lifecycle"): a label, an expiry, and
 * rotation with an overlap. The clock is the vault's (moved, never slept on); two instances share one
 * database, so the new key's first use on one stops the old key on the other.
 */
describe.each(DIALECTS)('API key lifecycle on %s', (dialect) => {
  let store: Store;
  let vault: Vault;
  let other: Vault;
  const clock = new MovableClock();
  clock.freeze();

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open({ clock });
    other = await store.open({ clock });
  });
  afterAll(async () => {
    await store?.close();
  });

  const outcome = (on: Vault, apiKey: string, vaultId: string) =>
    on.authenticate.execute(apiKey, vaultId).then(
      (p) => `ok ${p.roles.join(',')}`,
      (e: { code?: string; message?: string }) => `${e.code} ${e.message}`,
    );
  const trail = async (vaultId: string, action: string) => (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === action);
  const listed = async (vaultId: string, id: string) => (await vault.manageVaults.listApiKeys(vaultId)).find((k) => k.id === id)!;
  const refusedWith = async (reason: string) => {
    await vault.container.get(RefusedAuthSummary).flush();
    const records = await vault.listAuditRecords.execute({ limit: 1000 });
    return records.some((r) => r.action === 'auth.refused' && String(r.details.reasons ?? '').includes(reason));
  };

  it('a key created with a label and an expiry lists both, authenticates until the expiry, then is refused 401 naming it (auth.refused: expired API key)', async () => {
    const { id: vaultId } = await vault.manageVaults.create({ name: 'expiring' });
    const { apiKey, record } = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer'], label: '  ci deploy  ', expires: '30d' });
    const expires = new Date(clock.now().getTime() + 30 * DAY);
    expect(record).toMatchObject({ label: 'ci deploy', expires });
    expect(await listed(vaultId, record.id)).toMatchObject({ label: 'ci deploy', expires });
    const [created] = await trail(vaultId, 'api-key.created');
    expect(created!.details).toMatchObject({ label: 'ci deploy', expires: expires.toISOString() });

    expect(await outcome(vault, apiKey, vaultId)).toBe('ok signer');
    clock.advance(30 * DAY - 1);
    expect(await outcome(vault, apiKey, vaultId)).toBe('ok signer');
    clock.advance(1);
    expect(await outcome(vault, apiKey, vaultId)).toBe(`UNAUTHENTICATED API key expired at ${expires.toISOString()}`);
    expect(await refusedWith('expired API key')).toBe(true);
  });

  it('an ISO 8601 expiry is taken as given; a bad label or expiry is refused naming the field, nothing written', async () => {
    const { id: vaultId } = await vault.manageVaults.create({ name: 'iso-expiry' });
    const at = new Date(clock.now().getTime() + 2 * DAY);
    const { record } = await vault.manageVaults.createApiKey(vaultId, { expires: at.toISOString() });
    expect(record.expires).toEqual(at);
    const bad = (access: { label?: string; expires?: string }) => vault.manageVaults.createApiKey(vaultId, access).then(() => 'created', (e: Error) => e.message);
    expect(await bad({ label: '' })).toMatch(/^label: /);
    expect(await bad({ label: 'x'.repeat(201) })).toMatch(/^label: must be at most 200/);
    expect(await bad({ label: 'ops\u0007' })).toMatch(/^label: must not contain control characters/);
    expect(await bad({ label: 'evil\u202eoiv' })).toMatch(/^label: must not contain format characters \(it contains U\+202E\)/);
    expect(await bad({ expires: 'soon' })).toMatch(/^expires: "soon" is neither a duration/);
    expect(await bad({ expires: '2020-01-01T00:00Z' })).toMatch(/^expires: 2020-01-01T00:00:00.000Z is not in the future/);
    expect(await bad({ expires: '2027-01-01T00:00' })).toMatch(/^expires: .* with a zone/);
    expect(await bad({ expires: '3651d' })).toMatch(/^expires: 3651d is longer than 3650d/);
    expect((await vault.manageVaults.listApiKeys(vaultId)).map((k) => k.id)).toEqual([record.id]);
  });

  it('a key row from before the lifecycle columns (all null) works as before: no label, no expiry, never rotated', async () => {
    const { id: vaultId } = await vault.manageVaults.create({ name: 'legacy' });
    const { apiKey, record } = await vault.manageVaults.createApiKey(vaultId, { roles: ['reader'] });
    await store.sql('UPDATE api_keys SET label = NULL, expires = NULL, replaced_by = NULL, overlap_ends = NULL, replaces = NULL, first_used = NULL WHERE id = $1', [record.id]);
    const row = await listed(vaultId, record.id);
    expect(row.label ?? null).toBeNull();
    expect(row.expires ?? null).toBeNull();
    clock.advance(3650 * DAY);
    expect(await outcome(vault, apiKey, vaultId)).toBe('ok reader');
  });

  it('rotate with a 1h overlap: the new key (same roles, group, credential, label) works at once; the old one works until the new one is first used, then is refused 401 naming the rotation, on the other instance too', async () => {
    const { id: vaultId } = await vault.manageVaults.create({ name: 'rotate-used' });
    const address = Wallet.createRandom().address;
    const old = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], group: 'finance', approverAddress: address, label: 'alice', expires: '90d' });
    const { apiKey, record, replaced } = await vault.manageVaults.rotateApiKey(vaultId, old.record.id, '1h');
    expect(apiKey).not.toBe(old.apiKey);
    expect(record).toMatchObject({ roles: ['approver'], group: 'finance', approverAddress: address, label: 'alice', expires: old.record.expires, replaces: old.record.id });
    expect(replaced).toMatchObject({ id: old.record.id, replacedBy: record.id, overlapEnds: new Date(clock.now().getTime() + HOUR) });
    const [rotated] = await trail(vaultId, 'api-key.rotated');
    expect(rotated).toMatchObject({ subject: old.record.id, actor: 'operator', details: { replacedBy: record.id, label: 'alice', overlapEnds: replaced.overlapEnds!.toISOString() } });

    clock.advance(30 * MINUTE);
    expect(await outcome(vault, old.apiKey, vaultId)).toBe('ok approver');
    expect(await outcome(other, old.apiKey, vaultId)).toBe('ok approver');
    // The new key's first use, on the other instance: it is recorded, and the old key stops.
    expect(await outcome(other, apiKey, vaultId)).toBe('ok approver');
    const firstUsed = clock.now();
    expect((await listed(vaultId, record.id)).firstUsed).toEqual(firstUsed);
    const stopped = `UNAUTHENTICATED API key rotated: it was replaced by API key ${record.id}, which is in use since ${firstUsed.toISOString()}`;
    expect(await outcome(other, old.apiKey, vaultId)).toBe(stopped);
    // This instance learns of it from the database (PostgreSQL's notification reaches its key cache).
    await until(async () => (await outcome(vault, old.apiKey, vaultId)) === stopped, 'the old key refused on the first instance');
    expect(await outcome(vault, apiKey, vaultId)).toBe('ok approver');
    expect(await refusedWith('rotated API key')).toBe(true);
  });

  it('rotate, the new key never used: the old key works to the last instant of the overlap, then is refused naming its end', async () => {
    const { id: vaultId } = await vault.manageVaults.create({ name: 'rotate-unused' });
    const old = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer', 'reader'] });
    const { apiKey, record, replaced } = await vault.manageVaults.rotateApiKey(vaultId, old.record.id, '1h');
    expect(record.label ?? null).toBeNull();
    clock.advance(HOUR - 1);
    expect(await outcome(vault, old.apiKey, vaultId)).toBe('ok signer,reader');
    clock.advance(1);
    expect(await outcome(vault, old.apiKey, vaultId)).toBe(
      `UNAUTHENTICATED API key rotated: it was replaced by API key ${record.id}, and its overlap ended at ${replaced.overlapEnds!.toISOString()}`,
    );
    expect(await outcome(vault, apiKey, vaultId)).toBe('ok signer,reader');
  });

  it('rotate is refused for a key rotated already, a revoked key, a key of another vault and a bad overlap, each naming the field; nothing written', async () => {
    const { id: vaultId } = await vault.manageVaults.create({ name: 'rotate-refused' });
    const { id: elsewhere } = await vault.manageVaults.create({ name: 'rotate-elsewhere' });
    const key = await vault.manageVaults.createApiKey(vaultId, {});
    const gone = await vault.manageVaults.createApiKey(vaultId, {});
    await vault.manageVaults.revokeApiKey(gone.record.id);
    const rotate = (v: string, id: string, overlap = '1h') => vault.manageVaults.rotateApiKey(v, id, overlap).then(() => 'rotated', (e: Error) => e.message);
    expect(await rotate(vaultId, key.record.id, '32d')).toBe('overlap: 32d is longer than 31d');
    expect(await rotate(vaultId, key.record.id, 'later')).toMatch(/^overlap: "later" is not a whole number and a unit/);
    expect(await rotate(elsewhere, key.record.id)).toBe(`id: api key "${key.record.id}" is not a key of vault ${elsewhere}`);
    expect(await rotate(vaultId, gone.record.id)).toMatch(/^id: api key .* is revoked/);
    expect(await rotate(vaultId, key.record.id)).toBe('rotated');
    expect(await rotate(vaultId, key.record.id)).toMatch(/^id: api key .* was rotated already \(replaced by [0-9a-f]{16}\)/);
    expect(await vault.manageVaults.listApiKeys(vaultId)).toHaveLength(3);
    expect(await trail(vaultId, 'api-key.rotated')).toHaveLength(1);
  });

  it('on a governed vault rotate is refused, saying that keys change there only by proposals (nothing written); expiry still ends a key the state lists', async () => {
    const approvers = [ethersApprover(), ethersApprover()];
    const { id: vaultId } = await vault.manageVaults.create({ name: 'rotate-governed' });
    await vault.managePolicies.apply(vaultId, DOCUMENT);
    const key = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer'], label: 'bot', expires: '1d' });
    const set = await vault.governance.set(vaultId, { required: 1, approvers: approvers.map((a) => a.address) }, 'operator');
    expect('genesis' in set).toBe(true);
    const refusal = await vault.manageVaults.rotateApiKey(vaultId, key.record.id, '1h').then(() => null, (e: { code: string; message: string }) => e);
    expect(refusal?.code).toBe('INVALID_ARGUMENT');
    expect(refusal?.message).toContain(`vault ${vaultId} is governed: its keys change only by proposals its approvers sign`);
    expect(refusal?.message).toContain('api-keys create (a proposal), then revoke this one with api-keys revoke');
    expect(await vault.manageVaults.listApiKeys(vaultId)).toHaveLength(1);
    expect(await trail(vaultId, 'api-key.rotated')).toHaveLength(0);
    expect(await outcome(vault, key.apiKey, vaultId)).toBe('ok signer');
    clock.advance(DAY);
    expect(await outcome(vault, key.apiKey, vaultId)).toMatch(/^UNAUTHENTICATED API key expired at /);
  });
});
