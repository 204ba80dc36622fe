import { concat, Contract, Interface, parseEther, Transaction } from 'ethers';
import { createWalletClient, http, type Hex } from 'viem';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VaultSigner } from '../../client/ethers-signer.js';
import { VaultClient } from '../../client/index.js';
import { vaultAccount } from '../../client/viem-account.js';
import type { Vault } from '../../adapters/main/create-vault.js';
import type { Principal } from '../../src/application/access/principal.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * EIP-7702 on anvil (Prague): the vault signs an authorization under the policy's `authorization` rules
 * (deny by default, the delegate in `contracts`), a type-4 transaction carrying it is mined, and the
 * wallet's code becomes the delegation designator 0xef0100 ‖ delegate; then the same through
 * wallet-vault/viem (`signAuthorization`, self-sponsored) and wallet-vault/ethers (`authorize`).
 */
const CHAIN_ID = 31337;
const delegateAbi = new Interface(loadArtifact('Delegate').abi);
const designator = (delegate: string) => concat(['0xef0100', delegate]).toLowerCase();

describe('EIP-7702 authorizations on anvil', () => {
  let anvil: Anvil;
  let s: TestServer;
  let vault: Vault;
  let vaultId: string;
  let apiKey: string;
  let principal: Principal;
  let delegates: string[];
  let refused: string;

  const http7702 = async (wallet: string, path: string, body: unknown) => {
    const res = await fetch(`${s.url}/api/v1/vaults/${vaultId}/wallets/${wallet}/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown>; code?: string; error?: string } };
  };

  async function fundedWallet(name: string): Promise<Hex> {
    const address = (await vault.createWallet.execute({ principal, name })).address as Hex;
    await (await anvil.account(0).sendTransaction({ to: address, value: parseEther('10') })).wait();
    return address;
  }

  const fees = async () => {
    const block = await anvil.provider.getBlock('latest');
    return { maxFeePerGas: (block!.baseFeePerGas! * 2n + 10n ** 9n).toString(), maxPriorityFeePerGas: (10n ** 9n).toString() };
  };

  beforeAll(async () => {
    anvil = await startAnvil();
    s = await startTestServer({ env: { VAULT_CHAINS: `devnet:${CHAIN_ID}`, VAULT_RPC_URL_DEVNET: anvil.rpcUrl } });
    vault = s.server.vault;
    vaultId = (await vault.manageVaults.create({ name: 'eip-7702' })).id;
    apiKey = (await vault.manageVaults.createApiKey(vaultId)).apiKey;
    principal = await vault.authenticate.execute(apiKey, vaultId);
    delegates = await Promise.all([0, 1, 2].map(async () => (await deploy(anvil, 'Delegate', [])).getAddress()));
    refused = await (await deploy(anvil, 'Delegate', [])).getAddress();
    await vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [
        { id: 'delegates', effect: 'allow', kinds: ['authorization'], chains: ['devnet'], contracts: delegates },
        { id: 'transactions', effect: 'allow', kinds: ['transaction'], chains: ['devnet'] },
        // Allows everything it names but not the kind: it never allows an authorization.
        { id: 'any-kind', effect: 'allow', contracts: [refused] },
      ],
    });
  });

  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  it('signs an authorization the policy allows; a sponsor’s type-4 transaction carrying it is mined and the wallet’s code becomes 0xef0100 ‖ delegate', async () => {
    const authority = (await vault.createWallet.execute({ principal, name: 'authority' })).address;
    const sponsor = await fundedWallet('sponsor');
    const nonce = await anvil.provider.getTransactionCount(authority, 'pending');
    const signed = await http7702(authority, 'sign-authorization', { chainId: CHAIN_ID, address: delegates[0], nonce });
    expect(signed.status).toBe(200);
    const { yParity, r, s: sValue, signature } = signed.body.data as { yParity: number; r: string; s: string; signature: string };
    expect(signature).toBe(`${r}${sValue.slice(2)}${(27 + yParity).toString(16)}`);

    const tx = await http7702(sponsor, 'sign-transaction', {
      type: 'eip7702',
      chainId: CHAIN_ID,
      nonce: await anvil.provider.getTransactionCount(sponsor, 'pending'),
      to: authority,
      data: delegateAbi.encodeFunctionData('ping'),
      gas: '200000',
      ...(await fees()),
      authorizationList: [{ chainId: CHAIN_ID, address: delegates[0], nonce, yParity, r, s: sValue }],
    });
    expect(tx.status).toBe(200);
    const serialized = (tx.body.data as { serialized: string }).serialized;
    expect(Transaction.from(serialized).type).toBe(4);
    const receipt = await (await anvil.provider.broadcastTransaction(serialized)).wait();
    expect(receipt?.status).toBe(1);
    expect(await anvil.provider.getCode(authority)).toBe(designator(delegates[0]!));
    // The wallet runs the delegate's code in its own storage.
    expect(await new Contract(authority, delegateAbi, anvil.provider).getFunction('pings')()).toBe(1n);
    const record = (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).find((a) => a.action === 'sign.authorization');
    expect(record?.details).toMatchObject({ chainId: String(CHAIN_ID), delegate: delegates[0], nonce: String(nonce), wallet: authority });
  });

  it('sends a type-4 transaction through the JSON-RPC endpoint: eth_sendTransaction with an authorizationList is filled (estimated with it), signed, sent and mined', async () => {
    const authority = (await vault.createWallet.execute({ principal, name: 'rpc-authority' })).address;
    const sponsor = await fundedWallet('rpc-sponsor');
    const signed = await http7702(authority, 'sign-authorization', { chainId: CHAIN_ID, address: delegates[1], nonce: 0 });
    const { yParity, r, s: sValue } = signed.body.data as { yParity: number; r: string; s: string };
    const res = await fetch(`${s.url}/api/v1/vaults/${vaultId}/rpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_sendTransaction',
        params: [{ from: sponsor, to: authority, data: delegateAbi.encodeFunctionData('ping'), authorizationList: [{ chainId: `0x${CHAIN_ID.toString(16)}`, address: delegates[1], nonce: '0x0', yParity: `0x${yParity}`, r, s: sValue }] }],
      }),
    });
    const answer = (await res.json()) as { result?: string; error?: unknown };
    expect(answer.error).toBeUndefined();
    const receipt = await anvil.provider.waitForTransaction(answer.result!);
    expect([receipt?.status, receipt?.type]).toEqual([1, 4]);
    expect(await anvil.provider.getCode(authority)).toBe(designator(delegates[1]!));
  });

  it('refuses a delegate the policy does not name (403 POLICY_DENIED, recorded), also under a rule that names the contract but not the kind; chain id 0 without anyChain', async () => {
    const authority = (await vault.createWallet.execute({ principal, name: 'refused' })).address;
    const other = await http7702(authority, 'sign-authorization', { chainId: CHAIN_ID, address: refused, nonce: 0 });
    expect([other.status, other.body.code]).toEqual([403, 'POLICY_DENIED']);
    expect(other.body.error).toContain('no rule of this vault');
    const anyChain = await http7702(authority, 'sign-authorization', { chainId: 0, address: delegates[0], nonce: 0 });
    expect([anyChain.status, anyChain.body.code]).toEqual([403, 'POLICY_DENIED']);
    const denied = (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((a) => a.action === 'sign.denied' && a.details.payload === 'authorization');
    expect(denied.length).toBe(2);
  });

  it('wallet-vault/viem: signAuthorization (self-executed: viem takes nonce + 1) and a type-4 sendTransaction the account signs itself', async () => {
    const address = await fundedWallet('viem');
    const client = new VaultClient({ baseUrl: s.url, vaultId, apiKey });
    const walletClient = createWalletClient({ account: vaultAccount({ client, address }), chain: anvilChain, transport: http(anvil.rpcUrl) });
    const authorization = await walletClient.signAuthorization({ contractAddress: delegates[1] as Hex, executor: 'self' });
    expect(authorization.nonce).toBe((await anvil.provider.getTransactionCount(address, 'pending')) + 1);
    const hash = await walletClient.sendTransaction({ authorizationList: [authorization], to: address, data: delegateAbi.encodeFunctionData('ping') as Hex });
    expect((await anvil.provider.waitForTransaction(hash))?.status).toBe(1);
    expect(await anvil.provider.getCode(address)).toBe(designator(delegates[1]!));
  });

  it('wallet-vault/ethers: authorize (populated from the provider) and a type-4 transaction through the signer', async () => {
    const address = await fundedWallet('ethers');
    const signer = new VaultSigner(new VaultClient({ baseUrl: s.url, vaultId, apiKey }), address, anvil.provider);
    // The signer sends it itself: the authorization is checked after the nonce is taken, so nonce + 1.
    const authorization = await signer.authorize({ address: delegates[2]!, nonce: (await anvil.provider.getTransactionCount(address, 'pending')) + 1 });
    expect(authorization.chainId).toBe(BigInt(CHAIN_ID));
    const response = await signer.sendTransaction({ type: 4, to: address, data: delegateAbi.encodeFunctionData('ping'), authorizationList: [authorization], gasLimit: 200_000n });
    expect((await response.wait())?.status).toBe(1);
    expect(await anvil.provider.getCode(address)).toBe(designator(delegates[2]!));
  });
});
