import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_CACHE_TTL_MS } from '../../src/application/signing/policy-cache.js';
import { client } from '../support/http-client.js';
import { cliJson, runCli, spawnServer, type ChildServer, migrateStore } from '../support/cli.js';

const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const SENDER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

interface ListedRecord {
  seq: number;
  at: string;
  action: string;
  actor: string;
  vault: string | null;
  subject: string | null;
  details: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

describe('wallet-vault audit and policies', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let vaultId: string;
  let keyId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-audit-cli-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'audited'], env)).id;
    keyId = (await cliJson<{ id: string }>(['api-keys', 'create', '--vault', vaultId], env)).id;
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('lists the trail in order, by vault, after a seq and limited', async () => {
    await migrateStore(env);
    const other = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'other'], env)).id;
    const all = await cliJson<ListedRecord[]>(['audit', 'list'], env);
    expect(all.map((r) => [r.seq, r.action, r.actor, r.vault, r.subject])).toEqual([
      [1, 'vault.created', 'operator', vaultId, vaultId],
      [2, 'api-key.created', 'operator', vaultId, keyId],
      [3, 'vault.created', 'operator', other, other],
    ]);
    expect(all[0]).toMatchObject({ prevHash: '0'.repeat(64), hash: expect.stringMatching(/^[0-9a-f]{64}$/), at: expect.stringMatching(/Z$/) });
    expect(all[1]!.prevHash).toBe(all[0]!.hash);
    expect((await cliJson<ListedRecord[]>(['audit', 'list', '--vault', vaultId, '--after', '1'], env)).map((r) => r.seq)).toEqual([2]);
    expect((await cliJson<ListedRecord[]>(['audit', 'list', '--after', '1', '--limit', '1'], env)).map((r) => r.seq)).toEqual([2]);
    const human = await runCli(['audit', 'list', '--limit', '2'], env);
    expect(human.stdout).toMatch(/^1 {2}\S+Z {2}vault\.created {2}operator {2}vault=/);
    for (const [args, message] of [
      [['--limit', 'abc'], /--limit must be a non-negative integer/],
      [['--limit', '0'], /limit: must be an integer from 1 to 1000/],
      [['--after', '-1'], /--after must be a non-negative integer|unknown option/],
    ] as const) {
      const r = await runCli(['audit', 'list', ...args], env);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(message);
    }
  });

  it('sets, shows and clears a policy, normalising what it stores and recording each change', async () => {
    const set = await cliJson<{ vault: string; policy: Record<string, string[]> }>(
      ['policies', 'set', '--vault', vaultId, '--chains', 'sepolia,ethereum', '--contracts', CONTRACT.toLowerCase(), '--selectors', '0xA9059CBB', '--senders', `${SENDER}, ${SENDER.toLowerCase()}`],
      env,
    );
    const policy = { chains: ['sepolia', 'ethereum'], contracts: [CONTRACT], selectors: ['0xa9059cbb'], senders: [SENDER] };
    expect(set).toEqual({ vault: vaultId, policy });
    expect(await cliJson(['policies', 'show', '--vault', vaultId], env)).toEqual({ vault: vaultId, policy });
    const shown = await runCli(['policies', 'show', '--vault', vaultId], env);
    expect(shown.stdout).toContain(`contracts  ${CONTRACT}`);
    expect(shown.stdout).toContain(`uniq of    ${CONTRACT} = (not pinned: refused; pin it with --contract-uniq, or trust the RPC with --trust-rpc-uniq)`);
    expect(await cliJson(['policies', 'set', '--vault', vaultId, '--chains', 'bsc'], env)).toEqual({ vault: vaultId, policy: { chains: ['bsc'] } });
    expect((await runCli(['policies', 'show', '--vault', vaultId], env)).stdout).toMatch(/senders +\(any\)/);
    expect(await cliJson(['policies', 'clear', '--vault', vaultId], env)).toEqual({ vault: vaultId, policy: null, cleared: true });
    expect(await cliJson(['policies', 'show', '--vault', vaultId], env)).toEqual({ vault: vaultId, policy: null });
    expect((await runCli(['policies', 'clear', '--vault', vaultId], env)).stdout).toMatch(/had no sign policy/);

    const changes = (await cliJson<ListedRecord[]>(['audit', 'list', '--vault', vaultId], env)).filter((r) => r.action === 'policy.changed');
    expect(changes.map((r) => [r.actor, r.details.policy, r.details.chains])).toEqual([
      ['operator', 'set', 'sepolia,ethereum'],
      ['operator', 'set', 'bsc'],
      ['operator', 'none', null],
    ]);
    // Ten commands one after the other, each a node process: on a busy machine that takes its time.
  }, 120_000);

  it('pins the uniq of listed contracts with a repeatable --contract-uniq, shows the pins and records them', async () => {
    const [uniq1, uniq2] = [`0x${'ab'.repeat(32)}`, `0x${'CD'.repeat(32)}`];
    const set = await cliJson<{ policy: unknown }>(
      ['policies', 'set', '--vault', vaultId, '--contracts', `${CONTRACT},${SENDER}`, '--contract-uniq', `${CONTRACT}=${uniq1}`, '--contract-uniq', `${SENDER.toLowerCase()}=${uniq2}`],
      env,
    );
    const policy = { contracts: [CONTRACT, SENDER], uniqs: { [CONTRACT]: uniq1, [SENDER]: uniq2.toLowerCase() } };
    expect(set.policy).toEqual(policy);
    expect(await cliJson(['policies', 'show', '--vault', vaultId], env)).toEqual({ vault: vaultId, policy });
    expect((await runCli(['policies', 'show', '--vault', vaultId], env)).stdout).toContain(`uniq of    ${CONTRACT} = ${uniq1}`);
    const refused = await runCli(['policies', 'set', '--vault', vaultId, '--chains', 'local', '--contract-uniq', `${CONTRACT}=${uniq1}`], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/contractUniqs: contract 0x5FbDB.* is not in this policy's contracts/);
    expect(await cliJson(['policies', 'show', '--vault', vaultId], env)).toEqual({ vault: vaultId, policy });
    await cliJson(['policies', 'clear', '--vault', vaultId], env);

    const changes = (await cliJson<ListedRecord[]>(['audit', 'list', '--vault', vaultId], env)).filter((r) => r.action === 'policy.changed');
    expect(changes.at(-2)!.details.contractUniqs).toBe(`${CONTRACT}=${uniq1},${SENDER}=${uniq2.toLowerCase()}`);
  });

  it('trusts the RPC for a listed, unpinned contract only when told by name with --trust-rpc-uniq, shows the risk and records it', async () => {
    const uniq1 = `0x${'ab'.repeat(32)}`;
    const set = await cliJson<{ policy: unknown }>(
      ['policies', 'set', '--vault', vaultId, '--contracts', `${CONTRACT},${SENDER}`, '--contract-uniq', `${CONTRACT}=${uniq1}`, '--trust-rpc-uniq', SENDER.toLowerCase()],
      env,
    );
    const policy = { contracts: [CONTRACT, SENDER], uniqs: { [CONTRACT]: uniq1 }, trustRpcUniq: [SENDER] };
    expect(set.policy).toEqual(policy);
    expect(await cliJson(['policies', 'show', '--vault', vaultId], env)).toEqual({ vault: vaultId, policy });
    const shown = (await runCli(['policies', 'show', '--vault', vaultId], env)).stdout;
    expect(shown).toContain(`uniq of    ${CONTRACT} = ${uniq1}`);
    expect(shown).toContain(`uniq of    ${SENDER} = (not pinned, RPC TRUSTED: on chains with an RPC, signs whatever uniq the RPC answers; refused on local and chains without one)`);
    const refused = await runCli(['policies', 'set', '--vault', vaultId, '--contracts', CONTRACT, '--trust-rpc-uniq', SENDER], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/trustRpcUniq: contract 0x3C44.* is not in this policy's contracts/);
    expect(await cliJson(['policies', 'show', '--vault', vaultId], env)).toEqual({ vault: vaultId, policy });
    await cliJson(['policies', 'clear', '--vault', vaultId], env);

    const changes = (await cliJson<ListedRecord[]>(['audit', 'list', '--vault', vaultId], env)).filter((r) => r.action === 'policy.changed');
    expect(changes.at(-2)!.details).toMatchObject({ contractUniqs: `${CONTRACT}=${uniq1}`, trustRpcUniq: SENDER });
    expect(changes.at(-1)!.details).toMatchObject({ policy: 'none', trustRpcUniq: null });
  }, 120_000);

  it.each([
    [['--chains', 'mainnet'], /chains: "mainnet" is not one of ethereum, sepolia/],
    [['--contracts', CONTRACT.replace('F', 'f')], /contracts: ".*" has an invalid EIP-55 checksum/],
    [['--selectors', '0x1234'], /selectors: "0x1234" is not 0x followed by 8 hex digits/],
    [['--senders', ''], /senders: must name at least one value/],
    [[], /give at least one of chains, contracts, selectors, senders/],
  ])('refuses a bad policy %o, naming the field, and changes nothing', async (args, message) => {
    const r = await runCli(['policies', 'set', '--vault', vaultId, ...args], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect(await cliJson(['policies', 'show', '--vault', vaultId], env)).toEqual({ vault: vaultId, policy: null });
  });

  it('refuses an unknown vault', async () => {
    const r = await runCli(['policies', 'show', '--vault', 'no-such-vault'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/vault no-such-vault does not exist/);
  });

  it('verify passes on an intact chain and names the seq of a record tampered with in SQLite', async () => {
    const intact = await cliJson<{ ok: boolean; records: number; head: { seq: number; hash: string } }>(['audit', 'verify'], env);
    expect(intact).toMatchObject({ ok: true, records: expect.any(Number) });
    expect(intact.records).toBeGreaterThanOrEqual(6);
    const human = await runCli(['audit', 'verify'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`audit chain intact: ${intact.records} records, head seq ${intact.head.seq} hash ${intact.head.hash}`));

    const db = new Database(path.join(dataDir, 'vault.db'));
    try {
      db.prepare("UPDATE audit_log SET actor = 'api-key:0000000000000000' WHERE seq = 2").run();
    } finally {
      db.close();
    }
    const broken = await runCli(['audit', 'verify'], env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/audit chain broken at seq 2: seq 2: its content does not match its hash/);
    const json = await runCli(['audit', 'verify', '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, brokenSeq: 2, records: 1 });
  });

  it('prints help for the new commands', async () => {
    const helps: [string[], RegExp][] = [
      [['--help'], /audit[\s\S]*policies/],
      [['audit', 'list', '--help'], /--vault <vaultId>[\s\S]*--after <seq>[\s\S]*--limit <n>[\s\S]*--json/],
      [['audit', 'verify', '--help'], /--json/],
      [['policies', 'set', '--help'], /--vault <vaultId>[\s\S]*--chains[\s\S]*--contracts[\s\S]*--selectors[\s\S]*--senders[\s\S]*--contract-uniq[\s\S]*--trust-rpc-uniq <contract>[\s\S]*--json/],
      [['policies', 'show', '--help'], /--vault <vaultId>/],
      [['policies', 'clear', '--help'], /--vault <vaultId>/],
    ];
    const results = await Promise.all(helps.map(([args]) => runCli(args, env)));
    helps.forEach(([args, options], i) => {
      expect(results[i]!.code, args.join(' ')).toBe(0);
      expect(results[i]!.stdout, args.join(' ')).toMatch(options);
    });
  });
});

describe('a policy set by the CLI on a running server', () => {
  let dataDir: string;
  let server: ChildServer;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-policy-cli-'));
    server = await spawnServer({ VAULT_DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await server?.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it(`takes effect within ${POLICY_CACHE_TTL_MS / 1000} seconds`, async () => {
    const env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'live'], env);
    const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
    const api = client(server.url, apiKey);
    const signer = (await api.post(`/api/v1/vaults/${vault.id}/wallets`, { name: 's' })).body.data.address;
    const sign = () =>
      api.post(`/api/v1/vaults/${vault.id}/sign`, {
        chain: 'local',
        contract: CONTRACT,
        sender: SENDER,
        uniq: `0x${'ab'.repeat(32)}`,
        signer,
        abi: { type: 'function', name: 'f', inputs: [{ name: 's', type: 'tuple', components: [{ name: 'n', type: 'bytes32' }, { name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' }, { name: 'v', type: 'uint8' }] }] },
        args: [],
      });
    expect((await sign()).status).toBe(200);
    await cliJson(['policies', 'set', '--vault', vault.id, '--senders', CONTRACT], env);
    const setAt = Date.now();
    let r = await sign();
    while (r.status === 200 && Date.now() - setAt < POLICY_CACHE_TTL_MS + 2000) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      r = await sign();
    }
    expect(r.status).toBe(403);
    expect(r.body.error).toBe(`policy: no rule of this vault's policy allows this call (rule calls: sender ${SENDER} is not in its senders)`);
    const actions = (await cliJson<ListedRecord[]>(['audit', 'list', '--vault', vault.id], env)).map((x) => x.action);
    expect(actions).toEqual(expect.arrayContaining(['wallet.created', 'signature.issued', 'policy.changed']));
  });
});
