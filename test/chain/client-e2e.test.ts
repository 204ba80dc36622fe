import type { Contract, InterfaceAbi } from 'ethers';
import { createPublicClient, createWalletClient, http, type Abi } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VaultClient, type AbiFunction } from '../../client/index.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const UNIQ = `0x${'c1'.repeat(32)}`;
const SECRET = 'client-e2e-secret-0123456789abcdefgh';
const MNEMONIC = 'test test test test test test test test test test test junk';
const TOKEN = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const abi = loadArtifact('SignableTarget').abi as InterfaceAbi as Abi;
const mint = (abi as readonly { name?: string }[]).find((i) => i.name === 'mint') as unknown as AbiFunction;

describe('a signature obtained through wallet-vault/client is accepted by a signable contract (anvil)', () => {
  let anvil: Anvil;
  let s: TestServer;
  let vault: VaultClient;
  let target: Contract;
  let signer: string;

  beforeAll(async () => {
    [anvil, s] = await Promise.all([startAnvil(), startTestServer({ env: { VAULT_AUTH_SECRET_KEY: SECRET } })]);
    const vaultId = (await s.createVault({ name: 'client chain' })).id;
    vault = new VaultClient({ baseUrl: s.url, vaultId, apiKey: (await s.createApiKey(vaultId)).apiKey, authSecret: SECRET });
    signer = (await vault.createWallet('contract signer')).address;
    target = await deploy(anvil, 'SignableTarget', [signer, UNIQ]);
  });
  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  const signMint = (sender: string, amount: string) =>
    vault.sign({ chain: 'local', contract: String(target.target), sender, uniq: UNIQ, signer, abi: mint, args: [TOKEN, amount] });

  it('ethers: contract.mint(...args)', async () => {
    const account = anvil.account(1);
    const { submissionHash, args } = await signMint(await account.getAddress(), '1000');
    const tx = await (target.connect(account) as Contract).getFunction('mint')(...args);
    expect((await tx.wait())?.status).toBe(1);
    expect(await target.getFunction('used')(submissionHash)).toBe(true);
    expect((await vault.submit(submissionHash, tx.hash)).transactionHash).toBe(tx.hash);
  });

  it('viem: writeContract({ args })', async () => {
    const account = mnemonicToAccount(MNEMONIC, { addressIndex: 2 });
    const chain = { ...foundry, rpcUrls: { default: { http: [anvil.rpcUrl] } } };
    const wallet = createWalletClient({ account, chain, transport: http(anvil.rpcUrl) });
    const reader = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
    const { submissionHash, args } = await signMint(account.address, '2000');
    const hash = await wallet.writeContract({ address: target.target as `0x${string}`, abi, functionName: 'mint', args });
    expect((await reader.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await reader.readContract({ address: target.target as `0x${string}`, abi, functionName: 'used', args: [submissionHash] })).toBe(true);
  });
});
