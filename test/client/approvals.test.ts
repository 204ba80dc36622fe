import { Wallet } from 'ethers';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalPendingError, decisionTypedData, VaultClient, VaultError, type SignRequest, type VaultRole } from '../../client/index.js';
import { decisionTypedData as domainDecision } from '../../src/domain/signed-decisions.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

describe('the client and approvals', () => {
  let s: TestServer;
  let vaultId: string;
  let request: SignRequest;
  const clientWith = async (roles: readonly VaultRole[]) =>
    new VaultClient({ baseUrl: s.url, vaultId, apiKey: (await s.server.vault.manageVaults.createApiKey(vaultId, { roles })).apiKey, retries: 0 });

  beforeAll(async () => {
    s = await startTestServer();
    vaultId = (await s.createVault({ name: 'client approvals' })).id;
    const address = (await (await clientWith(['admin'])).createWallet('w')).address;
    request = localSignBody(address) as SignRequest;
    await s.server.vault.managePolicies.addApprovalRule(vaultId, { required: 2 });
  });
  afterAll(() => s?.stop());

  it('sign() rejects a held request with a typed ApprovalPendingError (status 202) carrying the approval', async () => {
    const signer = await clientWith(['signer']);
    const error = await signer.sign(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalPendingError);
    expect(error).toBeInstanceOf(VaultError);
    const pending = error as ApprovalPendingError;
    expect(pending.status).toBe(202);
    expect(pending.approval).toMatchObject({ status: 'pending', required: 2, approvals: 0, result: null });
    expect((await signer.getApproval(pending.approval.id)).id).toBe(pending.approval.id);
  });

  it('requestSign() answers the approval, then the Sign result once approved; approve() and listApprovals() are typed', async () => {
    const signer = await clientWith(['signer']);
    const held = await signer.requestSign(request, { idempotencyKey: 'invoice-9' });
    if (!('approval' in held)) throw new Error('expected the sign to be held');
    const [a, b] = [await clientWith(['approver']), await clientWith(['approver'])];
    expect((await a.approve(held.approval.id)).approvals).toBe(1);
    const approved = await b.approve(held.approval.id);
    expect(approved.status).toBe('approved');
    const again = await signer.requestSign(request, { idempotencyKey: 'invoice-9' });
    // The same signature; requestSign's integers typed by the ABI (bigint), the approval's result as JSON has them.
    const decimal = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    expect(decimal(again)).toBe(decimal(approved.result));
    expect(!('approval' in again) && typeof again.args[1]).toBe('bigint');
    expect((await a.listApprovals({ status: 'approved' })).page.map((x) => x.id)).toContain(held.approval.id);
    await expect(signer.approve(held.approval.id)).rejects.toMatchObject({ status: 403, code: 'ROLE_REQUIRED' });
  });

  /** An approver key with `wallet`'s address as its credential, and its client. */
  const approverWith = async (wallet: { address: string }) =>
    new VaultClient({ baseUrl: s.url, vaultId, apiKey: (await s.server.vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], approverAddress: wallet.address })).apiKey, retries: 0 });

  it('approve(id, { signer }) signs the Decision with an ethers Signer, a viem account or a viem wallet client; without a signer such a key is refused', async () => {
    const signer = await clientWith(['signer']);
    const held = await signer.requestSign(request, { idempotencyKey: 'invoice-signed' });
    if (!('approval' in held)) throw new Error('expected the sign to be held');
    const id = held.approval.id;
    const ethersWallet = Wallet.createRandom();
    const viemAccount = privateKeyToAccount(Wallet.createRandom().privateKey as `0x${string}`);
    const [a, b] = [await approverWith(ethersWallet), await approverWith(viemAccount)];
    await expect(a.approve(id)).rejects.toMatchObject({ status: 403, code: 'APPROVAL_SIGNATURE_INVALID' });
    // Another address's signature: refused the same way.
    await expect(a.approve(id, { signer: viemAccount })).rejects.toMatchObject({ status: 403, code: 'APPROVAL_SIGNATURE_INVALID' });
    expect((await a.approve(id, { signer: ethersWallet })).approvals).toBe(1);
    const approved = await b.approve(id, { signer: viemAccount });
    expect(approved.status).toBe('approved');
    expect(approved.votes.map((v) => v.signature)).toEqual([expect.stringMatching(/^0x[0-9a-f]{130}$/), expect.stringMatching(/^0x[0-9a-f]{130}$/)]);

    // A viem wallet client (its account hoisted) signs a reject; the transport is never asked.
    const other = await signer.requestSign(request, { idempotencyKey: 'invoice-signed-2' });
    if (!('approval' in other)) throw new Error('expected the sign to be held');
    const walletClient = createWalletClient({ account: viemAccount, transport: http('http://127.0.0.1:9') });
    expect((await b.reject(other.approval.id, { signer: walletClient })).status).toBe('rejected');
  });

  it('decisionTypedData is the vault\'s own definition, for external wallets (eth_signTypedData_v4)', () => {
    const typed = decisionTypedData(vaultId, '0190a3b0-0000-7000-8000-0000000000aa', 'ab'.repeat(32), 'reject');
    expect(typed).toEqual(domainDecision(vaultId, '0190a3b0-0000-7000-8000-0000000000aa', `0x${'ab'.repeat(32)}`, 'reject'));
    expect(typed.message.request).toBe(`0x${'ab'.repeat(32)}`);
  });

  it('reject() ends a request; asking again with its key is a VaultError APPROVAL_REJECTED', async () => {
    const signer = await clientWith(['signer']);
    const held = await signer.requestSign(request, { idempotencyKey: 'invoice-10' });
    if (!('approval' in held)) throw new Error('expected the sign to be held');
    expect((await (await clientWith(['approver'])).reject(held.approval.id)).status).toBe('rejected');
    await expect(signer.requestSign(request, { idempotencyKey: 'invoice-10' })).rejects.toMatchObject({ status: 403, code: 'APPROVAL_REJECTED' });
  });

  it('signMessage() and signTransaction() reject a held request with ApprovalPendingError; requestSignMessage() answers the approval, then the signature', async () => {
    const held = (await s.createVault({ name: 'client standard holds' })).id;
    const withRoles = async (roles: readonly VaultRole[]) =>
      new VaultClient({ baseUrl: s.url, vaultId: held, apiKey: (await s.server.vault.manageVaults.createApiKey(held, { roles })).apiKey, retries: 0 });
    const wallet = (await (await withRoles(['admin'])).createWallet('w')).address;
    await s.server.vault.managePolicies.apply(held, {
      version: 2,
      rules: [
        { id: 'all', effect: 'allow', kinds: ['message', 'transaction'] },
        { id: 'four-eyes', effect: { hold: { required: 2 } }, kinds: ['message', 'transaction'] },
      ],
      limits: [],
    });
    const signer = await withRoles(['signer']);
    const tx = { type: 'eip1559', chainId: 1, nonce: 0, gas: 21000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, to: wallet, value: 0n } as const;
    const error = await signer.signTransaction(wallet, tx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalPendingError);
    expect((error as ApprovalPendingError).message).toMatch(/^signTransaction: held for approval /);
    expect((error as ApprovalPendingError).approval).toMatchObject({ kind: 'transaction', status: 'pending', request: { wallet, transaction: { gas: '21000', value: '0' } } });
    await expect(signer.signMessage(wallet, 'hi')).rejects.toBeInstanceOf(ApprovalPendingError);

    const asked = await signer.requestSignMessage(wallet, 'hello', { idempotencyKey: 'login-1' });
    if (!('approval' in asked)) throw new Error('expected the message to be held');
    const [a, b] = [await withRoles(['approver']), await withRoles(['approver'])];
    await a.approve(asked.approval.id);
    const approved = await b.approve(asked.approval.id);
    expect(approved).toMatchObject({ kind: 'message', status: 'approved', result: { signature: expect.stringMatching(/^0x[0-9a-f]{130}$/) } });
    expect(await signer.requestSignMessage(wallet, 'hello', { idempotencyKey: 'login-1' })).toEqual(approved.result);
  });
});
