import { Wallet } from 'ethers';
import { createWalletClient, custom } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VaultClient, type VaultRole } from '../../client/index.js';
import { DOCUMENT, WIDER } from '../governance/support.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/*
 * The client's governance (docs/client.md): the state in force, proposals read and voted with the
 * approver's own signer (an ethers Signer, a viem account, a viem wallet client), the freeze.
 */
describe('VaultClient governance', () => {
  let s: TestServer;
  let vaultId: string;
  const ethersKey = Wallet.createRandom();
  const viemAccount = privateKeyToAccount(generatePrivateKey());
  // A wallet client signs with its local account without asking its transport anything.
  const walletClient = createWalletClient({ account: privateKeyToAccount(generatePrivateKey()), transport: custom({ request: async () => Promise.reject(new Error('no transport')) }) });
  // Made before the vault is governed: a key made after is itself a proposal (docs/governance.md), and its
  // approval would supersede the proposals these tests vote on.
  const keys = new Map<string, string>();
  const clientWith = async (roles: VaultRole[]) => new VaultClient({ baseUrl: s.url, vaultId, apiKey: keys.get(roles.join(','))!, retries: 0 });
  const propose = async () => ((await s.server.vault.managePolicies.apply(vaultId, WIDER as never)) as { proposal: { id: string } }).proposal.id;

  beforeAll(async () => {
    s = await startTestServer();
    vaultId = (await s.createVault({ name: 'client governance' })).id;
    await s.server.vault.managePolicies.apply(vaultId, DOCUMENT as never);
    for (const roles of [['approver'], ['reader'], ['admin']] as VaultRole[][]) keys.set(roles.join(','), (await s.server.vault.manageVaults.createApiKey(vaultId, { roles })).apiKey);
    await s.server.vault.governance.set(vaultId, { required: 2, approvers: [ethersKey.address, viemAccount.address, walletClient.account.address] }, 'operator');
  });
  afterAll(() => s?.stop());

  it('approve with an ethers Signer and a viem account puts a proposal in force; governance() shows it', async () => {
    const approver = await clientWith(['approver']);
    const id = await propose();
    const listed = await approver.proposals.list();
    expect(listed.page.map((p) => p.id)).toContain(id);
    const once = await approver.proposals.approve(id, { signer: ethersKey });
    expect(once).toMatchObject({ status: 'pending', approvals: [ethersKey.address] });
    const twice = await approver.proposals.approve(id, { signer: viemAccount, documentHash: once.documentHash });
    expect(twice.status).toBe('applied');
    const shown = await (await clientWith(['reader'])).governance();
    expect(shown).toMatchObject({ governed: true, hash: twice.documentHash, frozen: false, problem: null });
    expect(shown.state!.policy).toMatchObject({ rules: [{ id: 'messages' }, { id: 'typed' }] });
  });

  it('reject with a viem wallet client closes a proposal; a reviewed hash that is not the proposal is refused unsent', async () => {
    const approver = await clientWith(['approver']);
    const id = await propose();
    await expect(approver.proposals.reject(id, { signer: walletClient, documentHash: `0x${'00'.repeat(32)}` })).rejects.toThrow(/not the 0x0{64} you reviewed; nothing was signed/);
    expect((await approver.proposals.get(id)).status).toBe('pending');
    const rejected = await approver.proposals.reject(id, { signer: walletClient });
    expect(rejected).toMatchObject({ status: 'rejected', rejectedBy: walletClient.account.address });
    // An outsider's signature is the server's 403.
    await expect(approver.proposals.approve(await propose(), { signer: Wallet.createRandom() })).rejects.toMatchObject({ status: 403, code: 'APPROVAL_SIGNATURE_INVALID' });
    await expect(approver.proposals.approve(id, {} as never)).rejects.toThrow(TypeError);
  });

  it('freeze(reason?) with an admin key: the vault is frozen', async () => {
    const admin = await clientWith(['admin']);
    expect(await admin.freeze('key may be stolen')).toEqual({ vault: vaultId, frozen: true, freezes: 1 });
    expect(await admin.freeze()).toMatchObject({ freezes: 2 });
    expect(await admin.governance()).toMatchObject({ frozen: true, freezes: 2 });
  });
});
