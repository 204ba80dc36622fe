import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, runCli, migrateStore } from '../support/cli.js';

const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const ROUTER = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

/** `policies set` with the standard-signing switches, stored in SQLite and read back by `policies show`. */
describe('wallet-vault policies set: standard signing', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let vaultId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-standard-cli-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'standard'], env)).id;
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stores every switch normalised, shows it, and records the change', async () => {
    const args = ['policies', 'set', '--vault', vaultId, '--tx-chain-ids', '1, 0x7a69', '--tx-to', `${TOKEN.toLowerCase()},${ROUTER}`, '--tx-selectors', '0xA9059CBB'];
    args.push('--tx-max-value', '1000000000000000000', '--tx-contract-creation', '--typed-data-contracts', `1:${TOKEN},31337:${ROUTER}`);
    args.push('--typed-data-name', `1:${TOKEN}=USD Coin, bridged`, '--messages');
    const policy = {
      transactions: { chainIds: ['1', '31337'], to: [TOKEN, ROUTER], selectors: ['0xa9059cbb'], maxValue: '1000000000000000000', contractCreation: true },
      typedData: [{ chainId: '1', verifyingContract: TOKEN, name: 'USD Coin, bridged' }, { chainId: '31337', verifyingContract: ROUTER }],
      messages: true,
    };
    expect(await cliJson(args, env)).toEqual({ vault: vaultId, policy });
    expect(await cliJson(['policies', 'show', '--vault', vaultId], env)).toEqual({ vault: vaultId, policy });
    const shown = (await runCli(['policies', 'show', '--vault', vaultId], env)).stdout;
    expect(shown).toMatch(/messages +allowed/);
    expect(shown).toMatch(/tx max value \(wei\) +1000000000000000000/);
    expect(shown).toMatch(/tx contract creation +allowed/);
    expect(shown).toContain(`typed data domain     1:${TOKEN} name "USD Coin, bridged"`);
    expect(shown).toContain(`typed data domain     31337:${ROUTER} (any name)`);
    // Sign's lists were not given: Sign is as unrestricted as without a policy.
    expect(shown).toMatch(/chains +\(any\)/);

    const changes = (await cliJson<{ action: string; details: Record<string, unknown> }[]>(['audit', 'list', '--vault', vaultId], env)).filter((r) => r.action === 'policy.changed');
    expect(changes.at(-1)!.details).toMatchObject({
      txChainIds: '1,31337',
      txTo: `${TOKEN},${ROUTER}`,
      txSelectors: '0xa9059cbb',
      txMaxValue: '1000000000000000000',
      txContractCreation: true,
      typedDataContracts: `1:${TOKEN}="USD Coin, bridged",31337:${ROUTER}`,
      messages: true,
    });
  });

  it('shows what a vault denies by default', async () => {
    await cliJson(['policies', 'set', '--vault', vaultId, '--chains', 'sepolia'], env);
    const shown = (await runCli(['policies', 'show', '--vault', vaultId], env)).stdout;
    expect(shown).toMatch(/messages +denied/);
    expect(shown).toMatch(/transactions +denied/);
    expect(shown).toMatch(/typed data +denied/);
  });

  it.each<[string[], RegExp]>([
    [['--tx-to', TOKEN], /txTo: needs txChainIds/],
    [['--tx-chain-ids', 'mainnet'], /txChainIds: "mainnet" is not a chain id/],
    [['--tx-chain-ids', '1', '--tx-max-value', '1 ether'], /txMaxValue: "1 ether" is not an amount of wei/],
    [['--typed-data-contracts', TOKEN], /typedDataContracts: .* is not <chainId>:<verifyingContract address>/],
  ])('refuses %j, naming the option', async (options, message) => {
    const r = await runCli(['policies', 'set', '--vault', vaultId, ...options], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });
});
