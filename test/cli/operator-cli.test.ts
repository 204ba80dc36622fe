import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, migrateStore, runCli, spawnServer, type ChildServer } from '../support/cli.js';

/*
 * The CLI as a named operator (docs/operators.md): with --server and --operator-key-file a command the
 * admin API covers is sent there and recorded under `operator:<name>`, opening no store (the commands run
 * with a data directory that does not exist); without them the command is the local operator's, as before.
 */
describe('wallet-vault as a named operator (--server, --operator-key-file)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  /** No store at all: what the remote commands run with. */
  const away = { VAULT_DATA_DIR: '/nonexistent/wallet-vault-operator-cli' };
  let server: ChildServer;
  let aliceFile: string;
  let bobFile: string;
  const as = (file: string, args: string[]) => cliJson<any>([...args, '--server', server.url, '--operator-key-file', file], away);

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-operator-cli-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    server = await spawnServer(env);
    const write = async (name: string, roles: string) => {
      const made = await cliJson<{ apiKey: string }>(['operators', 'create', '--name', name, '--roles', roles], env);
      const file = path.join(dataDir, `${name}.operator`);
      await writeFile(file, `${made.apiKey}\n`, { mode: 0o600 });
      return file;
    };
    aliceFile = await write('alice', 'vault-admin');
    bobFile = await write('bob', 'key-admin');
  });
  afterAll(async () => {
    await server?.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('vaults create, policies apply, api-keys create, rotate, revoke and freeze as named operators; audit list names each', async () => {
    const vault = await as(aliceFile, ['vaults', 'create', '--name', 'remote']);
    expect(vault).toMatchObject({ name: 'remote', account: 'default' });
    expect((await as(bobFile, ['vaults', 'list'])).map((v: { id: string }) => v.id)).toEqual([vault.id]);

    const document = path.join(dataDir, 'policy.json');
    await writeFile(document, JSON.stringify({ version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }] }));
    const applied = await as(aliceFile, ['policies', 'apply', '--vault', vault.id, '--file', document]);
    expect(applied.policy).toMatchObject({ version: 2, rules: [{ id: 'messages' }] });

    const key = await as(bobFile, ['api-keys', 'create', '--vault', vault.id, '--roles', 'signer,reader', '--label', 'backend', '--expires', '30d']);
    expect(key).toMatchObject({ vault: vault.id, roles: ['signer', 'reader'], label: 'backend' });
    expect(key.apiKey).toMatch(/^wv_[0-9a-f]{16}_/);
    const listed = await as(bobFile, ['api-keys', 'list', '--vault', vault.id]);
    expect(listed.map((k: { id: string }) => k.id)).toEqual([key.id]);
    const rotated = await as(bobFile, ['api-keys', 'rotate', '--vault', vault.id, '--id', key.id, '--overlap', '1h']);
    expect(rotated).toMatchObject({ replaces: key.id, label: 'backend' });
    expect(await as(bobFile, ['api-keys', 'revoke', '--vault', vault.id, '--id', rotated.id])).toEqual({ id: rotated.id, revoked: true });
    expect(await as(bobFile, ['freeze', '--vault', vault.id, '--reason', 'drill'])).toEqual({ vault: vault.id, frozen: true, freezes: 1 });
    expect(await as(aliceFile, ['unfreeze', '--vault', vault.id])).toEqual({ vault: vault.id, lifted: 1 });
    // The local operator, as before: no credential, the store opened, audited as `operator`.
    const local = await cliJson<{ id: string }>(['api-keys', 'create', '--vault', vault.id, '--roles', 'reader'], env);

    const trail = await cliJson<{ action: string; actor: string; subject: string }[]>(['audit', 'list', '--vault', vault.id, '--limit', '1000'], env);
    expect(trail.map((r) => [r.action, r.actor])).toEqual([
      ['vault.created', 'operator:alice'],
      ['policy.changed', 'operator:alice'],
      ['api-key.created', 'operator:bob'],
      ['api-key.rotated', 'operator:bob'],
      ['api-key.revoked', 'operator:bob'],
      ['vault.frozen', 'operator:bob'],
      ['vault.unfrozen', 'operator:alice'],
      ['api-key.created', 'operator'],
    ]);
    expect(trail.at(-1)!.subject).toBe(local.id);
    // Each command is a process of its own: generous for a loaded machine, not a timing margin.
  }, 180_000);

  it('api-keys set-roles as a named operator: the server changes the roles and records them under its name', async () => {
    const vault = await as(aliceFile, ['vaults', 'create', '--name', 'remote roles']);
    const key = await as(bobFile, ['api-keys', 'create', '--vault', vault.id, '--roles', 'signer,reader']);
    expect(await as(bobFile, ['api-keys', 'set-roles', '--vault', vault.id, '--id', key.id, '--roles', 'reader'])).toEqual({ id: key.id, vault: vault.id, roles: ['reader'], previousRoles: ['signer', 'reader'] });
    const trail = await cliJson<{ action: string; actor: string; subject: string }[]>(['audit', 'list', '--vault', vault.id, '--limit', '1000'], env);
    expect(trail.filter((r) => r.action === 'api-key.roles-changed').map((r) => [r.actor, r.subject])).toEqual([['operator:bob', key.id]]);
  }, 120_000);

  it("refuses what the operator's role does not allow with the server's words, a command the admin API lacks, and a credential file others may read", async () => {
    const vault = await as(aliceFile, ['vaults', 'create', '--name', 'refusals']);
    const denied = await runCli(['vaults', 'create', '--name', 'x', '--server', server.url, '--operator-key-file', bobFile, '--json'], away);
    expect([denied.code, JSON.parse(denied.stderr)]).toEqual([1, { code: 'ROLE_REQUIRED', error: 'operator bob (roles key-admin) may not do this (vaults.create): it needs the role vault-admin' }]);
    const notCovered = await runCli(['webhooks', 'list', '--vault', vault.id, '--server', server.url, '--operator-key-file', aliceFile, '--json'], away);
    expect(notCovered.code).toBe(1);
    expect(JSON.parse(notCovered.stderr).code).toBe('NOT_REMOTE');
    const alone = await runCli(['vaults', 'list', '--server', server.url, '--json'], away);
    expect([alone.code, JSON.parse(alone.stderr).error]).toEqual([1, '--server and --operator-key-file go together: the admin API to call and the operator credential to call it with']);
    await chmod(aliceFile, 0o644);
    try {
      const open = await runCli(['vaults', 'list', '--server', server.url, '--operator-key-file', aliceFile, '--json'], away);
      expect([open.code, JSON.parse(open.stderr).code]).toEqual([1, 'KEY_FILE']);
    } finally {
      await chmod(aliceFile, 0o600);
    }
  }, 120_000);
});
