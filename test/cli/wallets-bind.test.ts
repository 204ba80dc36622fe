import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, migrateStore, runCli } from '../support/cli.js';

/** The `--json` error line: the last of stderr (the store opened is noted before it). */
const lastJsonLine = (stderr: string): { error: string; code: string } => JSON.parse(stderr.trim().split('\n').at(-1)!);

/*
 * `wallet-vault wallets bind` (docs/operations.md): the operator binds a vault's wallets that carry no
 * binding, each recorded as `wallet.bound`; one whose binding is there is refused, bound or not holding.
 */
describe('wallet-vault wallets bind', { timeout: 240_000 }, () => {
  let dir: string;
  let env: Record<string, string>;
  let vaultId: string;
  const wallets: string[] = [];
  const sql = (text: string, ...params: unknown[]) => {
    const db = new Database(path.join(env.VAULT_DATA_DIR!, 'vault.db'));
    try {
      return db.prepare(text).run(...params);
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bind-'));
    env = { VAULT_DATA_DIR: path.join(dir, 'data'), VAULT_MASTER_KEY: randomBytes(32).toString('hex') };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'treasury'], env)).id;
    for (const name of ['one', 'two']) {
      const file = path.join(dir, `${name}.key`);
      await writeFile(file, Wallet.createRandom().privateKey, { mode: 0o600 });
      await chmod(file, 0o600);
      wallets.push((await cliJson<{ address: string }>(['keys', 'import', '--vault', vaultId, '--name', name, '--private-key-file', file, '--json'], env)).address);
    }
  }, 240_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("binds the vault's unbound wallets (recorded wallet.bound by operator); one that is bound already is refused, exit 1", async () => {
    sql('UPDATE wallets SET binding = NULL WHERE address = ?', wallets[0]);
    const r = await runCli(['wallets', 'bind', '--vault', vaultId, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ bound: [{ vaultId, address: wallets[0] }], failed: [] });
    const trail = await cliJson<{ action: string; actor: string; subject: string; details: Record<string, unknown> }[]>(['audit', 'list', '--limit', '1000'], env);
    expect(trail.filter((e) => e.action === 'wallet.bound')).toEqual([expect.objectContaining({ actor: 'operator', subject: wallets[0], details: expect.objectContaining({ by: 'operator' }) })]);

    const again = await runCli(['wallets', 'bind', '--vault', vaultId, '--address', wallets[1]!, '--json'], env);
    expect(again.code).toBe(1);
    expect(lastJsonLine(again.stderr)).toEqual({ code: 'CONFLICT', error: `wallet ${wallets[1]} is bound to vault ${vaultId} already; nothing to do` });
  });
});
