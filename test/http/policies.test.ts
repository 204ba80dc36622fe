import { id, Interface } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../lib/index.js';
import type { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import { POLICY_CACHE_TTL_MS } from '../../src/application/signing/policy-cache.js';
import type { PolicyRepository } from '../../src/ports/policy-repository.port.js';
import { client } from '../support/http-client.js';
import { describeEachBackend, type Target } from '../support/backends.js';

const SIG = { name: 'sig', type: 'tuple', components: ['nonce', 'r', 's'].map((n) => ({ name: n, type: 'bytes32' })).concat({ name: 'v', type: 'uint8' }) };
const MINT = { type: 'function', name: 'mint', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }, SIG] };
// Computed by ethers, independently of the code under test.
const MINT_SELECTOR = id('mint(address,uint256,(bytes32,bytes32,bytes32,uint8))').slice(0, 10);
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const SENDER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const OTHER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describeEachBackend('sign policies over HTTP', (backend) => {
  let s: Target;
  let api: ReturnType<typeof client>;
  let base: string;
  let vaultId: string;
  let signer: string;
  let policies: ManagePolicies;

  const body = (extra: Record<string, unknown> = {}) => ({
    chain: 'local',
    contract: CONTRACT.toLowerCase(),
    sender: SENDER.toLowerCase(),
    uniq: `0x${'ab'.repeat(32)}`,
    signer,
    abi: MINT,
    args: [OTHER, '1000'],
    ...extra,
  });
  const sign = (extra?: Record<string, unknown>) => api.post(`${base}/sign`, body(extra));

  beforeAll(async () => {
    s = await backend.start();
    ({ vaultId, api, base } = await s.vaultWithKey('policed'));
    signer = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address;
    policies = s.vault.managePolicies;
  });
  afterAll(async () => {
    await s?.close();
  });

  it('an allow-list naming the function lets it sign', async () => {
    await policies.set(vaultId, { selectors: [MINT_SELECTOR] });
    expect((await sign()).status).toBe(200);
    await policies.clear(vaultId);
  });

  // The lists of `policies set` are the allow rule `calls` of the migrated document (docs/policy.md).
  const noCall = "policy: no rule of this vault's policy allows this call";
  it.each<[string, Parameters<ManagePolicies['set']>[1], string]>([
    ['chain', { chains: ['ethereum', 'sepolia'] }, `${noCall} (rule calls: chain local is not in its chains)`],
    ['contract', { contracts: [OTHER] }, `${noCall} (rule calls: contract ${CONTRACT} is not in its contracts)`],
    ['selector', { selectors: ['0xa9059cbb'] }, `${noCall} (rule calls: selector ${MINT_SELECTOR} is not in its selectors)`],
    ['sender', { senders: [OTHER] }, `${noCall} (rule calls: sender ${SENDER} is not in its senders)`],
  ])('a sign outside the %s allow-list is 403 naming the rule', async (_rule, policy, message) => {
    await policies.set(vaultId, policy);
    const r = await sign();
    expect(r.status).toBe(403);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.body).toEqual({ success: false, error: message, code: 'POLICY_DENIED' });
    await policies.clear(vaultId);
    expect((await sign()).status).toBe(200);
  });

  it('a sign inside every list passes, and a bad request is still 400 before the policy', async () => {
    // On chain local the contract list binds only with the contract's uniq pinned (test/chain/policy-uniq-pin.test.ts).
    const contractUniqs = [`${CONTRACT}=0x${'ab'.repeat(32)}`];
    await policies.set(vaultId, { chains: ['local'], contracts: [CONTRACT], selectors: [MINT_SELECTOR], senders: [SENDER], contractUniqs });
    const ok = await sign();
    expect(ok.status).toBe(200);
    expect(ok.body.data.submissionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await sign({ args: [OTHER, 'abc'] })).status).toBe(400);
    await policies.clear(vaultId);
  });

  it('policies are per vault', async () => {
    const { vaultId: otherVault, api: otherApi } = await s.vaultWithKey('free');
    const otherSigner = (await otherApi.post(`/api/v1/vaults/${otherVault}/wallets`, { name: 's' })).body.data.address;
    await policies.set(vaultId, { chains: ['ethereum'] });
    expect((await sign()).status).toBe(403);
    expect((await otherApi.post(`/api/v1/vaults/${otherVault}/sign`, body({ signer: otherSigner }))).status).toBe(200);
    await policies.clear(vaultId);
  });

  it('a contract creation whose init code starts with an allowed function and its arguments is judged as a creation: refused, by sign-transaction and the dry run alike', async () => {
    const { vaultId: own, api: ownApi, base: ownBase } = await s.vaultWithKey('creations');
    const wallet: string = (await ownApi.post(`${ownBase}/wallets`, { name: 'deployer' })).body.data.address;
    await policies.apply(own, {
      version: 2,
      rules: [{ id: 'small-transfers', effect: 'allow', kinds: ['transaction'], function: 'transfer(address to, uint256 amount)', where: [{ arg: 'amount', lte: '1000' }] }],
    });
    const transfer = new Interface(['function transfer(address to, uint256 amount)']).encodeFunctionData('transfer', [OTHER, 1n]);
    // transfer(OTHER, 1)'s calldata, then a constructor's bytecode: a creation's data is init code, whatever its first bytes.
    const creation = { type: 'eip1559', chainId: 1, nonce: 0, value: '0', data: `${transfer}6080604052348015600f57600080fd5b50`, gas: 100000, maxFeePerGas: '0', maxPriorityFeePerGas: '0' };
    const refusal = "policy: no rule of this vault's policy allows this transaction (rule small-transfers: it names a function, and a contract creation calls none (its data is init code))";
    const signed = await ownApi.post(`${ownBase}/wallets/${wallet}/sign-transaction`, creation);
    expect([signed.status, signed.body]).toEqual([403, { success: false, error: refusal, code: 'POLICY_DENIED' }]);
    const dry = await ownApi.post(`${ownBase}/policy/evaluate`, { kind: 'transaction', wallet, request: creation });
    expect(dry.body.data).toEqual({ decision: 'deny', rule: null, message: refusal });
    // The call itself is what the rule allows.
    const call = await ownApi.post(`${ownBase}/wallets/${wallet}/sign-transaction`, { ...creation, to: CONTRACT, data: transfer });
    expect(call.status).toBe(200);
  });

  it('a change made outside this process applies within the cache TTL', async () => {
    const repository = s.vault.container.get<PolicyRepository>(TOKENS.POLICY_REPOSITORY);
    expect((await sign()).status).toBe(200); // cached: no policy
    await repository.save(vaultId, { chains: ['ethereum'] }, s.clock.now());
    expect((await sign()).status).toBe(200);
    s.clock.advance(POLICY_CACHE_TTL_MS);
    expect((await sign()).status).toBe(403);
    await policies.clear(vaultId);
  });
});
