import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachBackend, type Target } from '../support/backends.js';
import { client } from '../support/http-client.js';

const ADMIN = '/api/v1/admin';
const POLICY = { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }] };
/** The document as applied: checked and written out whole. */
const APPLIED = { ...POLICY, limits: [] };

/*
 * The admin API (docs/operators.md) over every backend: named operators act with their own credentials,
 * each within its roles and vault scope, and every action and refusal is in the audit trail under
 * `operator:<name>`.
 */
describeEachBackend('the admin API', (backend) => {
  let s: Target;
  const credentials: Record<string, string> = {};
  let scopedVault: string;
  let otherVault: string;
  const as = (name: string) => client(s.url, credentials[name]);
  const records = () => s.vault.listAuditRecords.execute({ limit: 1000 });

  beforeAll(async () => {
    s = await backend.start();
    scopedVault = (await s.vault.manageVaults.create({ name: 'scoped' })).id;
    otherVault = (await s.vault.manageVaults.create({ name: 'other' })).id;
    const make = async (name: string, roles: string, vaults?: string[]) =>
      (credentials[name] = (await s.vault.manageOperators.create({ name, roles, ...(vaults ? { vaults } : {}) })).credential);
    await make('alice', 'vault-admin');
    await make('bob', 'key-admin');
    await make('carol', 'auditor');
    await make('dave', 'key-admin', [scopedVault]);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('two operators create a vault, set its policy and create a key; the trail names each; the key works', async () => {
    const created = await as('alice').post(`${ADMIN}/vaults`, { name: 'payments' });
    expect(created.status).toBe(200);
    const vault = created.body.data as { id: string; name: string; account: string };
    expect(vault).toMatchObject({ name: 'payments', account: 'default' });
    expect((await as('alice').put(`${ADMIN}/vaults/${vault.id}/policy`, POLICY)).body.data).toEqual({ vault: vault.id, policy: APPLIED });
    const key = await as('bob').post(`${ADMIN}/vaults/${vault.id}/api-keys`, { roles: ['reader'], label: 'dashboard', expires: '30d' });
    expect(key.status).toBe(200);
    expect(key.body.data).toMatchObject({ vault: vault.id, roles: ['reader'], label: 'dashboard', revoked: null });
    expect(key.body.data.apiKey).toMatch(/^wv_[0-9a-f]{16}_/);
    expect((await client(s.url, key.body.data.apiKey).get(`/api/v1/vaults/${vault.id}/status`)).status).toBe(200);

    const mine = (await records()).filter((r) => r.vaultId === vault.id).map((r) => [r.action, r.actor]);
    expect(mine).toEqual([
      ['vault.created', 'operator:alice'],
      ['policy.changed', 'operator:alice'],
      ['api-key.created', 'operator:bob'],
    ]);
    // What the others may read, they read: the auditor the policy and the keys (never a key or its hash).
    expect((await as('carol').get(`${ADMIN}/vaults/${vault.id}/policy`)).body.data).toEqual({ vault: vault.id, policy: APPLIED });
    const listed = (await as('carol').get(`${ADMIN}/vaults/${vault.id}/api-keys`)).body.data as Record<string, unknown>[];
    expect(listed.map((k) => k.id)).toEqual([key.body.data.id]);
    expect(JSON.stringify(listed)).not.toContain(key.body.data.apiKey.slice(20));
    expect(listed[0]).not.toHaveProperty('hash');
  });

  it('an operator is refused what its role does not allow: 403 ROLE_REQUIRED naming the role, recorded under its name', async () => {
    const refused = await as('carol').post(`${ADMIN}/vaults/${otherVault}/api-keys`, { roles: ['reader'] });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ success: false, code: 'ROLE_REQUIRED', error: 'operator carol (roles auditor) may not do this (api-keys.change): it needs the role key-admin' });
    const policy = await as('bob').put(`${ADMIN}/vaults/${otherVault}/policy`, POLICY);
    expect([policy.status, policy.body.code, policy.body.error]).toEqual([403, 'ROLE_REQUIRED', 'operator bob (roles key-admin) may not do this (policy.change): it needs the role vault-admin']);
    expect((await as('carol').post(`${ADMIN}/vaults`, { name: 'nope' })).status).toBe(403);
    const last = (await records()).filter((r) => r.action === 'auth.refused' && r.actor === 'operator:carol').at(-1)!;
    expect(last).toMatchObject({ subject: 'carol', details: { operation: 'POST /api/v1/admin/vaults', roles: 'auditor' } });
    // Nothing was made.
    expect(await s.vault.manageVaults.listApiKeys(otherVault)).toEqual([]);
  });

  it('a scoped operator sees and acts on its vaults only; creating a vault needs an operator of every vault', async () => {
    const vaults = (await as('dave').get(`${ADMIN}/vaults`)).body.data as { id: string }[];
    expect(vaults.map((v) => v.id)).toEqual([scopedVault]);
    expect((await as('dave').post(`${ADMIN}/vaults/${scopedVault}/api-keys`, { roles: ['reader'] })).status).toBe(200);
    const outside = await as('dave').post(`${ADMIN}/vaults/${otherVault}/api-keys`, { roles: ['reader'] });
    expect([outside.status, outside.body.code, outside.body.error]).toEqual([403, 'ROLE_REQUIRED', `operator dave acts on vaults ${scopedVault} only, not vault ${JSON.stringify(otherVault)}`]);
    const rotate = await as('dave').post(`${ADMIN}/vaults/${otherVault}/api-keys/0000000000000000/rotate`, {});
    expect(rotate.status).toBe(403);
    const refusal = (await records()).filter((r) => r.action === 'auth.refused' && r.actor === 'operator:dave').at(-1)!;
    expect(refusal.vaultId).toBe(otherVault);
  });

  it('no, a malformed, an API key or a revoked credential is 401 with the Bearer challenge', async () => {
    const none = await client(s.url).get(`${ADMIN}/vaults`);
    expect([none.status, none.body.code]).toEqual([401, 'UNAUTHENTICATED']);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="wallet-vault"');
    const apiKey = (await s.vault.manageVaults.createApiKey(otherVault, { roles: ['admin'] })).apiKey;
    const wrongKind = await client(s.url, apiKey).get(`${ADMIN}/vaults`);
    expect([wrongKind.status, wrongKind.body.error]).toEqual([401, 'malformed operator credential']);
    expect(wrongKind.headers.get('www-authenticate')).toBe('Bearer realm="wallet-vault", error="invalid_token"');
    const forged = credentials.alice!.slice(0, -4) + 'AAAA';
    expect((await client(s.url, forged).get(`${ADMIN}/vaults`)).body.error).toBe('invalid operator credential');
    const { credential } = await s.vault.manageOperators.create({ name: 'erin', roles: 'auditor' });
    expect((await client(s.url, credential).get(`${ADMIN}/vaults`)).status).toBe(200);
    await s.vault.manageOperators.revoke('erin');
    expect((await client(s.url, credential).get(`${ADMIN}/vaults`)).body).toEqual({ success: false, code: 'UNAUTHENTICATED', error: 'invalid operator credential' });
  });

  it('bad input is a 400 naming the field, and changes nothing', async () => {
    const bob = as('bob');
    const at = `${ADMIN}/vaults/${otherVault}/api-keys`;
    const cases: [unknown, string][] = [
      [{ roles: ['root'] }, 'roles.0: each must be one of admin, signer, reader, approver'],
      [{ allowCidrs: ['10.0.0.1/99'] }, 'allowCidrs: "10.0.0.1/99" has a prefix longer than 32 bits'],
      [{ expires: 'soon' }, 'expires: "soon" is neither a duration (30d, 12h) nor an ISO 8601 time with a zone (2027-01-31T00:00Z)'],
      [{ scope: 'all' }, 'scope: is not a field of this request (roles, allowSignerApprover, allowCidrs, group, approverAddress, label, expires)'],
      [{ roles: ['signer', 'approver'] }, ''],
    ];
    const before = (await s.vault.manageVaults.listApiKeys(otherVault)).length;
    for (const [body, error] of cases) {
      const answer = await bob.post(at, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      if (error !== '') expect(answer.body.error).toBe(error);
    }
    expect((await s.vault.manageVaults.listApiKeys(otherVault)).length).toBe(before);
    const vault = await as('alice').post(`${ADMIN}/vaults`, { name: 'x', label: 'x' });
    expect([vault.status, vault.body.error]).toEqual([400, 'label: is not a field of this request (name, account)']);
    const policy = await as('alice').put(`${ADMIN}/vaults/${otherVault}/policy`, { version: 2, rules: [{ id: 'x', effect: 'maybe' }] });
    expect(policy.status).toBe(400);
    expect(policy.body.error).toMatch(/^rules\[0\]\.effect|effect/);
    const unknownVault = await bob.get(`${ADMIN}/vaults/0190f7e2-5b7a-7c3e-9d4f-2a1b3c4d5e6f/api-keys`);
    expect([unknownVault.status, unknownVault.body.code]).toEqual([404, 'VAULT_NOT_FOUND']);
  });

  it('rotates and revokes a key, refuses a key of another vault, and freezes a vault: each audited under the operator', async () => {
    const bob = as('bob');
    const made = (await bob.post(`${ADMIN}/vaults/${otherVault}/api-keys`, { roles: ['reader'], label: 'rotated' })).body.data;
    const rotated = await bob.post(`${ADMIN}/vaults/${otherVault}/api-keys/${made.id}/rotate`, { overlap: '1h' });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toMatchObject({ replaces: made.id, label: 'rotated', roles: ['reader'] });
    const elsewhere = await as('dave').delete(`${ADMIN}/vaults/${scopedVault}/api-keys/${rotated.body.data.id}`);
    expect([elsewhere.status, elsewhere.body.error]).toEqual([400, `id: api key "${rotated.body.data.id}" is not a key of vault ${scopedVault}`]);
    expect((await bob.delete(`${ADMIN}/vaults/${otherVault}/api-keys/${rotated.body.data.id}`)).body.data).toEqual({ id: rotated.body.data.id, revoked: true });
    const frozen = await bob.post(`${ADMIN}/vaults/${otherVault}/freeze`, { reason: 'drill' });
    expect(frozen.body.data).toEqual({ vault: otherVault, frozen: true, freezes: 1 });
    const trail = (await records()).filter((r) => r.vaultId === otherVault && ['api-key.rotated', 'api-key.revoked', 'vault.frozen'].includes(r.action)).map((r) => [r.action, r.actor]);
    // The overlap is counted from the rotation's instant, as its record has it.
    const rotation = (await records()).find((r) => r.action === 'api-key.rotated' && r.subject === made.id)!;
    expect(Date.parse(rotated.body.data.overlapEnds) - rotation.at.getTime()).toBe(3_600_000);
    expect(trail).toEqual([
      ['api-key.rotated', 'operator:bob'],
      ['api-key.revoked', 'operator:bob'],
      ['vault.frozen', 'operator:bob'],
    ]);
  });
  it("changes a key's roles: a role taken away is refused (403 naming it), one given works; audited under the operator; bad roles are 400 naming roles", async () => {
    const bob = as('bob');
    const made = (await bob.post(`${ADMIN}/vaults/${otherVault}/api-keys`, { roles: ['reader'], label: 'roles' })).body.data;
    const holder = client(s.url, made.apiKey);
    const wallets = `/api/v1/vaults/${otherVault}/wallets`;
    expect((await holder.get(wallets)).status).toBe(200);
    const at = `${ADMIN}/vaults/${otherVault}/api-keys/${made.id}/roles`;

    const narrowed = await bob.put(at, { roles: ['signer'] });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.data).toMatchObject({ id: made.id, vault: otherVault, label: 'roles', roles: ['signer'], previousRoles: ['reader'] });
    expect(narrowed.body.data).not.toHaveProperty('proposal');
    // The holder's very next request: this instance's key cache was told.
    const refused = await holder.get(wallets);
    expect([refused.status, refused.body.code]).toEqual([403, 'ROLE_REQUIRED']);
    expect(refused.body.error).toContain('"reader"');
    expect((await bob.put(at, { roles: ['reader', 'signer'] })).body.data).toMatchObject({ roles: ['signer', 'reader'], previousRoles: ['signer'] });
    expect((await holder.get(wallets)).status).toBe(200);
    // The roles it holds: nothing changes, nothing is recorded.
    expect((await bob.put(at, { roles: ['signer', 'reader'] })).body.data).toMatchObject({ roles: ['signer', 'reader'], previousRoles: ['signer', 'reader'] });
    const trail = (await records()).filter((r) => r.action === 'api-key.roles-changed' && r.subject === made.id).map((r) => [r.actor, r.details]);
    expect(trail).toEqual([
      ['operator:bob', { roles: 'signer', previous: 'reader' }],
      ['operator:bob', { roles: 'signer,reader', previous: 'signer' }],
    ]);

    const cases: [unknown, string][] = [
      [{}, 'roles: is required'],
      [{ roles: [] }, 'roles: at least one role'],
      [{ roles: 'reader' }, 'roles: must be an array of roles'],
      [{ roles: ['root'] }, 'roles.0: each must be one of admin, signer, reader, approver'],
      [{ roles: ['signer', 'approver'] }, 'roles: approver with signer on one key needs allowSignerApprover (CLI --allow-signer-approver); give approvers keys of their own'],
      [{ roles: ['reader'], label: 'x' }, 'label: is not a field of this request (roles, allowSignerApprover)'],
    ];
    for (const [body, error] of cases) {
      const answer = await bob.put(at, body);
      expect([answer.status, answer.body.code, answer.body.error], JSON.stringify(body)).toEqual([400, 'INVALID_ARGUMENT', error]);
    }
    expect((await bob.put(at, { roles: ['signer', 'approver'], allowSignerApprover: true })).body.data.roles).toEqual(['signer', 'approver']);
    const elsewhere = await as('dave').put(`${ADMIN}/vaults/${scopedVault}/api-keys/${made.id}/roles`, { roles: ['reader'] });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([400, `id: api key "${made.id}" is not a key of vault ${scopedVault}`]);
    const auditor = await as('carol').put(at, { roles: ['reader'] });
    expect([auditor.status, auditor.body.error]).toEqual([403, 'operator carol (roles auditor) may not do this (api-keys.change): it needs the role key-admin']);
    await bob.delete(`${ADMIN}/vaults/${otherVault}/api-keys/${made.id}`);
    const revoked = await bob.put(at, { roles: ['reader'] });
    expect([revoked.status, revoked.body.error]).toEqual([400, `id: api key ${made.id} is revoked`]);
  });
});
