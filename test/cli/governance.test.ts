import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Wallet, type HDNodeWallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, migrateStore, runCli } from '../support/cli.js';
import { DOCUMENT, WIDER } from '../governance/support.js';

interface ProposalJson {
  id: string;
  status: string;
  approvals: string[];
  documentHash: string;
  rejectedBy: string | null;
  typedData: { domain: Record<string, string>; types: Record<string, { name: string; type: string }[]>; primaryType: string; message: Record<string, string> };
}

/*
 * The governance commands as an operator and approvers run them (docs/governance.md), on SQLite: set,
 * show, proposals list|show|approve|reject (a key file, a signature made elsewhere, the typed data
 * printed for it), freeze and unfreeze. The approvers' key files are written 0600, as an approver keeps one.
 */
describe('wallet-vault governance, freeze, unfreeze', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let vaultId: string;
  const approvers = [Wallet.createRandom(), Wallet.createRandom(), Wallet.createRandom()];
  const keyFiles: string[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-governance-cli-'));
    env = { VAULT_DATA_DIR: dataDir };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'governed'], env)).id;
    for (const [i, approver] of approvers.entries()) {
      const file = path.join(dataDir, `approver-${i}.key`);
      await writeFile(file, `${approver.privateKey}\n`, { mode: 0o600 });
      keyFiles.push(file);
    }
    await apply(DOCUMENT);
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const apply = async (document: unknown) => {
    const file = path.join(dataDir, 'policy.json');
    await writeFile(file, JSON.stringify(document));
    return cliJson<{ proposal?: { id: string; documentHash: string } }>(['policies', 'apply', '--vault', vaultId, '--file', file], env);
  };
  const governance = (...args: string[]) => runCli(['governance', ...args, '--vault', vaultId], env);
  const proposals = (...args: string[]) => runCli(['governance', 'proposals', ...args, '--vault', vaultId], env);
  const vote = async (decision: 'approve' | 'reject', id: string, ...how: string[]) => {
    const r = await proposals(decision, '--id', id, ...how, '--json');
    if (r.code !== 0) return { code: r.code, error: JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { code: string; error: string } };
    return { code: 0, proposal: (JSON.parse(r.stdout) as { proposal: ProposalJson }).proposal };
  };
  const typedDataOf = async (decision: 'approve' | 'reject', id: string) => {
    const r = await proposals(decision, '--id', id, '--print-typed-data');
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as ProposalJson['typedData'];
  };
  const signed = (approver: HDNodeWallet, t: ProposalJson['typedData']) => approver.signTypedData(t.domain, t.types, t.message);

  it('set makes the vault governed and prints the pin; show says what is in force and that the pin is missing here', async () => {
    const set = await governance('set', '--required', '2', '--approvers', approvers.map((a) => a.address).join(','), '--delay', '0s');
    expect(set.code, set.stderr).toBe(0);
    const pin = /VAULT_GOVERNANCE_PINS=(\S+):(0x[0-9a-f]{64})/.exec(set.stdout)!;
    expect(pin[1]).toBe(vaultId);
    expect(set.stderr).toMatch(/until then a database writer could remove this vault's governance/);
    const shown = await governance('show');
    expect(shown.stdout).toMatch(new RegExp(`vault ${vaultId} is governed\\n`));
    expect(shown.stdout).toMatch(/required {4}2/);
    expect(shown.stdout).toMatch(/frozen {6}no/);
    expect(shown.stdout).toMatch(/NOT in this configuration: add it/);
    const json = JSON.parse((await governance('show', '--json')).stdout) as { governed: boolean; hash: string; genesisHash: string };
    expect(json).toMatchObject({ governed: true, hash: pin[2], genesisHash: pin[2] });
  });

  it('a policy edit is a proposal: listed, shown with its diff and typed data, applied by two signatures (a key file, then one made elsewhere)', async () => {
    const { proposal } = await apply(WIDER);
    expect(proposal).toEqual({ id: expect.any(String), documentHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const list = JSON.parse((await proposals('list', '--json')).stdout) as { proposals: ProposalJson[] };
    expect(list.proposals.map((p) => [p.id, p.status])).toEqual([[proposal!.id, 'pending']]);
    const shown = await proposals('show', '--id', proposal!.id);
    expect(shown.stdout).toMatch(/\+ rule typed/);
    expect(shown.stdout).toMatch(/signed by {3}0 of 2/);
    expect(shown.stdout).toContain('"primaryType":"PolicyChange"');
    expect(shown.stdout).toContain('"primaryType":"Decision"');

    const typedData = await typedDataOf('approve', proposal!.id);
    expect(typedData).toMatchObject({ primaryType: 'PolicyChange', message: { vault: vaultId, proposal: proposal!.id, document: proposal!.documentHash } });
    // One of --key-file, --signature, --print-typed-data: never two.
    const both = await vote('approve', proposal!.id, '--key-file', keyFiles[0]!, '--signature', await signed(approvers[0]!, typedData));
    expect([both.code, both.error?.code]).toEqual([1, 'USAGE']);

    const first = await vote('approve', proposal!.id, '--key-file', keyFiles[0]!);
    expect(first.proposal).toMatchObject({ status: 'pending', approvals: [approvers[0]!.address] });
    const second = await vote('approve', proposal!.id, '--signature', await signed(approvers[1]!, typedData));
    expect(second.proposal!.status).toBe('applied');
    const json = JSON.parse((await governance('show', '--json')).stdout) as { hash: string };
    expect(json.hash).toBe(proposal!.documentHash);
  });

  it('reject signs the Decision "reject": an approve signature is refused as one; a key file signs it; a bad key file is named, not echoed', async () => {
    const { proposal } = await apply(DOCUMENT);
    const rejectData = await typedDataOf('reject', proposal!.id);
    expect(rejectData).toMatchObject({ primaryType: 'Decision', message: { vault: vaultId, approval: proposal!.id, request: proposal!.documentHash, decision: 'reject' } });
    const approveSignature = await signed(approvers[2]!, await typedDataOf('approve', proposal!.id));
    const replayed = await vote('reject', proposal!.id, '--signature', approveSignature);
    expect([replayed.code, replayed.error?.code]).toEqual([1, 'APPROVAL_SIGNATURE_INVALID']);

    const secret = path.join(dataDir, 'not-a-key');
    await writeFile(secret, 'correct horse battery staple', { mode: 0o600 });
    const bad = await vote('reject', proposal!.id, '--key-file', secret);
    expect(bad.error?.error).toMatch(/--key-file: .*not-a-key does not hold a private key/);
    expect(bad.error?.error).not.toContain('horse');
    // The one key-file reader of the CLI: a file others may read is refused before it is read, as for votes.
    const open = path.join(dataDir, 'readable-key');
    await writeFile(open, `0x${'11'.repeat(32)}`, { mode: 0o644 });
    expect((await vote('reject', proposal!.id, '--key-file', open)).error?.error).toMatch(/may be read by others than its owner; chmod 600/);

    const rejected = await vote('reject', proposal!.id, '--key-file', keyFiles[2]!);
    expect(rejected.proposal).toMatchObject({ status: 'rejected', rejectedBy: approvers[2]!.address });
    const late = await vote('approve', proposal!.id, '--key-file', keyFiles[0]!);
    expect(late.error?.code).toBe('PROPOSAL_CLOSED');
  });

  it('api-keys create on the governed vault prints the key once and its proposal; the diff names the key; revoke is at once and proposes the removal', async () => {
    const made = await runCli(['api-keys', 'create', '--vault', vaultId, '--roles', 'reader'], env);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/store it safely:\nwv_/);
    const id = /\(id ([^;]+);/.exec(made.stdout)![1]!;
    const proposalId = /the vault is governed: proposal (\S+) \(document 0x[0-9a-f]{64}\); the key authenticates once the approvers sign it/.exec(made.stdout)![1]!;
    expect((await proposals('show', '--id', proposalId)).stdout).toContain(`+ api key ${id}`);
    await vote('approve', proposalId, '--key-file', keyFiles[0]!);
    expect((await vote('approve', proposalId, '--key-file', keyFiles[1]!)).proposal!.status).toBe('applied');

    const revoked = JSON.parse((await runCli(['api-keys', 'revoke', '--id', id, '--json'], env)).stdout) as { revoked: boolean; proposal: { id: string } };
    expect(revoked.revoked).toBe(true);
    expect((await proposals('show', '--id', revoked.proposal.id)).stdout).toContain(`- api key ${id}`);
    // Not voted on: the next test's proposals supersede it.
  });

  it('freeze at once without a quorum; unfreeze of a governed vault is a proposal its approvers sign', async () => {
    const frozen = await runCli(['freeze', '--vault', vaultId, '--reason', 'key may be stolen', '--json'], env);
    expect(JSON.parse(frozen.stdout)).toEqual({ vault: vaultId, frozen: true, freezes: 1 });
    expect((await governance('show')).stdout).toMatch(/frozen {6}yes \(1 freeze\(s\), 0 lifted\)/);
    const unfreeze = JSON.parse((await runCli(['unfreeze', '--vault', vaultId, '--json'], env)).stdout) as { proposal: { id: string } };
    const shown = await proposals('show', '--id', unfreeze.proposal.id);
    expect(shown.stdout).toMatch(/~ freezes lifted 0 -> 1/);
    await vote('approve', unfreeze.proposal.id, '--key-file', keyFiles[1]!);
    expect((await governance('show')).stdout).toMatch(/frozen {6}yes/);
    const lifted = await vote('approve', unfreeze.proposal.id, '--key-file', keyFiles[2]!);
    expect(lifted.proposal!.status).toBe('applied');
    expect((await governance('show')).stdout).toMatch(/frozen {6}no \(1 freeze\(s\), 1 lifted\)/);
  });

  it('an ungoverned vault: governance unfreeze lifts its freezes at once; show says it is not governed', async () => {
    const other = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'plain'], env)).id;
    expect((await runCli(['freeze', '--vault', other], env)).stdout).toMatch(/frozen \(1 freeze\(s\)\)/);
    expect(JSON.parse((await runCli(['governance', 'unfreeze', '--vault', other, '--json'], env)).stdout)).toEqual({ vault: other, lifted: 1 });
    expect((await runCli(['governance', 'show', '--vault', other], env)).stdout).toBe(`vault ${other} is not governed\n`);
  });
});
