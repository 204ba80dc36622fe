import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient, VaultError } from '../../client/index.js';
import { DOCUMENT, WIDER } from '../governance/support.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/*
 * The client of the admin API (docs/operators.md, docs/client.md): a named operator's calls, its role's
 * refusal as a VaultError, and a governed vault's changes left to its approvers as the CLI leaves them.
 */
describe('AdminClient', () => {
  let s: TestServer;
  let admin: AdminClient;
  let keys: AdminClient;
  let auditor: AdminClient;
  const operator = async (name: string, roles: string) => new AdminClient({ baseUrl: s.url, credential: (await s.server.vault.manageOperators.create({ name, roles })).credential, retries: 0 });

  beforeAll(async () => {
    s = await startTestServer();
    admin = await operator('vera', 'vault-admin');
    keys = await operator('kim', 'key-admin');
    auditor = await operator('ada', 'auditor');
  });
  afterAll(() => s?.stop());

  it('creates a vault, sets its policy, makes, lists, rotates and revokes a key; an auditor is refused a change with ROLE_REQUIRED', async () => {
    const vault = await admin.createVault('client-made');
    expect((await admin.listVaults()).map((v) => v.id)).toContain(vault.id);
    expect(await admin.setPolicy(vault.id, DOCUMENT)).toEqual({ vault: vault.id, policy: DOCUMENT });
    expect(await auditor.getPolicy(vault.id)).toEqual({ vault: vault.id, policy: DOCUMENT });
    const made = await keys.createApiKey(vault.id, { roles: ['reader'], label: 'reports' });
    expect(made).toMatchObject({ vault: vault.id, roles: ['reader'], label: 'reports' });
    const rotated = await keys.rotateApiKey(vault.id, made.id, { overlap: '10m' });
    expect(rotated.replaces).toBe(made.id);
    expect(await keys.setApiKeyRoles(rotated.vault, rotated.id, ['approver'])).toMatchObject({ id: rotated.id, roles: ['approver'], previousRoles: ['reader'] });
    const together = await keys.setApiKeyRoles(vault.id, rotated.id, ['signer', 'approver']).catch((e: unknown) => e);
    expect(together).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
    expect(await keys.revokeApiKey(vault.id, made.id)).toEqual({ id: made.id, revoked: true });
    expect((await auditor.listApiKeys(vault.id)).map((k) => [k.id, k.revoked !== null])).toEqual([
      [made.id, true],
      [rotated.id, false],
    ]);
    const refused = await auditor.freeze(vault.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(VaultError);
    expect(refused).toMatchObject({ status: 403, code: 'ROLE_REQUIRED' });
    expect((refused as Error).message).toContain('needs the role vault-admin or key-admin');
  });

  it('on a governed vault a policy or a new key is a proposal and a rotation is refused, as the CLI does', async () => {
    const vault = await admin.createVault('governed');
    await admin.setPolicy(vault.id, DOCUMENT);
    const existing = await keys.createApiKey(vault.id, { roles: ['reader'] });
    await s.server.vault.governance.set(vault.id, { required: 2, approvers: [Wallet.createRandom().address, Wallet.createRandom().address] }, 'operator');
    const proposed = await admin.setPolicy(vault.id, WIDER);
    expect(proposed.policy).toBeUndefined();
    expect(proposed.proposal?.documentHash).toMatch(/^0x[0-9a-f]{64}$|^[0-9a-f]{64}$/);
    // The policy in force is still the one the approvers signed.
    expect((await auditor.getPolicy(vault.id)).policy).toEqual(DOCUMENT);
    expect((await keys.createApiKey(vault.id, { roles: ['reader'] })).proposal).toBeDefined();
    const rotation = await keys.rotateApiKey(vault.id, existing.id).catch((e: unknown) => e);
    expect(rotation).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
    expect((rotation as Error).message).toContain('is governed');
    // A role change there is a proposal too: the answer has the proposed roles and what the state lists.
    const roles = await keys.setApiKeyRoles(vault.id, existing.id, ['signer', 'reader']);
    expect(roles).toMatchObject({ id: existing.id, roles: ['signer', 'reader'], previousRoles: ['reader'], proposal: { id: expect.any(String) } });
  });
});
