import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { cliJson, migrateStore, runCli, spawnServer, type ChildServer } from '../support/cli.js';

interface KeyRow {
  id: string;
  label: string | null;
  expires: string | null;
  replacedBy: string | null;
  overlapEnds: string | null;
  replaces: string | null;
  firstUsed: string | null;
  roles: string[];
}

/*
 * `api-keys create --label --expires`, `api-keys list` and `api-keys rotate` (issue 52), against a running
 * server on the same store: the rotated key's successor authenticates at once, and its first use stops the
 * old key there (401 naming the rotation). Expiry and the overlap's end, which need the clock moved, are
 * tested in test/governance/api-key-lifecycle.test.ts.
 */
describe('wallet-vault api-keys: labels, expiry and rotation', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: ChildServer;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-key-lifecycle-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    server = await spawnServer(env);
  });
  afterAll(async () => {
    await server?.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('create --label --expires prints and lists both; rotate --overlap 1h --json prints the new key, which the server accepts, and its first use stops the old one (401 naming it)', async () => {
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'lifecycle'], env);
    const before = Date.now();
    const key = await cliJson<{ apiKey: string; id: string; label: string; expires: string }>(
      ['api-keys', 'create', '--vault', vault.id, '--roles', 'reader', '--label', 'dashboard', '--expires', '30d'],
      env,
    );
    expect(key.label).toBe('dashboard');
    const expires = Date.parse(key.expires);
    expect(expires - before).toBeGreaterThanOrEqual(30 * 86_400_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(30 * 86_400_000);
    const [row] = await cliJson<KeyRow[]>(['api-keys', 'list', '--vault', vault.id], env);
    expect(row).toMatchObject({ id: key.id, label: 'dashboard', expires: key.expires, replacedBy: null, overlapEnds: null, replaces: null, firstUsed: null });
    expect((await runCli(['api-keys', 'list', '--vault', vault.id], env)).stdout).toContain(`${key.id}  "dashboard"  sha256 `);

    const rotated = await cliJson<{ apiKey: string; id: string; replaces: string; overlapEnds: string; label: string; expires: string; roles: string[] }>(
      ['api-keys', 'rotate', '--vault', vault.id, '--id', key.id, '--overlap', '1h'],
      env,
    );
    expect(rotated).toMatchObject({ replaces: key.id, label: 'dashboard', expires: key.expires, roles: ['reader'] });
    expect(rotated.apiKey).toMatch(/^wv_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(rotated.apiKey).not.toBe(key.apiKey);
    const listed = await cliJson<KeyRow[]>(['api-keys', 'list', '--vault', vault.id], env);
    expect(listed.find((k) => k.id === key.id)).toMatchObject({ replacedBy: rotated.id, overlapEnds: rotated.overlapEnds });
    expect(JSON.stringify(listed)).not.toContain(rotated.apiKey.slice(20));

    const wallets = `/api/v1/vaults/${vault.id}/wallets`;
    expect((await client(server.url, key.apiKey).get(wallets)).status).toBe(200);
    expect((await client(server.url, rotated.apiKey).get(wallets)).status).toBe(200);
    const old = await client(server.url, key.apiKey).get(wallets);
    expect(old.status).toBe(401);
    expect(JSON.stringify(old.body)).toContain(`API key rotated: it was replaced by API key ${rotated.id}, which is in use since`);
    expect((await client(server.url, rotated.apiKey).get(wallets)).status).toBe(200);
    expect((await cliJson<KeyRow[]>(['api-keys', 'list', '--vault', vault.id], env)).find((k) => k.id === rotated.id)?.firstUsed).toMatch(/Z$/);
  }, 120_000); // eight commands, each a process of its own: a busy machine takes seconds for one

  it('refuses a bad label, expiry or overlap naming the option, and a second rotation of one key', async () => {
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'lifecycle-refusals'], env);
    const label = await runCli(['api-keys', 'create', '--vault', vault.id, '--label', 'a\u202eb'], env);
    expect(label.code).toBe(1);
    expect(label.stderr).toMatch(/label: must not contain format characters/);
    const expiry = await runCli(['api-keys', 'create', '--vault', vault.id, '--expires', 'tomorrow'], env);
    expect(expiry.code).toBe(1);
    expect(expiry.stderr).toMatch(/expires: "tomorrow" is neither a duration/);
    expect(await cliJson<unknown[]>(['api-keys', 'list', '--vault', vault.id], env)).toEqual([]);
    const key = await cliJson<{ id: string }>(['api-keys', 'create', '--vault', vault.id], env);
    const overlap = await runCli(['api-keys', 'rotate', '--vault', vault.id, '--id', key.id, '--overlap', '40d'], env);
    expect(overlap.stderr).toMatch(/overlap: 40d is longer than 31d/);
    expect((await runCli(['api-keys', 'rotate', '--vault', vault.id, '--id', key.id], env)).code).toBe(0);
    const again = await runCli(['api-keys', 'rotate', '--vault', vault.id, '--id', key.id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/was rotated already/);
  }, 120_000);
  it("set-roles changes a key's roles: the running server refuses a role taken away (403 naming it) and grants one given; audited; bad roles are usage errors", async () => {
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'set-roles'], env);
    const key = await cliJson<{ apiKey: string; id: string }>(['api-keys', 'create', '--vault', vault.id, '--roles', 'reader'], env);
    const wallets = `/api/v1/vaults/${vault.id}/wallets`;
    expect((await client(server.url, key.apiKey).get(wallets)).status).toBe(200);
    // Written by another process: the server's next read of the key sees it.
    const narrowed = await cliJson<{ id: string; roles: string[]; previousRoles: string[] }>(['api-keys', 'set-roles', '--vault', vault.id, '--id', key.id, '--roles', 'signer'], env);
    expect(narrowed).toEqual({ id: key.id, vault: vault.id, roles: ['signer'], previousRoles: ['reader'] });
    const refused = await client(server.url, key.apiKey).get(wallets);
    expect([refused.status, refused.body.code]).toEqual([403, 'ROLE_REQUIRED']);
    expect(refused.body.error).toContain('"reader"');
    const text = await runCli(['api-keys', 'set-roles', '--vault', vault.id, '--id', key.id, '--roles', 'reader,signer'], env);
    expect([text.code, text.stdout.trim()]).toEqual([0, `API key ${key.id}: roles signer,reader (were signer)`]);
    expect((await client(server.url, key.apiKey).get(wallets)).status).toBe(200);
    const unknown = await runCli(['api-keys', 'set-roles', '--vault', vault.id, '--id', key.id, '--roles', 'root'], env);
    expect([unknown.code, /roles: "root" is not one of/.test(unknown.stderr)]).toEqual([2, true]);
    const together = await runCli(['api-keys', 'set-roles', '--vault', vault.id, '--id', key.id, '--roles', 'signer,approver'], env);
    expect([together.code, /roles: approver with signer on one key needs allowSignerApprover/.test(together.stderr)]).toEqual([2, true]);
    const audit = await cliJson<{ action: string; actor: string; subject: string; details: Record<string, string> }[]>(['audit', 'list', '--vault', vault.id], env);
    expect(audit.filter((r) => r.action === 'api-key.roles-changed').map((r) => [r.actor, r.subject, r.details])).toEqual([
      ['operator', key.id, { roles: 'signer', previous: 'reader' }],
      ['operator', key.id, { roles: 'signer,reader', previous: 'signer' }],
    ]);
  }, 120_000);
});
