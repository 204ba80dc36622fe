import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Signature, parseEther } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFileKeyStore } from '../../adapters/keystore/local-file/index.js';
import { createVault, type Vault } from '../../adapters/main/create-vault.js';
import type { SignPolicy } from '../../src/domain/sign-policy.js';
import type { Principal } from '../../src/application/access/principal.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { signAndSend as sendSigned } from '../support/send-signed.js';
import { inMemoryPersistence } from '../support/in-memory.persistence.js';
import { TEST_MASTER_KEY } from '../support/local-key.js';
import { asJson, permit } from '../support/typed-data-fixtures.js';
import { signedNow } from '../support/signed.js';

/**
 * A vault wallet is a full signer on a real EVM: funded on anvil, the transactions it signs through the
 * in-process API (vault.signTransaction) are sent with eth_sendRawTransaction and mined, and a permit it
 * signs (vault.signTypedData) is accepted by an EIP-2612 token.
 */
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const CHAIN_ID = 31337;

describe('standard signing on anvil', () => {
  let anvil: Anvil;
  let dir: string;
  let vault: Vault;
  let principal: Principal;
  let address: string;

  beforeAll(async () => {
    anvil = await startAnvil();
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-standard-anvil-'));
    vault = await createVault({ persistence: inMemoryPersistence(), keyStores: [localFileKeyStore({ keysDir: dir, masterKeyHex: TEST_MASTER_KEY })], jobs: false });
    const created = await vault.manageVaults.create({ name: 'anvil' });
    principal = await vault.authenticate.execute((await vault.manageVaults.createApiKey(created.id)).apiKey, created.id);
    address = (await vault.createWallet.execute({ principal, name: 'payer' })).address;
    await vault.managePolicies.set(created.id, {
      txChainIds: [String(CHAIN_ID)],
      txTo: [RECIPIENT],
      txMaxValue: parseEther('1').toString(),
      txContractCreation: true,
    });
    await (await anvil.account(0).sendTransaction({ to: address, value: parseEther('10') })).wait();
  });

  afterAll(async () => {
    await vault?.close();
    await anvil?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Signs `transaction` with the vault wallet, sends it raw and waits for its receipt. */
  const signAndSend = (transaction: Record<string, unknown>) =>
    sendSigned(anvil, address, (nonce) => signedNow(vault.signTransaction.execute({ principal, address, transaction: { chainId: CHAIN_ID, nonce, ...transaction } })));

  it('sends an eip1559 transfer the vault signed; it is mined', async () => {
    const before = await anvil.provider.getBalance(RECIPIENT);
    const block = await anvil.provider.getBlock('latest');
    const receipt = await signAndSend({
      type: 'eip1559',
      to: RECIPIENT,
      value: parseEther('0.5').toString(),
      gas: '21000',
      maxFeePerGas: (block!.baseFeePerGas! * 2n + 10n ** 9n).toString(),
      maxPriorityFeePerGas: (10n ** 9n).toString(),
    });
    expect(receipt.status).toBe(1);
    expect(receipt.type).toBe(2);
    expect((await anvil.provider.getBalance(RECIPIENT)) - before).toBe(parseEther('0.5'));
  });

  it('sends a legacy (EIP-155) transfer the vault signed; it is mined', async () => {
    const gasPrice = BigInt(await anvil.provider.send('eth_gasPrice', []));
    const receipt = await signAndSend({ type: 'legacy', to: RECIPIENT.toLowerCase(), value: '1', gas: 21000, gasPrice: `0x${(gasPrice * 2n).toString(16)}` });
    expect(receipt.status).toBe(1);
    expect(receipt.type).toBe(0);
  });

  it('deploys a contract with a creation transaction (allowed by its switch), then a permit the wallet signs is accepted by it', async () => {
    const { bytecode } = loadArtifact('PermitToken');
    const token = await deploy(anvil, 'PermitToken', ['Vault Permit']);
    const tokenAddress = await token.getAddress();
    // The token's constructor takes its name: the vault's own creation transaction deploys a second copy.
    const args = token.interface.encodeDeploy(['Vault Permit']).slice(2);
    const block = await anvil.provider.getBlock('latest');
    const receipt = await signAndSend({
      type: 'eip1559',
      data: `${bytecode}${args}`,
      gas: 2_000_000,
      maxFeePerGas: (block!.baseFeePerGas! * 2n + 1n).toString(),
      maxPriorityFeePerGas: '1',
    });
    expect(receipt.status).toBe(1);
    expect(receipt.contractAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const spender = await anvil.account(1).getAddress();
    const typedData = permit(
      { name: 'Vault Permit', version: '1', chainId: CHAIN_ID, verifyingContract: tokenAddress as `0x${string}` },
      { owner: address, spender, value: 1234n, nonce: 0n, deadline: 2n ** 64n },
    );
    // Refused until the vault's policy names the token's domain, then signed.
    await expect(vault.signTypedData.execute({ principal, address, typedData: asJson(typedData) })).rejects.toMatchObject({ code: 'POLICY_DENIED' });
    const policy = (await vault.managePolicies.show(principal.vaultId)) as SignPolicy;
    await vault.managePolicies.set(principal.vaultId, {
      txChainIds: policy!.transactions!.chainIds,
      txTo: policy!.transactions!.to,
      txMaxValue: policy!.transactions!.maxValue,
      txContractCreation: true,
      typedDataContracts: [`${CHAIN_ID}:${tokenAddress}`],
      typedDataNames: [`${CHAIN_ID}:${tokenAddress}=Vault Permit`],
    });
    const { signature } = await signedNow(vault.signTypedData.execute({ principal, address, typedData: asJson(typedData) }));
    const { v, r, s } = Signature.from(signature);
    // Anyone may submit a permit: the spender sends it, and the token checks the vault wallet signed it.
    const tx = await (token.connect(anvil.account(1)) as typeof token).getFunction('permit')(address, spender, 1234n, 2n ** 64n, v, r, s);
    expect((await tx.wait())?.status).toBe(1);
    expect(await token.getFunction('allowance')(address, spender)).toBe(1234n);
    expect(await token.getFunction('nonces')(address)).toBe(1n);
  });

  it('signs nothing the policy does not allow: a recipient not listed is refused before the chain sees anything', async () => {
    const nonce = await anvil.provider.getTransactionCount(address, 'pending');
    await expect(
      vault.signTransaction.execute({ principal, address, transaction: { chainId: CHAIN_ID, nonce, to: await anvil.account(3).getAddress(), gas: 21000, gasPrice: 10n ** 9n } }),
    ).rejects.toMatchObject({ code: 'POLICY_DENIED' });
    expect(await anvil.provider.getTransactionCount(address, 'pending')).toBe(nonce);
  });

  it('refuses the fee drain (issue 34, finding 1): value 0 to an allowed recipient with the whole balance as gas is never signed, the balance stays', async () => {
    const balance = await anvil.provider.getBalance(address);
    const nonce = await anvil.provider.getTransactionCount(address, 'pending');
    await expect(
      vault.signTransaction.execute({ principal, address, transaction: { type: 'legacy', chainId: CHAIN_ID, nonce, to: RECIPIENT, value: 0, gas: 21000, gasPrice: balance / 21000n } }),
    ).rejects.toMatchObject({ code: 'POLICY_DENIED', message: `policy: no rule of this vault's policy allows this transaction (rule transactions: fee ${(balance / 21000n) * 21000n} wei (gas × fee per gas) is over its maxFee 10000000000000000 (the default for a rule without one))` });
    expect(await anvil.provider.getTransactionCount(address, 'pending')).toBe(nonce);
    expect(await anvil.provider.getBalance(address)).toBe(balance);
  });
});
