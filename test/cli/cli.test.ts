import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { cliJson, runCli, spawnServer, type ChildServer, migrateStore } from '../support/cli.js';
import { createSoftHsmToken } from '../support/softhsm.js';

describe('the wallet-vault command', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: ChildServer;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-cli-'));
    env = { VAULT_DATA_DIR: dataDir };
    server = await spawnServer(env);
  });
  afterAll(async () => {
    await server?.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates vaults and API keys that a running server on the same directory accepts at once', async () => {
    await migrateStore(env);
    const vault = await cliJson<{ id: string; account: string; name: string }>(['vaults', 'create', '--name', 'ops', '--account', 'acme'], env);
    expect(Object.keys(vault).sort()).toEqual(['account', 'id', 'name']);
    expect(vault).toMatchObject({ account: 'acme', name: 'ops' });
    const key = await cliJson<{ apiKey: string; vault: string }>(['api-keys', 'create', '--vault', vault.id], env);
    expect(key.vault).toBe(vault.id);
    expect(key.apiKey).toMatch(/^wv_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const r = await client(server.url, key.apiKey).post(`/api/v1/vaults/${vault.id}/wallets`, { name: 'from-cli-key' });
    expect(r.status).toBe(200);
  });

  it('lists keys by id and hash, never the key, and revocation takes effect on the running server', async () => {
    await migrateStore(env);
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'rev'], env);
    expect(vault).toMatchObject({ account: 'default' });
    const key = await cliJson<{ apiKey: string; id: string }>(['api-keys', 'create', '--vault', vault.id], env);
    const listed = await runCli(['api-keys', 'list', '--vault', vault.id, '--json'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key.apiKey);
    expect(listed.stdout).not.toContain(key.apiKey.slice(20));
    const rows = JSON.parse(listed.stdout) as { id: string; hash: string; revoked: string | null }[];
    // The hash is of the key's secret part, so an operator can match a leaked key to its record.
    const secretHash = createHash('sha256').update(key.apiKey.slice('wv_0123456789abcdef_'.length)).digest('hex');
    expect(rows).toEqual([expect.objectContaining({ id: key.id, hash: secretHash, revoked: null })]);
    const plain = await runCli(['api-keys', 'list', '--vault', vault.id], env);
    expect(plain.stdout).toContain(key.id);
    expect(plain.stdout).not.toContain(key.apiKey.slice(20));

    const api = client(server.url, key.apiKey);
    expect((await api.get(`/api/v1/vaults/${vault.id}/wallets`)).status).toBe(200);
    expect((await runCli(['api-keys', 'revoke', '--id', key.id], env)).code).toBe(0);
    expect((await api.get(`/api/v1/vaults/${vault.id}/wallets`)).status).toBe(401);
    const after = JSON.parse((await runCli(['api-keys', 'list', '--vault', vault.id, '--json'], env)).stdout);
    expect(after[0].revoked).toMatch(/Z$/);
    const again = await runCli(['api-keys', 'revoke', '--id', '0123456789abcdef'], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/api key 0123456789abcdef does not exist/);
  });

  it('creates a key with roles and networks, lists them, and the running server holds the key to both', async () => {
    await migrateStore(env);
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'scoped'], env);
    const key = await cliJson<{ apiKey: string; id: string; roles: string[]; allowCidrs: string[] | null }>(
      ['api-keys', 'create', '--vault', vault.id, '--roles', 'reader,signer', '--allow-cidrs', '127.0.0.0/8,2001:DB8::/32'],
      env,
    );
    expect(key).toMatchObject({ roles: ['signer', 'reader'], allowCidrs: ['127.0.0.0/8', '2001:db8::/32'] });
    const elsewhere = await cliJson<{ apiKey: string; roles: string[]; allowCidrs: string[] | null }>(['api-keys', 'create', '--vault', vault.id, '--allow-cidrs', '192.0.2.7/32'], env);
    // Without --roles: every role but approver (a second plain key must not approve the first's requests).
    expect(elsewhere.roles).toEqual(['admin', 'signer', 'reader']);
    const rows = await cliJson<{ id: string; roles: string[]; allowCidrs: string[] | null }[]>(['api-keys', 'list', '--vault', vault.id], env);
    expect(rows.find((r) => r.id === key.id)).toMatchObject({ roles: ['signer', 'reader'], allowCidrs: ['127.0.0.0/8', '2001:db8::/32'] });
    const plain = await runCli(['api-keys', 'list', '--vault', vault.id], env);
    expect(plain.stdout).toContain(`${key.id}  sha256`);
    expect(plain.stdout).toMatch(/roles signer,reader {2}from 127\.0\.0\.0\/8,2001:db8::\/32/);
    // An approver key's group and whether its votes are signed are in the plain listing too.
    const approver = await cliJson<{ id: string }>(['api-keys', 'create', '--vault', vault.id, '--roles', 'approver', '--group', 'treasury'], env);
    expect((await runCli(['api-keys', 'list', '--vault', vault.id], env)).stdout).toMatch(new RegExp(`${approver.id} .*roles approver {2}from anywhere {2}group treasury {2}votes unsigned \\(no credential\\)`));

    const api = client(server.url, key.apiKey);
    expect((await api.get(`/api/v1/vaults/${vault.id}/wallets`)).status).toBe(200);
    expect((await api.post(`/api/v1/vaults/${vault.id}/wallets`, { name: 'not mine to make' })).body.code).toBe('ROLE_REQUIRED');
    expect((await client(server.url, elsewhere.apiKey).get(`/api/v1/vaults/${vault.id}/wallets`)).body.code).toBe('FORBIDDEN_NETWORK');
  });

  it('refuses an unknown role or a range that is not one, naming it, and creates no key', async () => {
    await migrateStore(env);
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'typos'], env);
    const role = await runCli(['api-keys', 'create', '--vault', vault.id, '--roles', 'signer,root'], env);
    expect(role.code).toBe(2);
    expect(role.stderr).toMatch(/roles: "root" is not one of admin, signer, reader, approver/);
    const range = await runCli(['api-keys', 'create', '--vault', vault.id, '--allow-cidrs', '10.0.0.1/8'], env);
    expect(range.code).toBe(2);
    expect(range.stderr).toMatch(/allow-cidrs: "10.0.0.1\/8" has bits set past its prefix length/);
    expect(await cliJson<unknown[]>(['api-keys', 'list', '--vault', vault.id], env)).toEqual([]);
  });

  it('refuses approver with signer or admin on one key unless --allow-signer-approver, exit 2 naming the flag; approver alone is fine', async () => {
    await migrateStore(env);
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'separation'], env);
    for (const roles of ['signer,approver', 'admin,approver', 'admin,signer,reader,approver']) {
      const refused = await runCli(['api-keys', 'create', '--vault', vault.id, '--roles', roles], env);
      expect(refused.code, roles).toBe(2);
      expect(refused.stderr, roles).toMatch(/--allow-signer-approver/);
    }
    expect(await cliJson<unknown[]>(['api-keys', 'list', '--vault', vault.id], env)).toEqual([]);
    const approver = await cliJson<{ roles: string[] }>(['api-keys', 'create', '--vault', vault.id, '--roles', 'approver,reader'], env);
    expect(approver.roles).toEqual(['reader', 'approver']);
    const both = await cliJson<{ roles: string[] }>(['api-keys', 'create', '--vault', vault.id, '--roles', 'signer,approver', '--allow-signer-approver'], env);
    expect(both.roles).toEqual(['signer', 'approver']);
  });

  it('lists the vaults it created', async () => {
    await migrateStore(env);
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'listed', '--account', 'zeta'], env);
    const all = await cliJson<{ id: string; account: string; name: string; created: string }[]>(['vaults', 'list'], env);
    expect(all).toContainEqual({ id: vault.id, account: 'zeta', name: 'listed', created: expect.stringMatching(/Z$/) });
  });

  it('prints help for every command and fails clearly on an unknown vault', async () => {
    const helps: [string[], RegExp][] = [
      [['--help'], /serve[\s\S]*vaults[\s\S]*api-keys/],
      [['serve', '--help'], /Usage: wallet-vault serve/],
      [['vaults', 'create', '--help'], /--name <name>[\s\S]*--account <account>[\s\S]*--json/],
      [['vaults', 'list', '--help'], /--json/],
      [['api-keys', 'create', '--help'], /--vault <vaultId>[\s\S]*--roles <roles>[\s\S]*--allow-cidrs <ranges>[\s\S]*--json/],
      [['api-keys', 'list', '--help'], /--vault <vaultId>[\s\S]*--json/],
      [['api-keys', 'revoke', '--help'], /--id <keyId>[\s\S]*--json/],
    ];
    const results = await Promise.all(helps.map(([args]) => runCli(args, env)));
    helps.forEach(([args, options], i) => {
      expect(results[i]!.code, args.join(' ')).toBe(0);
      expect(results[i]!.stdout, args.join(' ')).toMatch(/Usage: wallet-vault/);
      expect(results[i]!.stdout, args.join(' ')).toMatch(options);
    });
    const r = await runCli(['api-keys', 'create', '--vault', 'no-such-vault'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/vault no-such-vault does not exist/);
  }, 60_000);

  it.each([
    [{ VAULT_MASTER_KEY: 'xyz' }, /VAULT_MASTER_KEY/],
    [{ VAULT_AUTH_SECRET_KEY: 'too-short' }, /VAULT_AUTH_SECRET_KEY: must be at least 32 characters/],
    [{ PORT: 'abc' }, /PORT/],
    [{ VAULT_KEYSTORE: 'floppy' }, /VAULT_KEYSTORE/],
    [{ VAULT_WORKERS: '0' }, /VAULT_WORKERS: must be between 1 and 256/],
    [{ VAULT_DATABASE_URL: 'mysql://db/vault' }, /VAULT_DATABASE_URL: must be a postgres:\/\/ URL/],
    [{ VAULT_DATABASE_URL: 'postgres://db/vault', VAULT_DATABASE_POOL_SIZE: '0' }, /VAULT_DATABASE_POOL_SIZE: must be between 1 and 1000/],
    [{ VAULT_DATABASE_URL: 'postgres://db/vault', VAULT_DATABASE_QUERY_TIMEOUT_MS: '5s' }, /VAULT_DATABASE_QUERY_TIMEOUT_MS: must be a whole number/],
    [{ VAULT_DATABASE_URL: 'postgres://db/vault', VAULT_DATABASE_SCHEMA: 'vault; DROP TABLE wallets' }, /VAULT_DATABASE_SCHEMA: must be a plain lower-case identifier/],
    [{ VAULT_DATABASE_URL: 'postgres://db/vault', VAULT_DATABASE_SCHEMA: 'Vault' }, /VAULT_DATABASE_SCHEMA: must be a plain lower-case identifier/],
    [{ VAULT_DATABASE_SCHEMA: 'vault' }, /VAULT_DATABASE_SCHEMA: only with VAULT_DATABASE_URL/],
    [{ VAULT_RPC_URL_SEPOLIA: 'not a url' }, /VAULT_RPC_URL_SEPOLIA/],
  ])('refuses to start with %o, naming the variable', async (bad, message) => {
    const r = await runCli(['serve'], { ...env, ...bad });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
  });

  it('serves with the pkcs11 store from the compiled command, not only under the test runner', async () => {
    const token = createSoftHsmToken('cli-serve');
    const hsmDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-cli-hsm-'));
    const hsmEnv = { VAULT_DATA_DIR: hsmDir, VAULT_KEYSTORE: 'pkcs11', VAULT_PKCS11_MODULE: token.modulePath, VAULT_PKCS11_TOKEN: token.tokenLabel, VAULT_PKCS11_PIN: token.pin };
    const hsm = await spawnServer(hsmEnv);
    try {
      await migrateStore(hsmEnv);
      const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'hsm'], hsmEnv);
      const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], hsmEnv);
      const api = client(hsm.url, apiKey);
      const r = await api.post(`/api/v1/vaults/${vault.id}/wallets`, { name: 'in hsm' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // Many signatures at once run on several token sessions in parallel threads: the module must be
      // initialised for that, or it corrupts its heap and the process aborts.
      const sign = {
        chain: 'local',
        contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        sender: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
        uniq: `0x${'ab'.repeat(32)}`,
        signer: r.body.data.address,
        abi: { type: 'function', name: 'f', inputs: [{ name: 's', type: 'tuple', components: [{ name: 'n', type: 'bytes32' }, { name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' }, { name: 'v', type: 'uint8' }] }] },
        args: [],
      };
      // 32 clients, 100 signatures each back to back: without OS locking SoftHSM aborts the server, usually within a few hundred.
      const statuses = await Promise.all(
        Array.from({ length: 32 }, async () => {
          const seen: number[] = [];
          for (let i = 0; i < 100; i++) seen.push((await api.post(`/api/v1/vaults/${vault.id}/sign`, sign).then((x) => x.status, () => 0)));
          return seen;
        }),
      );
      expect(statuses.flat().filter((st) => st !== 200), 'statuses other than 200 (0: connection failed)').toEqual([]);
      expect((await fetch(`${hsm.url}/readyz`)).status).toBe(200);
    } finally {
      await hsm.kill('SIGTERM');
      await rm(hsmDir, { recursive: true, force: true });
    }
    // 3 200 signatures through SoftHSM: about 15 s alone, several times that on a loaded 2-core machine.
  }, 180_000);
});
