import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { cliJson, migrateStore, runCli, spawnServer, type ChildServer } from '../support/cli.js';

interface Made {
  id: string;
  name: string;
  apiKey: string;
  roles: string[];
  vaults: string[] | null;
}

/*
 * `wallet-vault operators create|list|revoke` (docs/operators.md) against a running server on the same
 * store: two named operators change a policy and create a key through the admin API, `audit list` names
 * each (and the local operator that made them), a revoked operator is refused at once.
 */
describe('wallet-vault operators', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: ChildServer;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-operators-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    server = await spawnServer(env);
  });
  afterAll(async () => {
    await server?.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('create --json prints the credential once; two operators act through the admin API; audit list names each; revoke stops one', async () => {
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'operated'], env);
    const alice = await cliJson<Made>(['operators', 'create', '--name', 'alice', '--roles', 'vault-admin'], env);
    const bob = await cliJson<Made>(['operators', 'create', '--name', 'bob', '--role', 'key-admin', '--vault', vault.id], env);
    expect(alice).toMatchObject({ name: 'alice', roles: ['vault-admin'], vaults: null });
    expect(bob).toMatchObject({ name: 'bob', roles: ['key-admin'], vaults: [vault.id] });
    expect(alice.apiKey).toMatch(/^wvop_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);

    const policy = await client(server.url, alice.apiKey).put(`/api/v1/admin/vaults/${vault.id}/policy`, { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }] });
    expect(policy.status).toBe(200);
    const key = await client(server.url, bob.apiKey).post(`/api/v1/admin/vaults/${vault.id}/api-keys`, { roles: ['signer'], label: 'bob made it' });
    expect(key.status).toBe(200);

    const trail = await cliJson<{ action: string; actor: string; subject: string }[]>(['audit', 'list', '--limit', '1000'], env);
    expect(trail.filter((r) => r.action !== 'schema.migrated').map((r) => [r.action, r.actor, r.subject])).toEqual([
      ['vault.created', 'operator', vault.id],
      ['operator.created', 'operator', 'alice'],
      ['operator.created', 'operator', 'bob'],
      ['policy.changed', 'operator:alice', vault.id],
      ['api-key.created', 'operator:bob', key.body.data.id],
    ]);
    const listed = await cliJson<{ name: string; revoked: string | null }[]>(['operators', 'list'], env);
    expect(listed.map((o) => o.name)).toEqual(['alice', 'bob']);
    expect(JSON.stringify(listed)).not.toContain(alice.apiKey.slice(22));

    await cliJson(['operators', 'revoke', '--name', 'bob'], env);
    expect((await client(server.url, bob.apiKey).get('/api/v1/admin/vaults')).status).toBe(401);
    expect((await client(server.url, alice.apiKey).get('/api/v1/admin/vaults')).status).toBe(200);
    // Eight commands, each a process of its own: a busy machine takes seconds per start.
  }, 180_000);

  it('refuses an unknown role, a bad name or a taken one, naming it, and writes nothing', async () => {
    const role = await runCli(['operators', 'create', '--name', 'carol', '--roles', 'root'], env);
    expect([role.code, role.stderr.trim()]).toEqual([2, 'wallet-vault: roles: "root" is not an operator role (vault-admin, key-admin, auditor)']);
    const none = await runCli(['operators', 'create', '--name', 'carol'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--roles vault-admin,key-admin,auditor');
    const name = await runCli(['operators', 'create', '--name', 'Carol', '--roles', 'auditor'], env);
    expect([name.code, name.stderr]).toEqual([2, expect.stringContaining('name: "Carol" is not an operator name')]);
    const taken = await runCli(['operators', 'create', '--name', 'alice', '--roles', 'auditor'], env);
    expect([taken.code, taken.stderr]).toEqual([1, expect.stringContaining('name: an operator named alice exists already')]);
    expect((await cliJson<{ name: string }[]>(['operators', 'list'], env)).map((o) => o.name)).not.toContain('carol');
  }, 120_000);
});
