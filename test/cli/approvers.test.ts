import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, migrateStore, runCli } from '../support/cli.js';

/** `wallet-vault approvers invite|list|revoke` (docs/console.md), on a store of its own. */
describe('wallet-vault approvers', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let vaultId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-approvers-cli-'));
    env = { VAULT_DATA_DIR: dataDir, VAULT_PUBLIC_URL: 'https://vault.example/treasury/' };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'console'], env)).id;
  }, 120_000);
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('invite prints a one-time URL under VAULT_PUBLIC_URL/console/ with the token in the fragment; audited', async () => {
    const invite = await cliJson<{ url: string; expires: string }>(['approvers', 'invite', '--vault', vaultId, '--group', 'treasury', '--expires', '2h'], env);
    expect(invite.url).toMatch(/^https:\/\/vault\.example\/treasury\/console\/#enrol=[A-Za-z0-9_-]{43}$/);
    expect(new Date(invite.expires).getTime() - Date.now()).toBeGreaterThan(7_000_000);
    const plain = await runCli(['approvers', 'invite', '--vault', vaultId], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^https:\/\/vault\.example\/treasury\/console\/#enrol=\S{43}\n/);
    const records = await cliJson<{ action: string; details: Record<string, unknown> }[]>(['audit', 'list', '--vault', vaultId], env);
    const invited = records.filter((r) => r.action === 'approver.invited');
    expect(invited.map((r) => r.details.group)).toEqual(['treasury', null]);
    // The token is in no record.
    expect(JSON.stringify(records)).not.toContain(invite.url.split('#enrol=')[1]);
    expect(await cliJson(['approvers', 'list', '--vault', vaultId], env)).toEqual([]);
  }, 180_000);

  it('on a governed vault: invite says the enrolment is a proposal; revoke prints the proposal removing the key', async () => {
    const governed = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'governed console'], env)).id;
    const approver = await cliJson<{ id: string }>(['api-keys', 'create', '--vault', governed, '--roles', 'approver'], env);
    const set = await runCli(['governance', 'set', '--vault', governed, '--required', '1', '--approvers', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'], env);
    expect(set.code).toBe(0);
    const invite = await runCli(['approvers', 'invite', '--vault', governed], env);
    expect([invite.code, invite.stdout]).toEqual([0, expect.stringMatching(/the vault is governed: the enrolment makes a proposal listing the passkey/)]);
    const revoked = await cliJson<{ id: string; revoked: boolean; proposal: { id: string; documentHash: string } }>(['approvers', 'revoke', '--id', approver.id], env);
    expect(revoked).toEqual({ id: approver.id, revoked: true, proposal: { id: expect.any(String), documentHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
  }, 180_000);

  it('refuses a bad --expires, and says what is missing without VAULT_PUBLIC_URL', async () => {
    const bad = await runCli(['approvers', 'invite', '--vault', vaultId, '--expires', 'soon'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/expires/);
    const { VAULT_PUBLIC_URL: _, ...without } = env;
    const off = await runCli(['approvers', 'invite', '--vault', vaultId], without);
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/VAULT_PUBLIC_URL/);
  }, 120_000);
});
