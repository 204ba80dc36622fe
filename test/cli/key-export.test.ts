import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, migrateStore, runCli, type CliResult } from '../support/cli.js';

/** The `--json` error line: the last of stderr (the store opened is noted before it). */
const lastJsonLine = (stderr: string): { error: string; code: string } => JSON.parse(stderr.trim().split('\n').at(-1)!);

/*
 * `wallet-vault keys export-recipient`, `keys export` and `keys decrypt-export`, each a real process on
 * one data directory: the recipient's key pair, a wallet's key exported to it (0600), opened again with
 * the private key, the address checked; `wallets list` shows the wallet exported; no output carries the key.
 */
describe('wallet-vault keys export', { timeout: 240_000 }, () => {
  let dir: string;
  let env: Record<string, string>;
  let vaultId: string;
  const outputs: CliResult[] = [];
  const run = async (args: string[]) => {
    const r = await runCli(args, env);
    outputs.push(r);
    return r;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-export-'));
    env = { VAULT_DATA_DIR: path.join(dir, 'data'), VAULT_MASTER_KEY: randomBytes(32).toString('hex') };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'treasury'], env)).id;
  }, 240_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('exports a key to a recipient made by export-recipient, opened by decrypt-export to the same key; listed as exported; audited without the key', async () => {
    const key = Wallet.createRandom();
    const keyFile = path.join(dir, 'hot.key');
    await writeFile(keyFile, key.privateKey, { mode: 0o600 });
    await chmod(keyFile, 0o600);
    expect((await run(['keys', 'import', '--vault', vaultId, '--name', 'hot', '--private-key-file', keyFile, '--json'])).code).toBe(0);

    const made = await run(['keys', 'export-recipient', '--out-dir', path.join(dir, 'recipient'), '--json']);
    expect(made.code, made.stderr).toBe(0);
    const recipient = JSON.parse(made.stdout) as { public: string; private: string; fingerprint: string };
    expect((await stat(recipient.private)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(recipient.public, 'utf8'))).toMatchObject({ kty: 'OKP', crv: 'X25519' });

    // The private key file is refused as a recipient key: it must not reach the operator.
    const wrong = await run(['keys', 'export', '--vault', vaultId, '--wallet', key.address, '--recipient-key', recipient.private, '--json']);
    expect([wrong.code, lastJsonLine(wrong.stderr).code]).toEqual([1, 'INVALID_ARGUMENT']);

    const out = path.join(dir, 'export.json');
    const exported = await run(['keys', 'export', '--vault', vaultId, '--wallet', key.address.toLowerCase(), '--recipient-key', recipient.public, '--out', out, '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ kind: 'wallet', vault: vaultId, wallet: key.address, recipient: recipient.fingerprint });
    expect((await stat(out)).mode & 0o777).toBe(0o600);

    const opened = path.join(dir, 'opened.key');
    const decrypted = await run(['keys', 'decrypt-export', '--file', out, '--recipient-private-key', recipient.private, '--out', opened, '--json']);
    expect(decrypted.code, decrypted.stderr).toBe(0);
    expect(JSON.parse(decrypted.stdout)).toMatchObject({ kind: 'wallet', wallet: key.address });
    expect((await readFile(opened, 'utf8')).trim()).toBe(key.privateKey);
    expect((await stat(opened)).mode & 0o777).toBe(0o600);

    // A relabelled export does not open.
    const relabelled = path.join(dir, 'relabelled.json');
    await writeFile(relabelled, JSON.stringify({ ...JSON.parse(await readFile(out, 'utf8')), wallet: Wallet.createRandom().address }));
    const refused = await run(['keys', 'decrypt-export', '--file', relabelled, '--recipient-private-key', recipient.private, '--out', path.join(dir, 'never.key'), '--json']);
    expect([refused.code, lastJsonLine(refused.stderr).code]).toEqual([1, 'INVALID_ARGUMENT']);

    const listed = await cliJson<{ count: number; page: { address: string; exported?: string }[] }>(['wallets', 'list', '--vault', vaultId], env);
    expect(listed.page.find((w) => w.address === key.address)?.exported).toMatch(/^\d{4}-\d\d-\d\dT/);
    const trail = await cliJson<{ action: string; subject: string; details: Record<string, unknown> }[]>(['audit', 'list', '--limit', '1000'], env);
    expect(trail.filter((r) => r.action === 'key.exported')).toEqual([expect.objectContaining({ subject: key.address, details: expect.objectContaining({ kind: 'wallet', recipient: recipient.fingerprint }) })]);

    const hex = key.privateKey.slice(2).toLowerCase();
    for (const r of outputs) expect(`${r.stdout}\n${r.stderr}`.toLowerCase()).not.toContain(hex);
    expect((await readFile(out, 'utf8')).toLowerCase()).not.toContain(hex);
  });
});
