import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, runCli, spawnServer, migrateStore } from '../support/cli.js';
import { client } from '../support/http-client.js';

const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const ROUTER = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const UNIQ = `0x${'ab'.repeat(32)}`;

/**
 * `wallet-vault policies apply --file` and `policies export` with the real command over SQLite, and what
 * the document then decides over HTTP on the real server: the dry run, and a transaction refused by it.
 */
describe('wallet-vault policies apply and export', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let vaultId: string;
  const file = (name: string) => path.join(dataDir, name);

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-policy-document-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'documented'], env)).id;
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('exports the document stored lists are read as, applies an edited one, and exports it as applied', async () => {
    await cliJson(['policies', 'set', '--vault', vaultId, '--contracts', CONTRACT, '--contract-uniq', `${CONTRACT}=${UNIQ}`, '--messages'], env);
    const exported = JSON.parse((await runCli(['policies', 'export', '--vault', vaultId], env)).stdout);
    expect(exported).toEqual({
      version: 2,
      rules: [
        { id: 'calls', effect: 'allow', kinds: ['call'], contracts: [CONTRACT] },
        { id: 'messages', effect: 'allow', kinds: ['message'] },
      ],
      limits: [],
      uniqs: { [CONTRACT]: UNIQ },
    });
    const edited = {
      ...exported,
      rules: [...exported.rules, { id: 'payouts', effect: 'allow', kinds: ['transaction'], chains: ['sepolia'], contracts: [ROUTER.toLowerCase()], selectors: ['0x'], maxValue: '1000' }],
      limits: [{ id: 'daily', kinds: ['transaction'], each: 'wallet', maxSigns: 10, maxValue: '5000', per: '1d' }],
    };
    await writeFile(file('edited.json'), JSON.stringify(edited));
    const applied = await cliJson<{ policy: { rules: { id: string; contracts?: string[] }[] } }>(['policies', 'apply', '--vault', vaultId, '--file', file('edited.json')], env);
    // Stored normalised: the address as EIP-55, the chain as named.
    expect(applied.policy.rules.at(-1)).toMatchObject({ id: 'payouts', contracts: [ROUTER] });
    expect(JSON.parse((await runCli(['policies', 'export', '--vault', vaultId], env)).stdout).rules.map((r: { id: string }) => r.id)).toEqual(['calls', 'messages', 'payouts']);
    const shown = await runCli(['policies', 'show', '--vault', vaultId], env);
    expect(shown.stdout).toMatch(/^policy document of vault /);
    expect(shown.stdout).toMatch(/allow +payouts +kinds \["transaction"\]; chains \["sepolia"\]/);
    expect(shown.stdout).toMatch(/limit +daily +at most 10 signs and 5000 wei per 1d for each wallet; kinds \["transaction"\]\n/);
    // The older commands edit an applied document too, in their own ids: a deny rule r1, the rest kept.
    const older = await runCli(['policies', 'rules', 'add', '--vault', vaultId, '--function', 'go(uint256 x, (bytes32,bytes32,bytes32,uint8) sig)', '--arg', 'x', '--lte', '1'], env);
    expect(older.code).toBe(0);
    expect(older.stdout).toMatch(/^policy document of vault /);
    expect(older.stdout).toMatch(/deny +r1 +kinds \["call"\]; function go\(uint256,\(bytes32,bytes32,bytes32,uint8\)\); unless \[\{"arg":"args\[0\]","as":"x","lte":"1"\}\]/);
    expect(JSON.parse((await runCli(['policies', 'export', '--vault', vaultId], env)).stdout).rules.map((r: { id: string }) => r.id)).toEqual(['calls', 'messages', 'payouts', 'r1']);
    const removed = await cliJson<{ removed: number; policy: { version: number } }>(['policies', 'rules', 'clear', '--vault', vaultId], env);
    expect(removed).toMatchObject({ removed: 1, policy: { version: 2 } });
  });

  it('refuses a bad document whole, naming its field, and keeps the policy in force', async () => {
    const before = (await runCli(['policies', 'export', '--vault', vaultId], env)).stdout;
    await writeFile(file('bad.json'), JSON.stringify({ version: 2, rules: [{ id: 'x', effect: 'allow', kinds: ['transaction'], maxFee: 'lots' }] }));
    const bad = await runCli(['policies', 'apply', '--vault', vaultId, '--file', file('bad.json'), '--json'], env);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'INVALID_ARGUMENT', error: expect.stringMatching(/^rules\[0\]\.maxFee: must be an amount of wei/) });
    await writeFile(file('notjson.json'), '{"version": 2,');
    const notJson = await runCli(['policies', 'apply', '--vault', vaultId, '--file', file('notjson.json')], env);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--file: .*notjson\.json is not JSON/);
    const missing = await runCli(['policies', 'apply', '--vault', vaultId, '--file', file('absent.json')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--file: cannot read .*absent\.json \(ENOENT\)/);
    expect((await runCli(['policies', 'export', '--vault', vaultId], env)).stdout).toBe(before);
    // On record: the apply that changed the policy, with the document's hash; none for the refusals.
    const records = await cliJson<{ action: string; details: Record<string, unknown> }[]>(['audit', 'list', '--vault', vaultId], env);
    const changes = records.filter((r) => r.action === 'policy.changed');
    expect(changes.at(-1)!.details).toMatchObject({ policy: 'applied', documentHash: expect.stringMatching(/^[0-9a-f]{64}$/), rules: 'calls:allow,messages:allow,payouts:allow' });
  });

  it('over HTTP, the dry run answers what the applied document decides, and the transaction route decides the same', async () => {
    const server = await spawnServer(env);
    try {
      const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vaultId], env);
      const http = client(`${server.url}/api/v1/vaults/${vaultId}`, apiKey);
      const wallet = (await http.post('/wallets', { name: 'payer' })).body.data as { address: string };
      const transaction = (value: string) => ({ type: 'eip1559', chainId: 11155111, nonce: 0, to: ROUTER, value, gas: 21000, maxFeePerGas: '1000000000', maxPriorityFeePerGas: '1' });
      const dry = await http.post('/policy/evaluate', { kind: 'transaction', wallet: wallet.address, request: transaction('1000') });
      expect(dry.status).toBe(200);
      expect(dry.body).toEqual({ success: true, data: { decision: 'allow', rule: 'payouts', message: 'policy: allowed by rule payouts' } });
      const over = await http.post('/policy/evaluate', { kind: 'transaction', wallet: wallet.address, request: transaction('1001') });
      expect(over.body.data).toMatchObject({ decision: 'deny', rule: null });
      const refused = await http.post(`/wallets/${wallet.address}/sign-transaction`, transaction('1001'));
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'POLICY_DENIED', error: over.body.data.message });
      const bad = await http.post('/policy/evaluate', { kind: 'transfer', request: {} });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: 'INVALID_ARGUMENT', error: 'kind: must be one of call, message, typed-data, transaction, authorization' });
    } finally {
      await server.kill('SIGTERM');
    }
  });
});
