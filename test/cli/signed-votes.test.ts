import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, migrateStore, runCli, spawnServer, type ChildServer } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { localSignBody } from '../support/sign-request.js';

interface Key {
  apiKey: string;
  id: string;
  approverAddress: string | null;
}

/*
 * Votes are signatures from the command line (issue 35): an approver key's credential given at creation
 * or attached later (audited), and votes signed with a key file, or printed as typed data for an
 * external wallet and submitted with --signature.
 */
describe('wallet-vault api-keys --approver-address, api-keys credential set, approvals approve|reject --key-file|--print-typed-data|--signature', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let vaultId: string;
  let server: ChildServer;
  let hold: () => Promise<{ id: string; requestHash: string }>;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-signed-votes-cli-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'signed votes'], env)).id;
    await cliJson(['policies', 'approvals', 'add', '--vault', vaultId, '--required', '2', '--chains', 'local'], env);
    server = await spawnServer(env);
    const admin = await key('--roles', 'admin');
    const signer = await key('--roles', 'signer');
    const base = `/api/v1/vaults/${vaultId}`;
    const wallet = (await client(server.url, admin.apiKey).post(`${base}/wallets`, { name: 'w' })).body.data.address;
    hold = async () => {
      const held = await client(server.url, signer.apiKey).post(`${base}/sign`, localSignBody(wallet));
      expect(held.status).toBe(202);
      return held.body.data.approval;
    };
  });
  afterAll(async () => {
    await server?.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  const key = (...args: string[]) => cliJson<Key>(['api-keys', 'create', '--vault', vaultId, ...args], env);
  const errorOf = (r: { stderr: string }) => JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { code: string; error: string };
  const asKey = (k: Key, ...args: string[]) => runCli(['approvals', ...args, '--vault', vaultId, '--json'], { ...env, WALLET_VAULT_API_KEY: k.apiKey });
  const keyFile = async (name: string, wallet: { privateKey: string }, mode = 0o600) => {
    const file = path.join(dataDir, name);
    await writeFile(file, `${wallet.privateKey.slice(2)}\n`);
    await chmod(file, mode);
    return file;
  };

  it('an approver key gets a credential at creation (validated, approver keys only), shown by api-keys list', async () => {
    const wallet = Wallet.createRandom();
    const created = await key('--roles', 'approver', '--approver-address', wallet.address.toLowerCase());
    expect(created.approverAddress).toBe(wallet.address);
    const listed = await cliJson<Key[]>(['api-keys', 'list', '--vault', vaultId], env);
    expect(listed.find((k) => k.id === created.id)?.approverAddress).toBe(wallet.address);
    expect((await runCli(['api-keys', 'list', '--vault', vaultId], env)).stdout).toContain(`votes signed by ${wallet.address}`);

    // One letter's case flipped: a mixed-case address whose EIP-55 checksum fails, most likely a typo.
    const flipped = wallet.address.replace(/(?<=^0x.*)[a-fA-F]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    const badChecksum = await runCli(['api-keys', 'create', '--vault', vaultId, '--roles', 'approver', '--approver-address', flipped, '--json'], env);
    expect([badChecksum.code, errorOf(badChecksum).error]).toEqual([2, expect.stringContaining('invalid EIP-55 checksum')]);
    const notAddress = await runCli(['api-keys', 'create', '--vault', vaultId, '--roles', 'approver', '--approver-address', '0x1234', '--json'], env);
    expect([notAddress.code, errorOf(notAddress).error]).toEqual([2, expect.stringContaining('approver-address')]);
    const notApprover = await runCli(['api-keys', 'create', '--vault', vaultId, '--roles', 'reader', '--approver-address', wallet.address, '--json'], env);
    expect([notApprover.code, errorOf(notApprover).error]).toEqual([1, 'approver-address: only a key with the approver role votes; add approver to --roles']);
  });

  it('a second approver key with an address another approver key has is made with a warning (it adds no approval); so is a credential set to it', async () => {
    // A vault of its own: the audit trail of the shared one is read by the tests after this one.
    const own = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'shared address'], env)).id;
    const person = Wallet.createRandom();
    const first = await runCli(['api-keys', 'create', '--vault', own, '--roles', 'approver', '--approver-address', person.address, '--json'], env);
    expect([first.code, first.stderr]).toEqual([0, expect.not.stringContaining('warning')]);
    const older = JSON.parse(first.stdout) as Key;
    const second = await runCli(['api-keys', 'create', '--vault', own, '--roles', 'approver', '--approver-address', person.address.toLowerCase(), '--json'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`wallet-vault: warning: approver-address: api key ${older.id} of this vault already votes as ${person.address}; a quorum counts each approver once`);
    // The result on stdout stays one JSON object: the key, shown once.
    expect(JSON.parse(second.stdout)).toMatchObject({ apiKey: expect.stringMatching(/^wv_/), approverAddress: person.address });
    const legacy = await cliJson<Key>(['api-keys', 'create', '--vault', own, '--roles', 'approver'], env);
    const set = await runCli(['api-keys', 'credential', 'set', '--vault', own, '--key', legacy.id, '--approver-address', person.address, '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain(`api keys ${[older.id, JSON.parse(second.stdout).id].sort().join(', ')} of this vault already vote as ${person.address}`);
  });

  it('votes signed with a key file and by an external wallet (--print-typed-data, then --signature) release the signature; a wrong key is refused', async () => {
    const [w1, w2, stranger] = [Wallet.createRandom(), Wallet.createRandom(), Wallet.createRandom()];
    const one = await key('--roles', 'approver', '--approver-address', w1.address);
    const two = await key('--roles', 'approver', '--approver-address', w2.address);
    const approval = await hold();

    // Unsigned, or signed by another key: 403 APPROVAL_SIGNATURE_INVALID, nothing voted.
    expect(errorOf(await asKey(one, 'approve', approval.id)).code).toBe('APPROVAL_SIGNATURE_INVALID');
    expect(errorOf(await asKey(one, 'approve', approval.id, '--key-file', await keyFile('stranger.key', stranger))).code).toBe('APPROVAL_SIGNATURE_INVALID');
    // A key file others may read is refused before anything is read from it.
    const open = await asKey(one, 'approve', approval.id, '--key-file', await keyFile('open.key', w1, 0o644));
    expect([open.code, errorOf(open).code]).toEqual([1, 'KEY_FILE']);
    expect(open.stderr).not.toContain(w1.privateKey.slice(2));

    const signed = await asKey(one, 'approve', approval.id, '--key-file', await keyFile('one.key', w1));
    expect(signed.code, signed.stderr).toBe(0);
    expect(JSON.parse(signed.stdout)).toMatchObject({ status: 'pending', approvals: 1, votes: [{ by: `api-key:${one.id}`, signature: expect.stringMatching(/^0x[0-9a-f]{130}$/) }] });

    const printed = await asKey(two, 'approve', approval.id, '--print-typed-data');
    expect(printed.code, printed.stderr).toBe(0);
    const typed = JSON.parse(printed.stdout);
    expect(typed).toMatchObject({ domain: { name: 'wallet-vault', version: '1' }, primaryType: 'Decision', message: { vault: vaultId, approval: approval.id, request: approval.requestHash, decision: 'approve' } });
    const signature = await w2.signTypedData(typed.domain, typed.types, typed.message);
    const released = await asKey(two, 'approve', approval.id, '--signature', signature);
    expect(released.code, released.stderr).toBe(0);
    expect(JSON.parse(released.stdout)).toMatchObject({ status: 'approved', approvals: 2 });
    expect((await asKey(two, 'approve', approval.id, '--signature', signature, '--key-file', 'x')).code).toBe(1);
  });

  it('api-keys credential set migrates a legacy approver key (audited); its votes then need signatures, rejects too', async () => {
    const legacy = await key('--roles', 'approver');
    expect(legacy.approverAddress).toBeNull();
    const approval = await hold();
    const wallet = Wallet.createRandom();
    const set = await cliJson<{ id: string; approverAddress: string }>(['api-keys', 'credential', 'set', '--vault', vaultId, '--key', legacy.id, '--approver-address', wallet.address], env);
    expect(set).toEqual({ id: legacy.id, vault: vaultId, approverAddress: wallet.address });
    const trail = await cliJson<{ action: string; subject: string; details: Record<string, unknown> }[]>(['audit', 'list', '--vault', vaultId, '--limit', '1000'], env);
    expect(trail.filter((r) => r.action === 'api-key.credential-set').map((r) => [r.subject, r.details.approverAddress])).toEqual([[legacy.id, wallet.address]]);
    // Only approver keys of the vault, named by id.
    const reader = await key('--roles', 'reader');
    expect((await runCli(['api-keys', 'credential', 'set', '--vault', vaultId, '--key', reader.id, '--approver-address', wallet.address], env)).code).toBe(1);

    expect(errorOf(await asKey(legacy, 'reject', approval.id)).code).toBe('APPROVAL_SIGNATURE_INVALID');
    const rejected = await asKey(legacy, 'reject', approval.id, '--key-file', await keyFile('legacy.key', wallet));
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(JSON.parse(rejected.stdout)).toMatchObject({ status: 'rejected' });
  });
});
