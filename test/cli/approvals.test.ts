import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { cliJson, runCli, spawnServer, type ChildServer, migrateStore } from '../support/cli.js';
import { LOCAL_CONTRACT, LOCAL_UNIQ, localSignBody } from '../support/sign-request.js';
import { until } from '../support/webhook-receiver.js';

/** A second contract of the signer's, named by the operator but pinned to no uniq. */
const PAYROLL = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

interface Key {
  apiKey: string;
  id: string;
}

describe('wallet-vault approvals (and policies approvals, api-keys --group)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let vaultId: string;
  let server: ChildServer;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-approvals-cli-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'four eyes'], env)).id;
    server = await spawnServer(env);
  });
  afterAll(async () => {
    await server?.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  const key = (...args: string[]) => cliJson<Key>(['api-keys', 'create', '--vault', vaultId, ...args], env);
  /** The error a --json command wrote: the last line of stderr (notes, such as the store opened, come before it). */
  const errorOf = (r: { stderr: string }) => JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { code: string };
  const asKey = (k: Key, ...args: string[]) => runCli(['approvals', ...args, '--vault', vaultId, '--json'], { ...env, WALLET_VAULT_API_KEY: k.apiKey });

  it('a rule added by the operator holds a sign; approver keys vote from the command line; the quorum releases the signature', async () => {
    const rule = await cliJson<{ rule: { id: string; required: number; group: string } }>(
      ['policies', 'approvals', 'add', '--vault', vaultId, '--required', '2', '--group', 'treasury', '--chains', 'local'],
      env,
    );
    expect(rule.rule).toMatchObject({ id: 'a1', required: 2, group: 'treasury' });
    const shown = await runCli(['policies', 'show', '--vault', vaultId], env);
    expect(shown.stdout).toContain('approval   a1: 2 approvals of group treasury, for chains local, expires after 1d');

    const admin = await key('--roles', 'admin');
    const signer = await key('--roles', 'signer,approver', '--allow-signer-approver');
    const [one, two] = [await key('--roles', 'approver', '--group', 'treasury'), await key('--roles', 'approver', '--group', 'treasury')];
    const outsider = await key('--roles', 'approver');
    // A group on a key that cannot vote says nothing: refused.
    expect((await runCli(['api-keys', 'create', '--vault', vaultId, '--roles', 'signer', '--group', 'treasury'], env)).code).toBe(1);

    const base = `/api/v1/vaults/${vaultId}`;
    const wallet = (await client(server.url, admin.apiKey).post(`${base}/wallets`, { name: 'w' })).body.data.address;
    const held = await client(server.url, signer.apiKey).post(`${base}/sign`, localSignBody(wallet));
    expect(held.status).toBe(202);
    const id: string = held.body.data.approval.id;

    const listed = await asKey(one, 'list', '--status', 'pending');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).page.map((a: { id: string }) => a.id)).toEqual([id]);

    // No key, the key on argv is not an option, the requester's own key, a key outside the group: all refused.
    const none = await runCli(['approvals', 'approve', id, '--vault', vaultId], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('WALLET_VAULT_API_KEY');
    expect((await runCli(['approvals', 'approve', id, '--vault', vaultId, '--api-key', one.apiKey], env)).code).toBe(2);
    const self = await asKey(signer, 'approve', id);
    expect([self.code, errorOf(self).code]).toEqual([1, 'APPROVAL_SELF_VOTE']);
    expect(errorOf(await asKey(outsider, 'approve', id)).code).toBe('APPROVER_NOT_IN_GROUP');

    // One vote through the environment, the second through a key file (0600).
    expect(JSON.parse((await asKey(one, 'approve', id)).stdout)).toMatchObject({ status: 'pending', approvals: 1 });
    const file = path.join(dataDir, 'approver.key');
    await writeFile(file, `${two.apiKey}\n`);
    await chmod(file, 0o600);
    const released = await runCli(['approvals', 'approve', id, '--vault', vaultId, '--api-key-file', file, '--json'], env);
    expect(released.code).toBe(0);
    const approved = JSON.parse(released.stdout);
    expect(approved).toMatchObject({ status: 'approved', approvals: 2 });
    expect(approved.result.submissionHash).toMatch(/^0x[0-9a-f]{64}$/);
    // The server that holds the request gives the same result.
    expect((await client(server.url, signer.apiKey).get(`${base}/approvals/${id}`)).body.data.result).toEqual(approved.result);

    const text = await runCli(['approvals', 'show', id, '--vault', vaultId], { ...env, WALLET_VAULT_API_KEY: one.apiKey });
    expect(text.stdout).toContain(`approve by api-key:${one.id}`);
    expect(text.stdout).toContain(`signed: submissionHash ${approved.result.submissionHash}`);
    // By position, never the requester's ABI names (to, amount).
    expect(text.stdout).toContain('  args[1] (uint256) = "1000"');
    expect(text.stdout).not.toMatch(/amount|\bto \(/);

    // The operator removes the rule: policies show lists none, and the change is on record.
    const removed = await cliJson<{ removed: number; policy: unknown }>(['policies', 'approvals', 'remove', '--vault', vaultId, '--id', 'a1'], env);
    expect(removed).toMatchObject({ removed: 1, policy: null });
    const trail = await cliJson<{ action: string; details: Record<string, unknown> }[]>(['audit', 'list', '--vault', vaultId, '--limit', '1000'], env);
    const changes = trail.filter((r) => r.action === 'policy.changed').map((r) => r.details.approvals ?? null);
    expect(changes).toEqual(['a1: 2 approvals of group treasury, for chains local, expires after 1d', null]);
    expect(trail.filter((r) => r.action.startsWith('approval.')).map((r) => r.action)).toEqual([
      'approval.requested',
      'approval.voted',
      'approval.voted',
      'approval.decided',
    ]);
  });

  it('an approver key rejects a held sign from the command line: never signed', async () => {
    await cliJson(['policies', 'approvals', 'add', '--vault', vaultId, '--required', '1'], env);
    const admin = await key('--roles', 'admin');
    const signer = await key('--roles', 'signer');
    const approver = await key('--roles', 'approver');
    const base = `/api/v1/vaults/${vaultId}`;
    const wallet = (await client(server.url, admin.apiKey).post(`${base}/wallets`, { name: 'rejected' })).body.data.address;
    // The server reads the policy at most every 5 seconds: sign until this rule holds the sign (the previous
    // test's rule of group treasury, removed just before, may still hold one meanwhile).
    const heldByThisRule = (r: { status: number; body: { data?: { approval?: { group: string | null; required: number } } } }) =>
      r.status === 202 && r.body.data?.approval?.group === null && r.body.data.approval.required === 1;
    let held = await client(server.url, signer.apiKey).post(`${base}/sign`, localSignBody(wallet));
    await until(async () => {
      if (!heldByThisRule(held)) held = await client(server.url, signer.apiKey).post(`${base}/sign`, localSignBody(wallet));
      return heldByThisRule(held);
    }, 'the rule added with the command line holds a sign');
    const id: string = held.body.data.approval.id;

    const rejected = await asKey(approver, 'reject', id);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(JSON.parse(rejected.stdout)).toMatchObject({ id, status: 'rejected', result: null });
    expect((await client(server.url, signer.apiKey).get(`${base}/approvals/${id}`)).body.data).toMatchObject({ status: 'rejected', result: null });
  });

  // Six runs of the command line, each a process start: more than the default bound on a busy machine.
  it("the operator's contract name (policies apply, contractNames) is shown beside a held call's contract, with a Sign's uniq, signer and pin", { timeout: 120_000 }, async () => {
    const named = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'named contracts'], env)).id;
    const file = path.join(dataDir, 'named-policy.json');
    await writeFile(
      file,
      JSON.stringify({
        version: 2,
        rules: [{ id: 'hold-all', effect: { hold: { required: 1 } }, kinds: ['call'] }],
        uniqs: { [LOCAL_CONTRACT]: LOCAL_UNIQ },
        contractNames: { [LOCAL_CONTRACT]: 'Reward token', [PAYROLL]: 'Payroll vault' },
      }),
    );
    expect((await runCli(['policies', 'apply', '--vault', named, '--file', file], env)).code).toBe(0);
    const exported = JSON.parse((await runCli(['policies', 'export', '--vault', named], env)).stdout) as { contractNames: Record<string, string> };
    expect(exported.contractNames).toEqual({ '0x5FbDB2315678afecb367f032d93F642f64180aa3': 'Reward token', [PAYROLL]: 'Payroll vault' });
    expect((await runCli(['policies', 'show', '--vault', named], env)).stdout).toContain('name of          0x5FbDB2315678afecb367f032d93F642f64180aa3 = "Reward token"');

    const keyOf = (...args: string[]) => cliJson<Key>(['api-keys', 'create', '--vault', named, ...args], env);
    const [admin, signer, reader] = [await keyOf('--roles', 'admin'), await keyOf('--roles', 'signer'), await keyOf('--roles', 'reader')];
    const base = `/api/v1/vaults/${named}`;
    const wallet = (await client(server.url, admin.apiKey).post(`${base}/wallets`, { name: 'w' })).body.data.address;
    const held = await client(server.url, signer.apiKey).post(`${base}/sign`, localSignBody(wallet));
    expect(held.status).toBe(202);
    const id: string = held.body.data.approval.id;
    const shown = await runCli(['approvals', 'show', id, '--vault', named, '--json'], { ...env, WALLET_VAULT_API_KEY: reader.apiKey });
    expect(JSON.parse(shown.stdout).request).toMatchObject({ contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3', contractName: 'Reward token' });
    const text = await runCli(['approvals', 'show', id, '--vault', named], { ...env, WALLET_VAULT_API_KEY: reader.apiKey });
    expect(text.stdout).toContain(`  contract 0x5FbDB2315678afecb367f032d93F642f64180aa3 is the operator's "Reward token"`);
    // What the signature binds besides the call: the uniq (pinned for this very contract) and the signer.
    expect(text.stdout).toContain(`\n  uniq ${LOCAL_UNIQ}\n  signer ${wallet}\n`);
    expect(text.stdout).not.toContain('WARNING');

    // Payroll vault named, Reward token's pinned uniq given: the signature would be valid on Reward token.
    const aside = await client(server.url, signer.apiKey).post(`${base}/sign`, localSignBody(wallet, { contract: PAYROLL }));
    expect(aside.status).toBe(202);
    const asideText = await runCli(['approvals', 'show', aside.body.data.approval.id, '--vault', named], { ...env, WALLET_VAULT_API_KEY: reader.apiKey });
    expect(asideText.stdout).toContain(`  contract ${PAYROLL} is the operator's "Payroll vault"`);
    expect(asideText.stdout).toContain(`\n  uniq ${LOCAL_UNIQ}\n  signer ${wallet}\n`);
    expect(asideText.stdout).toContain(
      `  WARNING: This uniq is the one the policy pins for Reward token (0x5FbDB2315678afecb367f032d93F642f64180aa3), not for Payroll vault (${PAYROLL}): the signature is valid on that contract`,
    );
  });

  it('a release a freeze refuses: approvals show and list say the request is approved but not released, and why', { timeout: 120_000 }, async () => {
    const frozen = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'frozen four eyes'], env)).id;
    const keyOf = (...args: string[]) => cliJson<Key>(['api-keys', 'create', '--vault', frozen, ...args], env);
    await cliJson(['policies', 'approvals', 'add', '--vault', frozen, '--required', '1'], env);
    const [admin, signer, approver] = [await keyOf('--roles', 'admin'), await keyOf('--roles', 'signer'), await keyOf('--roles', 'approver')];
    const base = `/api/v1/vaults/${frozen}`;
    const wallet = (await client(server.url, admin.apiKey).post(`${base}/wallets`, { name: 'frozen' })).body.data.address;
    const held = await client(server.url, signer.apiKey).post(`${base}/sign`, localSignBody(wallet));
    expect(held.status).toBe(202);
    const id: string = held.body.data.approval.id;
    expect((await runCli(['freeze', '--vault', frozen, '--reason', 'drill', '--json'], env)).code).toBe(0);
    const as = (...args: string[]) => runCli(['approvals', ...args, '--vault', frozen], { ...env, WALLET_VAULT_API_KEY: approver.apiKey });
    const refused = await as('approve', id, '--json');
    expect(errorOf(refused).code).toBe('VAULT_FROZEN');
    const shown = await as('show', id);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^ {2}approved, but not released: freeze \(VAULT_FROZEN at [0-9T:.Z-]+\): .+$/m);
    expect((await as('list')).stdout).toContain('approved, but not released: freeze (VAULT_FROZEN');
    expect(JSON.parse((await as('show', id, '--json')).stdout).blockedBy).toMatchObject({ reason: 'freeze', code: 'VAULT_FROZEN' });
  });
});
