import { Contract, Interface, parseEther, Transaction } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../adapters/main/create-vault.js';
import type { Principal } from '../../src/application/access/principal.js';
import { freePort } from '../support/cli.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { signableAbiItem } from '../support/signable-chain.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Simulation before signing (decisions.md, "Knowing what is signed"), on anvil behind the real server:
 * a transaction that would revert is 422 SIMULATION_REVERTED with its decoded reason and nothing is
 * signed; one that would not is signed and mined; a rule's `simulate: false` signs without asking the
 * chain; a rule's maxTokenOutflow is read from eth_simulateV1's balance changes; an RPC that cannot
 * answer refuses (502). Counted in /metrics by outcome.
 */
const CHAIN_ID = 31337;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const UNIQ = `0x${'5e'.repeat(32)}`;

describe('simulation before signing, on anvil', () => {
  let anvil: Anvil;
  let s: TestServer;
  let vault: Vault;
  let vaultId: string;
  let apiKey: string;
  let principal: Principal;
  let wallet: string;
  let target: string;
  let unsimulated: string;
  let signable: string;
  const abi = new Interface(loadArtifact('SimulationTarget').abi);

  const post = async (body: unknown) => {
    const res = await fetch(`${s.url}/api/v1/vaults/${vaultId}/wallets/${wallet}/sign-transaction`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data?: { serialized: string }; code?: string; error?: string } };
  };

  /** A filled eip1559 transaction from the wallet at its next nonce. */
  const tx = async (to: string, data: string, chainId = CHAIN_ID) => {
    const block = await anvil.provider.getBlock('latest');
    return {
      type: 'eip1559',
      chainId,
      nonce: await anvil.provider.getTransactionCount(wallet, 'pending'),
      to,
      value: '0',
      data,
      gas: '200000',
      maxFeePerGas: (block!.baseFeePerGas! * 2n + 10n ** 9n).toString(),
      maxPriorityFeePerGas: (10n ** 9n).toString(),
    };
  };

  const signs = async () => (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'sign.transaction').length;

  beforeAll(async () => {
    anvil = await startAnvil();
    const closed = await freePort();
    s = await startTestServer({
      env: { VAULT_CHAINS: `devnet:${CHAIN_ID},deadnet:31338`, VAULT_RPC_URL_DEVNET: anvil.rpcUrl, VAULT_RPC_URL_DEADNET: `http://127.0.0.1:${closed}`, VAULT_OUTBOUND_TIMEOUT_MS: '2000' },
    });
    vault = s.server.vault;
    vaultId = (await vault.manageVaults.create({ name: 'simulation' })).id;
    apiKey = (await vault.manageVaults.createApiKey(vaultId)).apiKey;
    principal = await vault.authenticate.execute(apiKey, vaultId);
    wallet = (await vault.createWallet.execute({ principal, name: 'simulated' })).address;
    target = await (await deploy(anvil, 'SimulationTarget', [])).getAddress();
    signable = await (await deploy(anvil, 'SignableTarget', [wallet, UNIQ])).getAddress();
    unsimulated = await (await deploy(anvil, 'SimulationTarget', [])).getAddress();
    await vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [
        { id: 'target', effect: 'allow', kinds: ['transaction'], chains: ['devnet', 'deadnet'], contracts: [target] },
        { id: 'unsimulated', effect: 'allow', kinds: ['transaction'], contracts: [unsimulated], simulate: false },
        { id: 'bounded', effect: 'allow', kinds: ['transaction'], contracts: [RECIPIENT], maxOutflow: parseEther('1').toString() },
        { id: 'held', effect: { hold: { required: 1 } }, kinds: ['transaction'], contracts: [target], function: 'guarded()' },
        { id: 'calls', effect: 'allow', kinds: ['call'], contracts: [signable] },
      ],
      uniqs: { [signable]: UNIQ },
    });
    await (await anvil.account(0).sendTransaction({ to: wallet, value: parseEther('10') })).wait();
  });

  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  it('refuses a transaction that reverts (422, Error(string) decoded) before signing, and signs one that does not: it is mined', async () => {
    const before = await signs();
    const refused = await post(await tx(target, abi.encodeFunctionData('fail', ['not today'])));
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('SIMULATION_REVERTED');
    expect(refused.body.error).toContain('Error("not today")');
    expect(refused.body.error).toContain(wallet);
    expect(await signs()).toBe(before);

    const ok = await post(await tx(target, abi.encodeFunctionData('ok')));
    expect(ok.status).toBe(200);
    const receipt = await (await anvil.provider.broadcastTransaction(ok.body.data!.serialized)).wait();
    expect(receipt?.status).toBe(1);
    expect(await signs()).toBe(before + 1);
  });

  it('decodes a panic with its meaning and a custom error by its selector', async () => {
    const panic = await post(await tx(target, abi.encodeFunctionData('overflow', [255])));
    expect([panic.status, panic.body.code]).toEqual([422, 'SIMULATION_REVERTED']);
    expect(panic.body.error).toContain('Panic(0x11: arithmetic overflow or underflow)');
    const custom = await post(await tx(target, abi.encodeFunctionData('custom')));
    expect(custom.status).toBe(422);
    expect(custom.body.error).toContain(`custom error ${abi.getError('NotAllowed')!.selector}`);
  });

  it('signs without simulating when the deciding rule says simulate: false (the reverting transaction is signed, and reverts on chain)', async () => {
    const signed = await post(await tx(unsimulated, abi.encodeFunctionData('fail', ['signed anyway'])));
    expect(signed.status).toBe(200);
    expect(Transaction.from(signed.body.data!.serialized).to).toBe(unsimulated);
  });

  it('refuses over a rule’s maxOutflow, read from eth_simulateV1’s traced transfers; within it, signs', async () => {
    const over = await post({ ...(await tx(RECIPIENT, '0x')), gas: '21000', value: parseEther('2').toString() });
    expect(over.status).toBe(403);
    expect(over.body.code).toBe('POLICY_DENIED');
    expect(over.body.error).toContain(`moves ${parseEther('2')} wei out of the wallet, over the rule's maxOutflow ${parseEther('1')}`);
    const within = await post({ ...(await tx(RECIPIENT, '0x')), gas: '21000', value: parseEther('0.5').toString() });
    expect(within.status).toBe(200);
  });

  it('answers a reverting eth_sendTransaction on the JSON-RPC endpoint with data.code SIMULATION_REVERTED inside the 200, nothing sent', async () => {
    const nonce = await anvil.provider.getTransactionCount(wallet, 'pending');
    const res = await fetch(`${s.url}/api/v1/vaults/${vaultId}/rpc?chain=devnet`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendTransaction', params: [{ from: wallet, to: target, data: abi.encodeFunctionData('fail', ['via rpc']), gas: '0x30d40' }] }),
    });
    const body = (await res.json()) as { error?: { code: number; message: string; data?: { code?: string } } };
    expect(res.status).toBe(200);
    expect(body.error?.data?.code).toBe('SIMULATION_REVERTED');
    expect(body.error?.message).toContain('Error("via rpc")');
    expect(await anvil.provider.getTransactionCount(wallet, 'pending')).toBe(nonce);
  });

  it('simulates a held transaction again at its release: the chain changed while it waited (422, still pending), then changed back (signed)', async () => {
    const approver = (await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'] })).apiKey;
    const approve = async (id: string) => {
      const res = await fetch(`${s.url}/api/v1/vaults/${vaultId}/approvals/${id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${approver}` } });
      return { status: res.status, body: (await res.json()) as { code?: string; error?: string; data?: { status: string } } };
    };
    const held = await post(await tx(target, abi.encodeFunctionData('guarded')));
    expect(held.status).toBe(202);
    const { id, simulation } = (held.body as unknown as { data: { approval: { id: string; simulation: unknown } } }).data.approval;
    // Its approvers see what the simulation found when it was held (it did not revert, or it would not be held).
    // anvil offers eth_simulateV1: the wallet's balance changes are read in the same one round trip.
    expect(simulation).toEqual({ chain: 'devnet', method: 'eth_simulateV1', nativeOutflow: '0', tokenOutflow: {} });
    expect(JSON.parse((await vault.getApproval.execute(vaultId, id)).simulation!)).toEqual(simulation);
    const setClosed = async (closed: boolean) => {
      const contract = new Contract(target, loadArtifact('SimulationTarget').abi, anvil.account(1));
      await (await contract.getFunction('setClosed')(closed)).wait();
    };
    await setClosed(true);
    const refused = await approve(id);
    expect([refused.status, refused.body.code]).toEqual([422, 'SIMULATION_REVERTED']);
    expect(refused.body.error).toContain('Error("closed")');
    expect((await vault.getApproval.execute(vaultId, id)).status).toBe('pending');
    await setClosed(false);
    const released = await approve(id);
    expect(released.status).toBe(200);
    expect(released.body.data?.status).toBe('approved');
  });

  it('runs a Sign call asking simulate: true with its signature in place: one that reverts is 422 and no signature is issued; one that does not is answered and mined', async () => {
    const sender = await anvil.account(1).getAddress();
    const sign = async (amount: number, chain = 'devnet') => {
      const res = await fetch(`${s.url}/api/v1/vaults/${vaultId}/sign`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ chain, contract: signable, sender, abi: signableAbiItem('bounded'), args: [amount], simulate: true, ...(chain === 'local' ? { uniq: UNIQ, signer: wallet } : {}) }),
      });
      return { status: res.status, body: (await res.json()) as { data?: { args: unknown[] }; code?: string; error?: string } };
    };
    const issued = async () => (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'signature.issued').length;
    const before = await issued();
    const refused = await sign(50);
    expect([refused.status, refused.body.code]).toEqual([422, 'SIMULATION_REVERTED']);
    expect(refused.body.error).toContain(`simulation: the call reverts on devnet (eth_call from ${sender} at the pending block): Error("too much")`);
    expect(await issued()).toBe(before);
    const ok = await sign(5);
    expect(ok.status).toBe(200);
    const contract = new Contract(signable, loadArtifact('SignableTarget').abi, anvil.account(1));
    expect((await (await contract.getFunction('bounded')(...ok.body.data!.args)).wait())?.status).toBe(1);
    expect(await issued()).toBe(before + 1);
    const local = await sign(5, 'local');
    expect([local.status, local.body.error]).toEqual([400, 'simulate: chain local has no RPC configured to run the call on']);
  });

  it('fails closed when the chain RPC cannot answer: 502 naming the RPC, nothing signed; /metrics counts each outcome', async () => {
    const before = await signs();
    const failed = await post(await tx(target, abi.encodeFunctionData('ok'), 31338));
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('CHAIN_UNAVAILABLE');
    expect(failed.body.error).toContain('chain deadnet: RPC');
    expect(await signs()).toBe(before);
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    for (const outcome of ['ok', 'reverted', 'failed']) expect(metrics).toMatch(new RegExp(`wallet_vault_simulations_total\\{outcome="${outcome}"\\} [1-9]`));
  });
});
