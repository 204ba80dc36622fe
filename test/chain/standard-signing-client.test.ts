import { parseEther } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VaultClient, VaultError } from '../../client/index.js';
import { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import { startAnvil, type Anvil } from '../support/anvil.js';
import { signAndSend as sendSigned } from '../support/send-signed.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * A vault wallet is a full signer over HTTP: funded on anvil, the transactions it signs through the
 * client (`wallet-vault/client` → POST …/sign-transaction on the real server, with X-Vault-Auth-Signature)
 * are sent with eth_sendRawTransaction and mined. test/chain/standard-signing.test.ts is the in-process
 * version.
 */
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const CHAIN_ID = 31337;
const SECRET = 'anvil-client-secret-0123456789abcdef';

describe('standard signing through the client, mined on anvil', () => {
  let anvil: Anvil;
  let s: TestServer;
  let vault: VaultClient;
  let address: string;

  beforeAll(async () => {
    anvil = await startAnvil();
    s = await startTestServer({ env: { VAULT_AUTH_SECRET_KEY: SECRET } });
    const vaultId = (await s.createVault({ name: 'anvil-client' })).id;
    vault = new VaultClient({ baseUrl: s.url, vaultId, apiKey: (await s.createApiKey(vaultId)).apiKey, authSecret: SECRET });
    address = (await vault.createWallet('payer')).address;
    await s.server.container.get(ManagePolicies).set(vaultId, { txChainIds: [String(CHAIN_ID)], txTo: [RECIPIENT], txMaxValue: parseEther('1').toString() });
    await (await anvil.account(0).sendTransaction({ to: address, value: parseEther('10') })).wait();
  });

  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  /** Signs `transaction` through the client, sends it raw and waits for its receipt. */
  const signAndSend = (transaction: Record<string, unknown>) =>
    sendSigned(anvil, address, (nonce) => vault.signTransaction(address, { chainId: CHAIN_ID, nonce, ...transaction } as Parameters<VaultClient['signTransaction']>[1]));

  it('sends an eip1559 transfer signed through the client; it is mined', async () => {
    const before = await anvil.provider.getBalance(RECIPIENT);
    const block = await anvil.provider.getBlock('latest');
    const receipt = await signAndSend({
      type: 'eip1559',
      to: RECIPIENT,
      value: parseEther('0.25'),
      gas: 21_000n,
      maxFeePerGas: block!.baseFeePerGas! * 2n + 10n ** 9n,
      maxPriorityFeePerGas: 10n ** 9n,
    });
    expect([receipt.status, receipt.type]).toEqual([1, 2]);
    expect((await anvil.provider.getBalance(RECIPIENT)) - before).toBe(parseEther('0.25'));
  });

  it('sends a legacy (EIP-155) transfer signed through the client; it is mined', async () => {
    const gasPrice = BigInt(await anvil.provider.send('eth_gasPrice', []));
    const receipt = await signAndSend({ type: 'legacy', to: RECIPIENT, value: '7', gas: 21000, gasPrice: `0x${(gasPrice * 2n).toString(16)}` });
    expect([receipt.status, receipt.type]).toEqual([1, 0]);
  });

  it('gets nothing signed the policy does not allow: the chain sees no transaction', async () => {
    const nonce = await anvil.provider.getTransactionCount(address, 'pending');
    const refused = await vault
      .signTransaction(address, { chainId: CHAIN_ID, nonce, to: await anvil.account(3).getAddress(), gas: 21000, gasPrice: 10n ** 9n })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(VaultError);
    expect(refused).toMatchObject({ status: 403, code: 'POLICY_DENIED' });
    expect(await anvil.provider.getTransactionCount(address, 'pending')).toBe(nonce);
  });
});
