import { readFileSync } from 'node:fs';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUIRED_ROLE, VAULT_ROLES, VaultClient, type VaultRole } from '../../client/index.js';
import { API_KEY_ROLES } from '../../src/domain/api-key-access.js';
import { clientRolesFileText } from '../../adapters/http/client-roles-file.js';
import { VAULT_ROUTES } from '../../adapters/http/routes.js';
import { OPERATION_ROLE } from '../../client/operation-roles.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

describe("the client's roles", () => {
  let s: TestServer;
  let vaultId: string;
  let address: string;
  let proposalId: string;
  // allowSignerApprover: the keys below hold every role but one, approver with signer or admin on purpose.
  // The vault is governed (1 of 1): a key made after its genesis is a proposal, put in force here by its one approver.
  const governor = Wallet.createRandom();
  const clientWith = async (roles: readonly VaultRole[]) => {
    const vault = s.server.vault;
    const made = await vault.manageVaults.createApiKey(vaultId, { roles, allowSignerApprover: true });
    if (made.proposal) {
      const { typedData } = await vault.governance.get(vaultId, made.proposal.id);
      await vault.governance.vote(vaultId, made.proposal.id, 'approve', await governor.signTypedData(typedData.domain, { ...typedData.types } as never, typedData.message), 'operator');
    }
    return new VaultClient({ baseUrl: s.url, vaultId, apiKey: made.apiKey, retries: 0 });
  };

  beforeAll(async () => {
    s = await startTestServer();
    vaultId = (await s.createVault({ name: 'client roles' })).id;
    address = (await (await clientWith(['admin'])).createWallet('w')).address;
    // Governed, with a proposal to vote on (docs/governance.md).
    const vault = s.server.vault;
    await vault.governance.set(vaultId, { required: 1, approvers: [governor.address] }, 'operator');
    proposalId = ((await vault.managePolicies.apply(vaultId, { version: 2, rules: [], limits: [] } as never)) as { proposal: { id: string } }).proposal.id;
  });
  afterAll(() => s?.stop());

  it("are the server's, and name a role for every public method of VaultClient", () => {
    expect(VAULT_ROLES).toEqual(API_KEY_ROLES);
    const methods = Object.getOwnPropertyNames(VaultClient.prototype).filter((m) => !['constructor', 'call', 'attempt', 'signWith', 'requestWith', 'vote', 'voteOnProposal'].includes(m));
    // The proposals' methods live on `client.proposals`: named `proposals.<method>`.
    const proposals = Object.keys(new VaultClient({ baseUrl: s.url, vaultId, apiKey: 'k' }).proposals).map((m) => `proposals.${m}`);
    expect(Object.keys(REQUIRED_ROLE).sort()).toEqual([...methods, ...proposals].sort());
  });

  it('are generated from the route table: client/operation-roles.ts is as the build writes it, one role per route', () => {
    // Stale after a route's role changed: `npm run build` writes it again.
    expect(readFileSync(new URL('../../client/operation-roles.ts', import.meta.url), 'utf8')).toBe(clientRolesFileText());
    expect(OPERATION_ROLE).toEqual(Object.fromEntries(VAULT_ROUTES.map((route) => [route.operationId, route.role])));
  });

  it('each method is refused (403 ROLE_REQUIRED) with a key holding every role but the one it names', async () => {
    const hash = `0x${'ab'.repeat(32)}`;
    const calls: Record<keyof typeof REQUIRED_ROLE, (c: VaultClient) => Promise<unknown>> = {
      createWallet: (c) => c.createWallet('x'),
      renameWallet: (c) => c.renameWallet(address, 'y'),
      expireWallet: (c) => c.expireWallet(address),
      unexpireWallet: (c) => c.unexpireWallet(address),
      sign: (c) => c.sign(localSignBody(address) as Parameters<VaultClient['sign']>[0]),
      signMessage: (c) => c.signMessage(address, 'hello'),
      signTypedData: (c) => c.signTypedData(address, { domain: { name: 'x', chainId: 1 }, types: { M: [{ name: 'a', type: 'uint256' }] }, primaryType: 'M', message: { a: '1' } }),
      signTransaction: (c) => c.signTransaction(address, { type: 'legacy', chainId: 1, nonce: 0, gas: 21000, gasPrice: 1, to: address }),
      signAuthorization: (c) => c.signAuthorization(address, { chainId: 1, address, nonce: 0 }),
      submit: (c) => c.submit(hash, hash),
      listWallets: (c) => c.listWallets(),
      wallets: (c) => c.wallets().next(),
      getWallet: (c) => c.getWallet(address),
      getSubmission: (c) => c.getSubmission(hash),
      status: (c) => c.status(),
      evaluatePolicy: (c) => c.evaluatePolicy('message', { message: 'hello' }, address),
      requestSign: (c) => c.requestSign(localSignBody(address) as Parameters<VaultClient['sign']>[0]),
      requestSignMessage: (c) => c.requestSignMessage(address, 'hello'),
      requestSignTypedData: (c) => c.requestSignTypedData(address, { domain: { name: 'x', chainId: 1 }, types: { M: [{ name: 'a', type: 'uint256' }] }, primaryType: 'M', message: { a: '1' } }),
      requestSignTransaction: (c) => c.requestSignTransaction(address, { type: 'legacy', chainId: 1, nonce: 0, gas: 21000, gasPrice: 1, to: address }),
      requestSignAuthorization: (c) => c.requestSignAuthorization(address, { chainId: 1, address, nonce: 0 }),
      listApprovals: (c) => c.listApprovals(),
      getApproval: (c) => c.getApproval('01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62'),
      approve: (c) => c.approve('01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62'),
      reject: (c) => c.reject('01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62'),
      governance: (c) => c.governance(),
      'proposals.list': (c) => c.proposals.list(),
      'proposals.get': (c) => c.proposals.get('01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a63'),
      // The vote reads the proposal first (a reading key may), signs, and is refused when it posts the vote.
      'proposals.approve': (c) => c.proposals.approve(proposalId, { signer: Wallet.createRandom() }),
      'proposals.reject': (c) => c.proposals.reject(proposalId, { signer: Wallet.createRandom() }),
      freeze: (c) => c.freeze(),
    };
    for (const [method, role] of Object.entries(REQUIRED_ROLE)) {
      // A list of roles: any one of them will do, so the key holds none of them.
      const needed: readonly VaultRole[] = typeof role === 'string' ? [role] : role;
      const others = await clientWith(VAULT_ROLES.filter((r) => !needed.includes(r)));
      await expect(calls[method as keyof typeof REQUIRED_ROLE](others), method).rejects.toMatchObject({ status: 403, code: 'ROLE_REQUIRED' });
    }
  });
});
