import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { id } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, runCli, migrateStore } from '../support/cli.js';

const MINT = 'mint(address,uint256,(bytes32,bytes32,bytes32,uint8))';
// Computed by ethers, independently of the code under test.
const MINT_SELECTOR = id(MINT).slice(0, 10);
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

interface Limit {
  scope: string;
  target?: string;
  maxSigns: number;
  windowMs: number;
}
interface Shown {
  vault: string;
  policy: { chains?: string[]; limits?: Limit[] } | null;
  removed?: number;
}

describe('wallet-vault policies limits', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let vaultId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-limits-cli-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'limited'], env)).id;
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const add = (...args: string[]) => cliJson<Shown>(['policies', 'limits', 'add', '--vault', vaultId, ...args], env);
  const show = () => cliJson<Shown>(['policies', 'show', '--vault', vaultId], env);

  it('adds limits per scope and target, shows them, keeps them across set, records each change, removes and clears them', async () => {
    const eachWallet: Limit = { scope: 'wallet', maxSigns: 100, windowMs: 3_600_000 };
    expect(await add('--each', 'wallet', '--max-signs', '100', '--per', '1h')).toEqual({ vault: vaultId, policy: { limits: [eachWallet] } });
    const oneWallet: Limit = { scope: 'wallet', target: WALLET, maxSigns: 5, windowMs: 60_000 };
    const mint: Limit = { scope: 'function', target: MINT_SELECTOR, maxSigns: 10, windowMs: 86_400_000 };
    await add('--wallet', WALLET.toLowerCase(), '--max-signs', '5', '--per', '1m');
    await add('--function', MINT, '--max-signs', '10', '--per', '1d');
    // The same target and window again replaces the limit.
    await add('--each', 'wallet', '--max-signs', '50', '--per', '60m');
    const fifty = { ...eachWallet, maxSigns: 50 };
    expect(await show()).toEqual({ vault: vaultId, policy: { limits: [oneWallet, mint, fifty] } });

    const human = (await runCli(['policies', 'show', '--vault', vaultId], env)).stdout;
    expect(human).toContain(`limit      at most 5 signs per 1m for wallet ${WALLET}\n`);
    expect(human).toContain(`limit      at most 10 signs per 1d for function ${MINT_SELECTOR}\n`);
    expect(human).toContain('limit      at most 50 signs per 1h for each wallet');

    expect((await cliJson<Shown>(['policies', 'set', '--vault', vaultId, '--chains', 'local'], env)).policy).toEqual({ chains: ['local'], limits: [oneWallet, mint, fifty] });
    const changes = (await cliJson<{ action: string; details: Record<string, unknown> }[]>(['audit', 'list', '--vault', vaultId], env)).filter((r) => r.action === 'policy.changed');
    expect(changes).toHaveLength(5);
    expect(changes.at(-1)!.details.limits).toBe(`at most 5 signs per 1m for wallet ${WALLET}; at most 10 signs per 1d for function ${MINT_SELECTOR}; at most 50 signs per 1h for each wallet`);

    const removed = await cliJson<Shown>(['policies', 'limits', 'remove', '--vault', vaultId, '--function', MINT_SELECTOR], env);
    expect(removed).toEqual({ vault: vaultId, policy: { chains: ['local'], limits: [oneWallet, fifty] }, removed: 1 });
    expect((await cliJson<Shown>(['policies', 'limits', 'remove', '--vault', vaultId, '--contract', WALLET], env)).removed).toBe(0);
    expect(await cliJson<Shown>(['policies', 'limits', 'clear', '--vault', vaultId], env)).toEqual({ vault: vaultId, policy: { chains: ['local'] }, removed: 2 });
    // A policy of limits alone is no policy once they are removed.
    await cliJson(['policies', 'clear', '--vault', vaultId], env);
    await add('--each', 'contract', '--max-signs', '1', '--per', '30s');
    expect((await cliJson<Shown>(['policies', 'limits', 'clear', '--vault', vaultId], env)).policy).toBeNull();
    expect(await show()).toEqual({ vault: vaultId, policy: null });
  }, 120_000);

  it.each([
    [['--max-signs', '5', '--per', '1h'], /give exactly one of each/],
    [['--each', 'wallet', '--wallet', WALLET, '--max-signs', '5', '--per', '1h'], /give exactly one of each/],
    [['--each', 'sender', '--max-signs', '5', '--per', '1h'], /each: "sender" is not one of wallet, contract, function/],
    [['--each', 'wallet', '--max-signs', '0', '--per', '1h'], /maxSigns: "0" is not a whole number from 1/],
    [['--each', 'wallet', '--max-signs', '5', '--per', '1 hour'], /per: "1 hour" is not a whole number and a unit/],
    [['--each', 'wallet', '--max-signs', '5', '--per', '32d'], /longer than 31d/],
    [['--function', 'transfer(address,uint256)', '--max-signs', '5', '--per', '1h'], /has no signature parameter/],
  ])('refuses a limit %o with a message naming what is wrong, and changes nothing', async (args, message) => {
    const r = await runCli(['policies', 'limits', 'add', '--vault', vaultId, ...args], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(await show()).toEqual({ vault: vaultId, policy: null });
  });

  it('refuses a remove that names nothing, and prints help', async () => {
    const r = await runCli(['policies', 'limits', 'remove', '--vault', vaultId], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/give exactly one of each/);
    expect((await runCli(['policies', 'limits', 'add', '--help'], env)).stdout).toMatch(/--max-signs <n>[\s\S]*--per <window>[\s\S]*--each <scope>[\s\S]*--wallet[\s\S]*--contract[\s\S]*--function/);
    expect((await runCli(['policies', 'limits', '--help'], env)).stdout).toMatch(/add[\s\S]*remove[\s\S]*clear/);
  });
});
