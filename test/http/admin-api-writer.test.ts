import { createHash, randomBytes } from 'node:crypto';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachBackend, type Target } from '../support/backends.js';
import { client } from '../support/http-client.js';
import { sqlSessionOn } from '../support/sql-session.js';

const ADMIN = '/api/v1/admin';
const POLICY = { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }] };
const WIDER = { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }, { id: 'typed', effect: 'allow', kinds: ['typed-data'] }] };

/*
 * An operator row inserted by plain SQL, as a database writer (docs/security.md, "What a database writer
 * can change") would: the credential's secret is stored as its sha256, so a writer who picks a secret can
 * write the row that matches it. What that operator can and cannot do through the admin API is the
 * residual the docs state: on a vault that is not governed, what the writer could already do with the
 * vault's own rows; on a governed one, only proposals for the approvers.
 */
describeEachBackend(
  'an operator row a database writer inserts',
  (backend) => {
    let s: Target;
    let credential: string;
    const as = () => client(s.url, credential);


    beforeAll(async () => {
      s = await backend.start();
      const id = randomBytes(8).toString('hex');
      const secret = randomBytes(32).toString('base64url');
      credential = `wvop_${id}_${secret}`;
      // Plain SQL, as a database writer has it (test/support/sql-session.ts).
      const writer = await sqlSessionOn(s.dataDir, s.database?.url);
      await writer.run('INSERT INTO operators (id, name, roles, vaults, secret_hash, created) VALUES (?, ?, ?, ?, ?, ?)', [
        id,
        'mallory',
        'vault-admin,key-admin',
        null,
        createHash('sha256').update(secret).digest('hex'),
        s.database ? new Date() : Date.now(),
      ]);
      await writer.close();
    });
    afterAll(async () => {
      await s?.close();
    });

    it('residual: it authenticates, and on a vault that is not governed changes the policy and makes keys, each recorded under operator:mallory', async () => {
      const vault = (await s.vault.manageVaults.create({ name: 'plain' })).id;
      const policy = await as().put(`${ADMIN}/vaults/${vault}/policy`, POLICY);
      expect(policy.status, JSON.stringify(policy.body)).toBe(200);
      expect((await as().post(`${ADMIN}/vaults/${vault}/api-keys`, { roles: ['signer'] })).status).toBe(200);
      const trail = (await s.vault.listAuditRecords.execute({ limit: 1000 })).filter((r) => r.vaultId === vault && ['policy.changed', 'api-key.created'].includes(r.action));
      expect(trail.map((r) => [r.action, r.actor])).toEqual([
        ['policy.changed', 'operator:mallory'],
        ['api-key.created', 'operator:mallory'],
      ]);
    });

    it('attack: on a governed vault its policy and its new key are proposals (the policy in force unchanged, the key refused until signed), a rotation is refused', async () => {
      const vault = (await s.vault.manageVaults.create({ name: 'governed' })).id;
      expect((await as().put(`${ADMIN}/vaults/${vault}/policy`, POLICY)).status).toBe(200);
      const existing = (await s.vault.manageVaults.createApiKey(vault, { roles: ['reader'] })).record.id;
      await s.vault.governance.set(vault, { required: 2, approvers: [Wallet.createRandom().address, Wallet.createRandom().address] }, 'operator');

      const policy = await as().put(`${ADMIN}/vaults/${vault}/policy`, WIDER);
      expect(policy.status, JSON.stringify(policy.body)).toBe(200);
      expect(policy.body.data.proposal).toMatchObject({ id: expect.any(String) });
      expect((await as().get(`${ADMIN}/vaults/${vault}/policy`)).body.data.policy.rules.map((r: { id: string }) => r.id)).toEqual(['messages']);
      const key = await as().post(`${ADMIN}/vaults/${vault}/api-keys`, { roles: ['signer'] });
      expect(key.body.data.proposal).toMatchObject({ id: expect.any(String) });
      // The key is made, but not in the signed state until the approvers sign the proposal: it opens nothing.
      expect((await client(s.url, key.body.data.apiKey as string).get(`/api/v1/vaults/${vault}/wallets`)).status).toBe(401);
      const rotation = await as().post(`${ADMIN}/vaults/${vault}/api-keys/${existing}/rotate`, {});
      expect([rotation.status, rotation.body.code]).toEqual([400, 'INVALID_ARGUMENT']);
      expect(rotation.body.error).toContain('is governed');
    });
  },
  { shell: 'standalone' },
);
