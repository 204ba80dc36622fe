import type { Contract, InterfaceAbi } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { client } from '../support/http-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const UNIQ = `0x${'a1'.repeat(32)}`;
const MINT = (loadArtifact('SignableTarget').abi as InterfaceAbi as { name?: string }[]).find((i) => i.name === 'mint')!;
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/**
 * An operator adds arbitrum (42161, its RPC an anvil started with that id), base (8453, its RPC the
 * same anvil, so the chain id check must refuse it) and optimism (10, no RPC).
 */
describe('chains added with VAULT_CHAINS', () => {
  let anvil: Anvil;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let vaultId: string;
  let signer: string;
  let target: Contract;
  let sender: string;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 42161 });
    s = await startTestServer({
      env: { VAULT_CHAINS: 'arbitrum:42161,base:8453,optimism:10', VAULT_RPC_URL_ARBITRUM: anvil.rpcUrl, VAULT_RPC_URL_BASE: anvil.rpcUrl },
    });
    vaultId = (await s.createVault({ name: 'l2' })).id;
    api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    signer = (await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'arbitrum signer' })).body.data.address;
    target = await deploy(anvil, 'SignableTarget', [signer, UNIQ]);
    sender = await anvil.account(1).getAddress();
  });
  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  const sign = (chain: string, extra: Record<string, unknown> = {}) =>
    api.post(`/api/v1/vaults/${vaultId}/sign`, { chain, contract: target.target, sender, abi: MINT, args: [TO, 42], ...extra });

  it('an added chain with an RPC: uniq and signer come from the contract, and the chain accepts the signature', async () => {
    const r = await sign('arbitrum');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const tx = await (target.connect(anvil.account(1)) as Contract).getFunction('mint')(...r.body.data.args);
    expect((await tx.wait())?.status).toBe(1);
  });

  it('an RPC that reports another chain id is refused, naming both ids', async () => {
    const r = await sign('base');
    expect(r.status).toBe(502);
    expect(r.body.error).toBe('chain base: RPC reports chain id 42161, expected 8453');
  });

  it('an added chain without an RPC takes uniq and signer from the request', async () => {
    const without = await sign('optimism');
    expect(without.status).toBe(400);
    expect(without.body.error).toBe('uniq: is required for chain optimism (no RPC configured)');
    expect((await sign('optimism', { uniq: UNIQ, signer })).status).toBe(200);
  });

  it('names outside the interface and VAULT_CHAINS are refused, listing the accepted ones', async () => {
    const r = await sign('zksync');
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('chain: must be one of ethereum, sepolia, bsc, bsc-testnet, polygon, amoy, avalanche, fuji, local, arbitrum, base, optimism');
  });

  it('a sign policy may name an added chain, and holds requests to it', async () => {
    const policies = s.server.container.get(ManagePolicies);
    await expect(policies.set(vaultId, { chains: ['zksync'] })).rejects.toThrow(/chains: "zksync" is not one of .*optimism/);
    await policies.set(vaultId, { chains: ['optimism'] });
    try {
      expect((await sign('arbitrum')).status).toBe(403);
      expect((await sign('optimism', { uniq: UNIQ, signer })).status).toBe(200);
    } finally {
      await policies.clear(vaultId);
    }
  });
});
