import type { Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploy, startAnvil, type Anvil } from '../support/anvil.js';
import { client } from '../support/http-client.js';
import { signableAbiItem } from '../support/signable-chain.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const UNIQ = `0x${'4e'.repeat(32)}`;
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/*
 * Issue 25's done-when, on a real EVM: a 2-of-3 approval rule on a chain with an RPC (uniq and signer read
 * from the contract). The signer's key gets 202; one approval leaves it pending; the requester's own
 * approval is refused; the second releases a signature the contract accepts. Expired and rejected
 * requests never sign. And what the wait cannot make stale: the signer is read when the quorum is reached.
 */
describe('approvals (four eyes) on anvil', () => {
  let anvil: Anvil;
  let s: TestServer;
  let vaultId: string;
  let base: string;
  let admin: ReturnType<typeof client>;
  let requester: ReturnType<typeof client>;
  let approvers: ReturnType<typeof client>[];
  let target: Contract;
  let sender: string;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 11155111 });
    s = await startTestServer({ env: { VAULT_RPC_URL_SEPOLIA: anvil.rpcUrl } });
    vaultId = (await s.createVault({ name: 'four eyes on chain' })).id;
    base = `/api/v1/vaults/${vaultId}`;
    const keyWith = async (roles: ('admin' | 'signer' | 'approver')[]) =>
      client(s.url, (await s.server.vault.manageVaults.createApiKey(vaultId, { roles })).apiKey);
    admin = await keyWith(['admin']);
    // The requesting key holds the approver role too: its own approval must still count for nothing.
    requester = await keyWith(['signer', 'approver']);
    approvers = [await keyWith(['approver']), await keyWith(['approver']), await keyWith(['approver'])];
    const signer = (await admin.post(`${base}/wallets`, { name: 'contract signer' })).body.data.address;
    target = await deploy(anvil, 'SignableTarget', [signer, UNIQ]);
    sender = await anvil.account(1).getAddress();
    const mint = target.interface.getFunction('mint')!.format('full');
    await s.server.vault.managePolicies.addApprovalRule(vaultId, { required: 2, chains: ['sepolia'], contracts: [String(target.target)], function: mint, expiresIn: '1h' });
  });
  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  const sign = (amount: number) => requester.post(`${base}/sign`, { chain: 'sepolia', contract: target.target, sender, abi: signableAbiItem('mint'), args: [TO, amount] });
  const calls = async () => (await target.getFunction('calls')()) as bigint;
  const send = async (args: unknown[]) => (await (target.connect(anvil.account(1)) as Contract).getFunction('mint')(...args)).wait();
  const issued = async () => (await s.server.vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'signature.issued');

  it('2 of 3: 202, one approval pending, the requester refused, the second approval releases a signature the contract accepts', async () => {
    const held = await sign(500);
    expect(held.status, JSON.stringify(held.body)).toBe(202);
    const id = held.body.data.approval.id;
    expect(held.body.data.approval).toMatchObject({ status: 'pending', required: 2, approvals: 0 });
    expect((await approvers[0]!.post(`${base}/approvals/${id}/approve`)).body.data).toMatchObject({ status: 'pending', approvals: 1 });
    const self = await requester.post(`${base}/approvals/${id}/approve`);
    expect([self.status, self.body.code]).toEqual([403, 'APPROVAL_SELF_VOTE']);
    expect(await issued()).toEqual([]);

    // While it waits, the contract's signer is rotated to another wallet of the vault: the release reads
    // the signer (and uniq) now, so its signature is the one the contract accepts now.
    const next = (await admin.post(`${base}/wallets`, { name: 'rotated signer' })).body.data.address;
    await (await (target.connect(anvil.account(0)) as Contract).getFunction('setSigner')(next)).wait();

    const released = await approvers[1]!.post(`${base}/approvals/${id}/approve`);
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect(released.body.data).toMatchObject({ status: 'approved', approvals: 2 });
    const { result } = released.body.data;
    expect((await issued()).map((r) => [r.subject, r.details.wallet])).toEqual([[result.submissionHash, next]]);
    const before = await calls();
    expect((await send(result.args))?.status).toBe(1);
    expect(await calls()).toBe(before + 1n);
    expect(await target.getFunction('lastAmount')()).toBe(500n);
  });

  it('a rejected request never signs', async () => {
    const id = (await sign(600)).body.data.approval.id;
    await approvers[0]!.post(`${base}/approvals/${id}/approve`);
    expect((await approvers[1]!.post(`${base}/approvals/${id}/reject`)).body.data.status).toBe('rejected');
    expect((await approvers[2]!.post(`${base}/approvals/${id}/approve`)).body.code).toBe('APPROVAL_CLOSED');
    expect((await admin.get(`${base}/approvals/${id}`)).status).toBe(403); // an admin-only key reads nothing here
    expect((await requester.get(`${base}/approvals/${id}`)).body.data).toMatchObject({ status: 'rejected', result: null });
    expect((await issued()).length).toBe(1);
  });

  it('an expired request never signs, whatever votes come after its expiry', async () => {
    const id = (await sign(700)).body.data.approval.id;
    await approvers[0]!.post(`${base}/approvals/${id}/approve`);
    s.clock.advance(3_600_000);
    const late = await approvers[1]!.post(`${base}/approvals/${id}/approve`);
    expect([late.status, late.body.code]).toEqual([403, 'APPROVAL_EXPIRED']);
    expect((await requester.get(`${base}/approvals/${id}`)).body.data).toMatchObject({ status: 'expired', result: null });
    expect((await issued()).length).toBe(1);
  });

  it('a sign the rule does not match is signed at once', async () => {
    const other = await requester.post(`${base}/sign`, { chain: 'sepolia', contract: target.target, sender, abi: signableAbiItem('first'), args: [1, 2, true] });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
  });
});
