import type { Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploy, startAnvil, type Anvil } from '../support/anvil.js';
import { client } from '../support/http-client.js';
import { signableAbiItem } from '../support/signable-chain.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { documentedVerifier, startReceiver, until, type Receiver } from '../support/webhook-receiver.js';

const UNIQ = `0x${'4e'.repeat(32)}`;
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/*
 * Issue 25's done-when, on a real EVM: a 2-of-3 approval rule on a chain with an RPC (uniq and signer read
 * from the contract). The signer's key gets 202; one approval leaves it pending; the requester's own
 * approval is refused; the second releases a signature the contract accepts. Expired and rejected
 * requests never sign. And what the wait cannot make stale: the signer is read when the quorum is reached.
 * A webhook endpoint of the vault (a loopback receiver) sees every event of the scenario once, each verified
 * with the snippet of docs/webhooks.md.
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
  let receiver: Receiver;
  /** The vault's clock when each delivery arrived: the time a receiver checks the replay window against. */
  const arrivedAt: number[] = [];
  /** What the scenario produced, in order: [type, subject, status], for the webhook assertions. */
  const scenario: [string, string, string | undefined][] = [];

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 11155111 });
    s = await startTestServer({ env: { VAULT_RPC_URL_SEPOLIA: anvil.rpcUrl } });
    vaultId = (await s.createVault({ name: 'four eyes on chain' })).id;
    base = `/api/v1/vaults/${vaultId}`;
    const keyWith = async (roles: ('admin' | 'signer' | 'approver')[]) =>
      client(s.url, (await s.server.vault.manageVaults.createApiKey(vaultId, { roles, allowSignerApprover: true })).apiKey);
    admin = await keyWith(['admin']);
    // The requesting key holds the approver role too: its own approval must still count for nothing.
    requester = await keyWith(['signer', 'approver']);
    approvers = [await keyWith(['approver']), await keyWith(['approver']), await keyWith(['approver'])];
    const signer = (await admin.post(`${base}/wallets`, { name: 'contract signer' })).body.data.address;
    target = await deploy(anvil, 'SignableTarget', [signer, UNIQ]);
    sender = await anvil.account(1).getAddress();
    const mint = target.interface.getFunction('mint')!.format('full');
    await s.server.vault.managePolicies.addApprovalRule(vaultId, { required: 2, chains: ['sepolia'], contracts: [String(target.target)], function: mint, expiresIn: '1h' });
    receiver = await startReceiver((_, index) => {
      arrivedAt[index] = s.clock.now().getTime();
      return 200;
    });
    await s.server.vault.manageWebhooks.add({ vaultId, url: receiver.url });
  });
  afterAll(async () => {
    await s?.stop();
    await receiver?.close();
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
    scenario.push(['approval.requested', id, undefined]);
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
    scenario.push(['signature.issued', result.submissionHash, undefined], ['approval.decided', id, 'approved']);
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
    scenario.push(['approval.requested', id, undefined], ['approval.decided', id, 'rejected']);
    expect((await approvers[2]!.post(`${base}/approvals/${id}/approve`)).body.code).toBe('APPROVAL_CLOSED');
    expect((await admin.get(`${base}/approvals/${id}`)).status).toBe(403); // an admin-only key reads nothing here
    expect((await requester.get(`${base}/approvals/${id}`)).body.data).toMatchObject({ status: 'rejected', result: null });
    expect((await issued()).length).toBe(1);
  });

  it('an expired request never signs, whatever votes come after its expiry', async () => {
    const id = (await sign(700)).body.data.approval.id;
    await approvers[0]!.post(`${base}/approvals/${id}/approve`);
    // Its approval.requested is delivered before the clock jumps: a delivery signed before the jump and
    // received after it would be outside the receiver's replay window.
    await until(() => receiver.deliveries.some((d) => d.body.includes(`"subject":"${id}"`)), 'the delivery of its approval.requested');
    s.clock.advance(3_600_000);
    const late = await approvers[1]!.post(`${base}/approvals/${id}/approve`);
    expect([late.status, late.body.code]).toEqual([403, 'APPROVAL_EXPIRED']);
    expect((await requester.get(`${base}/approvals/${id}`)).body.data).toMatchObject({ status: 'expired', result: null });
    // The server's periodic job records the expiry (approval.decided {status: expired}); run it now.
    await s.server.purgeNow();
    scenario.push(['approval.requested', id, undefined], ['approval.decided', id, 'expired']);
    expect((await issued()).length).toBe(1);
  });

  it('a sign the rule does not match is signed at once', async () => {
    const other = await requester.post(`${base}/sign`, { chain: 'sepolia', contract: target.target, sender, abi: signableAbiItem('first'), args: [1, 2, true] });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    scenario.push(['signature.issued', other.body.data.submissionHash, undefined]);
  });

  it('the webhook receiver saw every event of the scenario once, in order, each verified with the documented snippet', async () => {
    const last = scenario.at(-1)![1];
    await until(() => receiver.deliveries.some((d) => d.body.includes(`"subject":"${last}"`)), 'the delivery of the last event');
    const verify = await documentedVerifier();
    const jwks = (await client(s.url).get('/.well-known/wallet-vault-webhook-keys')).body;
    const attempts = receiver.deliveries.map((d, i) => {
      const event = verify(d.headers, d.body, jwks, arrivedAt[i]);
      expect(event.id).toBe(d.headers['webhook-id']);
      return event;
    });
    // At least once: a repeat carries the id it had; one id per seq, and in the vault's order.
    const idOfSeq = new Map<number, string>();
    for (const e of attempts) {
      const seq = e.data.seq as number;
      const earlier = idOfSeq.get(seq);
      if (earlier === undefined) idOfSeq.set(seq, e.id);
      else expect(e.id, `the id of seq ${seq}`).toBe(earlier);
    }
    const events = attempts.filter((e, i) => attempts.findIndex((x) => x.id === e.id) === i);
    const seqs = events.map((e) => e.data.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(events.every((e) => e.vaultId === vaultId)).toBe(true);

    expect(events.map((e) => [e.type, e.data.subject, e.data.status])).toEqual(scenario);
    // Nothing signed for the rejected and the expired request: the only signatures are the released one and
    // the one no rule held, and their approvals' decisions name no submission.
    const [, rejected, expired] = scenario.filter(([type]) => type === 'approval.requested').map(([, id]) => id);
    for (const id of [rejected, expired]) {
      expect(events.find((e) => e.type === 'approval.decided' && e.data.subject === id)!.data.submissionHash).toBeUndefined();
    }
    const released = events.find((e) => e.type === 'approval.decided' && e.data.status === 'approved')!;
    expect(released.data.submissionHash).toBe(scenario[1]![1]);
    expect(events.filter((e) => e.type === 'approval.requested')[0]!.data).toMatchObject({ required: 2, chain: 'sepolia', contract: target.target, sender });
  });
});
