import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVault } from '../../lib/index.js';
import { cliJson, runCli, spawnServer } from '../support/cli.js';

/**
 * One configuration file (decisions.md: `--config F` / `VAULT_CONFIG_FILE`), read by `serve`, every CLI
 * command and `createVault({ configFile })`: the vault is described once, the environment wins over it.
 */
describe('one configuration file for serve, the CLI and createVault', () => {
  let dir: string;
  let file: string;
  const write = (settings: object, name = 'wallet-vault.json') => writeFile(path.join(dir, name), JSON.stringify(settings)).then(() => path.join(dir, name));
  const SETTINGS = { VAULT_DATA_DIR: './data', VAULT_CHAINS: 'anvil:31337', VAULT_MASTER_KEY: '34'.repeat(32), VAULT_API_DOCS: false };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-config-'));
    file = await write(SETTINGS);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the CLI reads it with --config: its data directory (relative to the file) and its added chains', async () => {
    // Run from another folder: the file's relative paths are the file's, not the working directory's.
    const migrated = await cliJson<{ database: string }>(['--config', file, 'migrate'], {});
    expect(migrated.database).toContain(path.join(dir, 'data'));
    const vault = await cliJson<{ id: string }>(['--config', file, 'vaults', 'create', '--name', 'configured'], {});
    const held = await runCli(['--config', file, 'policies', 'approvals', 'add', '--vault', vault.id, '--required', '1', '--chains', 'anvil'], {});
    expect(held.code, held.stderr).toBe(0);
    // Without the file the command does not know the added chain, and says where to add it.
    const bare = await runCli(['policies', 'approvals', 'add', '--vault', vault.id, '--required', '1', '--chains', 'anvil'], { VAULT_DATA_DIR: path.join(dir, 'data'), VAULT_MASTER_KEY: '34'.repeat(32) });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/chains: "anvil" is not one of .*; a chain added with VAULT_CHAINS \(name:chainId\) must be in this command's configuration too/);
    // VAULT_CONFIG_FILE names it as well as --config does.
    const listed = await cliJson<{ id: string }[]>(['vaults', 'list'], { VAULT_CONFIG_FILE: file });
    expect(listed.map((v) => v.id)).toContain(vault.id);
  });

  it('the environment wins over the file, and an error names where the bad value came from', async () => {
    const bad = await write({ ...SETTINGS, VAULT_OUTBOUND_TIMEOUT_MS: 'soon' }, 'bad.json');
    const refused = await runCli(['--config', bad, 'vaults', 'list'], {});
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`VAULT_OUTBOUND_TIMEOUT_MS (set in ${bad}): must be a whole number`);
    const fixed = await runCli(['--config', bad, 'vaults', 'list'], { VAULT_OUTBOUND_TIMEOUT_MS: '4000' });
    expect(fixed.code, fixed.stderr).toBe(0);
    const fromEnvironment = await runCli(['--config', file, 'vaults', 'list'], { VAULT_OUTBOUND_TIMEOUT_MS: 'later' });
    expect(fromEnvironment.stderr).toContain('VAULT_OUTBOUND_TIMEOUT_MS (from the environment): must be a whole number');
  });

  it('a file that is no configuration stops the command naming the file and the key (exit 2)', async () => {
    const typo = await write({ VAULT_CHIANS: 'anvil:31337' }, 'typo.json');
    const r = await runCli(['--config', typo, 'vaults', 'list'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${typo}: VAULT_CHIANS is not a setting of wallet-vault`);
    const nested = await write({ VAULT_CHAINS: ['anvil:31337'] }, 'nested.json');
    expect((await runCli(['--config', nested, 'vaults', 'list'], {})).stderr).toMatch(/VAULT_CHAINS must be a string, number or boolean/);
    const missing = await runCli(['--config', path.join(dir, 'none.json'), 'vaults', 'list'], {});
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/none\.json: cannot be read \(ENOENT\)/)]);
  });

  it('serve reads it through VAULT_CONFIG_FILE', async () => {
    const server = await spawnServer({ VAULT_CONFIG_FILE: file });
    try {
      // VAULT_API_DOCS is false in the file only: the page is off, the document still served.
      expect((await fetch(`${server.url}/docs`)).status).toBe(404);
      expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200);
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('createVault({ configFile }) builds the vault the file describes; options in code win over it', async () => {
    const vault = await createVault({ configFile: file, jobs: false });
    try {
      expect(vault.database).toContain(path.join(dir, 'data'));
      const created = await vault.manageVaults.create({ name: 'library' });
      // The file's added chain is a chain of the library's vault as it is of the CLI's.
      await expect(vault.managePolicies.addApprovalRule(created.id, { required: '1', chains: ['anvil'] })).resolves.toBeTruthy();
    } finally {
      await vault.close();
    }
    const overridden = await createVault({ configFile: file, jobs: false, chains: [] });
    try {
      const created = await overridden.manageVaults.create({ name: 'code wins' });
      await expect(overridden.managePolicies.addApprovalRule(created.id, { required: '1', chains: ['anvil'] })).rejects.toThrow(/chains: "anvil" is not one of/);
    } finally {
      await overridden.close();
    }
  });
});
