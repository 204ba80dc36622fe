import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliJson, runCli, type CliResult } from '../support/cli.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';

/** No store from the test runner's own environment leaks into a run that means to have none. */
const NO_STORE = { VAULT_DATA_DIR: '', VAULT_DATABASE_URL: '' };
const jsonError = (r: CliResult) => JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { error: string; code: string };

// Each test runs the real command several times (a node process each), in parallel where it can.
describe('the wallet-vault command cannot surprise an operator', { timeout: 120_000 }, () => {
  let root: string;
  let dataDir: string;
  let vaultId: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'wallet-vault-cli-surprise-'));
    dataDir = path.join(root, 'served');
    await cliJson(['migrate', '--data-dir', dataDir], NO_STORE);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'ops', '--data-dir', dataDir], NO_STORE)).id;
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('refuses a read on a data directory that does not exist, and creates nothing there', async () => {
    const elsewhere = path.join(root, 'elsewhere');
    await mkdir(elsewhere);
    const r = await runCli(['vaults', 'list'], NO_STORE, { cwd: elsewhere });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`data directory ${path.join(elsewhere, 'data')} does not exist`);
    expect(r.stderr).toMatch(/--data-dir/);
    expect(await readdir(elsewhere)).toEqual([]);

    // A directory that exists but holds no database is refused as well (and stays empty).
    const listed = await runCli(['audit', 'list', '--data-dir', elsewhere], NO_STORE);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(`data directory ${elsewhere} holds no vault.db`);
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it('takes --data-dir before or after the command, resolved against the working directory, and says which store it opened', async () => {
    const after = await runCli(['vaults', 'list', '--data-dir', 'served', '--json'], NO_STORE, { cwd: root });
    const before = await runCli(['--data-dir', dataDir, 'vaults', 'list', '--json'], NO_STORE);
    const fromEnv = await runCli(['vaults', 'list', '--json'], { VAULT_DATA_DIR: dataDir });
    for (const r of [after, before, fromEnv]) {
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ id: vaultId, name: 'ops' })]);
      expect(r.stderr).toBe(`wallet-vault: using SQLite ${path.join(dataDir, 'vault.db')}\n`);
    }
    // The option wins over the environment.
    const wins = await runCli(['vaults', 'list', '--data-dir', dataDir, '--json'], { VAULT_DATA_DIR: path.join(root, 'nowhere') });
    expect(wins.code, wins.stderr).toBe(0);
  });

  it.skipIf(!POSTGRES_AVAILABLE)('takes --database-url and names the PostgreSQL database it opened', async () => {
    let db: TestDatabase | undefined;
    try {
      db = await createTestDatabase();
      expect((await runCli(['migrate', '--database-url', db.url], NO_STORE, { cwd: root })).code).toBe(0);
      const created = await runCli(['vaults', 'create', '--name', 'pg', '--database-url', db.url, '--json'], NO_STORE, { cwd: root });
      expect(created.code, created.stderr).toBe(0);
      expect(created.stderr).toMatch(new RegExp(`^wallet-vault: using PostgreSQL database "${db.name}" on 127\\.0\\.0\\.1:5432\\n$`));
      const listed = await cliJson<{ name: string }[]>(['vaults', 'list'], { ...NO_STORE, VAULT_DATABASE_URL: db.url });
      expect(listed.map((v) => v.name)).toEqual(['pg']);
      expect(existsSync(path.join(root, 'data')), 'no SQLite store beside it').toBe(false);
    } finally {
      await db?.drop();
    }
  });

  it('prints its version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await runCli([flag], NO_STORE);
      expect(r).toEqual({ code: 0, stdout: `wallet-vault ${version}\n`, stderr: '' });
    }
  });

  it('exits 2 for usage and configuration errors, 1 for a refusal, 0 for success', async () => {
    const cases: [string[], Record<string, string>, number, RegExp][] = [
      [[], NO_STORE, 2, /Usage: wallet-vault/],
      [['vaults', 'create'], NO_STORE, 2, /required option '--name <name>' not specified/],
      [['vaults', 'list', '--bogus'], NO_STORE, 2, /unknown option '--bogus'/],
      [['frobnicate'], NO_STORE, 2, /unknown command 'frobnicate'/],
      [['audit', 'list', '--limit', 'x', '--data-dir', dataDir], NO_STORE, 2, /--limit must be a non-negative integer/],
      [['vaults', 'list', '--data-dir', dataDir], { LOG_LEVEL: 'loud' }, 2, /LOG_LEVEL/],
      [['vaults', 'list', '--database-url', 'mysql://db/vault'], NO_STORE, 2, /VAULT_DATABASE_URL: must be a postgres:\/\/ URL/],
      [['api-keys', 'list', '--vault', 'nope', '--data-dir', dataDir], NO_STORE, 1, /vault nope does not exist/],
      [['vaults', 'list', '--data-dir', dataDir], NO_STORE, 0, /using SQLite/],
    ];
    const results = await Promise.all(cases.map(([args, env]) => runCli(args, env)));
    cases.forEach(([args, , code, message], i) => {
      expect(results[i]!.code, args.join(' ')).toBe(code);
      expect(results[i]!.stderr + results[i]!.stdout, args.join(' ')).toMatch(message);
    });
  });

  it('with --json writes every error as one JSON object on stderr, with a stable code', async () => {
    const cases: [string[], Record<string, string>, number, string, RegExp][] = [
      [['vaults', 'create', '--json'], NO_STORE, 2, 'USAGE', /required option '--name <name>' not specified/],
      [['vaults', 'list', '--json'], { LOG_LEVEL: 'loud', VAULT_DATA_DIR: dataDir }, 2, 'CONFIG', /LOG_LEVEL/],
      [['vaults', 'list', '--json', '--data-dir', path.join(root, 'nowhere')], NO_STORE, 1, 'STORE_NOT_FOUND', /does not exist/],
      [['policies', 'show', '--vault', 'nope', '--json', '--data-dir', dataDir], NO_STORE, 1, 'VAULT_NOT_FOUND', /^vault nope does not exist$/],
      [['api-keys', 'revoke', '--id', '0123456789abcdef', '--json', '--data-dir', dataDir], NO_STORE, 1, 'INVALID_ARGUMENT', /api key 0123456789abcdef does not exist/],
    ];
    const results = await Promise.all(cases.map(([args, env]) => runCli(args, env)));
    cases.forEach(([args, , exit, code, message], i) => {
      const r = results[i]!;
      expect(r.code, args.join(' ')).toBe(exit);
      expect(r.stdout, args.join(' ')).toBe('');
      const error = jsonError(r);
      expect(error.code, args.join(' ')).toBe(code);
      expect(error.error, args.join(' ')).toMatch(message);
      expect(r.stderr, 'no help text or plain message beside the JSON').not.toMatch(/Usage:|^wallet-vault: (?!using)/m);
    });
  });

  it('marks required options in help', async () => {
    const helps: [string[], string][] = [
      [['vaults', 'create', '--help'], '--name <name>'],
      [['api-keys', 'create', '--help'], '--vault <vaultId>'],
      [['api-keys', 'list', '--help'], '--vault <vaultId>'],
      [['api-keys', 'revoke', '--help'], '--id <keyId>'],
      [['policies', 'set', '--help'], '--vault <vaultId>'],
    ];
    const results = await Promise.all(helps.map(([args]) => runCli(args, NO_STORE)));
    helps.forEach(([args, option], i) => {
      expect(results[i]!.code).toBe(0);
      const line = results[i]!.stdout.split('\n').find((l) => l.trim().startsWith(option));
      expect(line, args.join(' ')).toMatch(/\(required\)/);
    });
    const optional = (await runCli(['vaults', 'create', '--help'], NO_STORE)).stdout.split('\n').find((l) => l.includes('--account'));
    expect(optional).not.toMatch(/required/);
  });

  it('answers "vault … does not exist" the same way from every command that names a vault', async () => {
    const commands = [
      ['audit', 'list', '--vault', 'nope'],
      ['policies', 'show', '--vault', 'nope'],
      ['policies', 'set', '--vault', 'nope', '--chains', 'local'],
      ['policies', 'clear', '--vault', 'nope'],
      ['api-keys', 'create', '--vault', 'nope'],
      ['api-keys', 'list', '--vault', 'nope'],
    ];
    const results = await Promise.all(commands.map((args) => runCli([...args, '--data-dir', dataDir], NO_STORE)));
    results.forEach((r, i) => {
      expect(r.code, commands[i]!.join(' ')).toBe(1);
      expect(r.stdout, commands[i]!.join(' ')).toBe('');
      expect(r.stderr.split('\n').at(-2), commands[i]!.join(' ')).toBe('wallet-vault: vault nope does not exist');
    });
  });

  it('keys rewrap names an unknown store and the known ones, and a known store that is not configured', async () => {
    const bogus = await runCli(['keys', 'rewrap', '--store', 'bogus', '--data-dir', dataDir], NO_STORE);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toMatch(/'bogus' is invalid\. Allowed choices are local, pkcs11, aws-kms, vault-transit/);
    expect(bogus.stderr).not.toMatch(/Transit.*not configured/i);
    const unconfigured = await runCli(['keys', 'rewrap', '--store', 'aws-kms', '--data-dir', dataDir], NO_STORE);
    expect(unconfigured.code).toBe(1);
    expect(unconfigured.stderr).toMatch(/key store aws-kms is not configured \(configured: local\)/);
  });

  it('mixes no log lines into its output: a key store warning is one plain line on stderr', async () => {
    const r = await runCli(['keys', 'rewrap', '--store', 'local', '--json', '--data-dir', dataDir], { ...NO_STORE, LOG_LEVEL: 'info' });
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toContain(`wallet-vault: using SQLite ${path.join(dataDir, 'vault.db')}`);
    // Without VAULT_MASTER_KEY the local store warns; the CLI shows it as text, not as a pino JSON line.
    expect(lines).toContainEqual(expect.stringMatching(/^wallet-vault: warning: VAULT_MASTER_KEY is not set/));
    expect(r.stderr).not.toMatch(/"level"|"msg"/);
    expect(jsonError(r)).toEqual({ error: 'key store local does not wrap keys; nothing to rewrap', code: 'INVALID_ARGUMENT' });
  });

  it('before the first build says what to run instead of failing with a stack trace', async () => {
    const clone = path.join(root, 'clone');
    await mkdir(path.join(clone, 'bin'), { recursive: true });
    await cp(BIN, path.join(clone, 'bin', 'wallet-vault.js'));
    const r = await runCli(['vaults', 'list'], NO_STORE, { bin: path.join(clone, 'bin', 'wallet-vault.js') });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`wallet-vault: not built yet: run \`npm run build\` in ${clone}/ first (npm start builds too)\n`);
  });
});
