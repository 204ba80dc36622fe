import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contract, InterfaceAbi } from 'ethers';
import { ListAuditRecords } from '../../src/application/audit/list-audit-records.use-case.js';
import { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import type { AuditRecord } from '../../src/ports/audit-log.port.js';
import { client } from '../support/http-client.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const UNIQ_1 = `0x${'c1'.repeat(32)}`;
const UNIQ_2 = `0x${'c2'.repeat(32)}`;
const MINT = (loadArtifact('SignableTarget').abi as InterfaceAbi as { name?: string }[]).find((i) => i.name === 'mint')!;
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/**
 * The digest a vault signs binds uniq, not the contract address: on chain local (no RPC) uniq comes from
 * the request, so a policy naming C1 bound nothing until C1's uniq was pinned with it.
 */
describe('a contract policy with a pinned uniq on a chain without an RPC (anvil)', () => {
  let anvil: Anvil;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  let vaultId: string;
  let signer: string;
  let c1: Contract;
  let c2: Contract;
  let sender: string;

  beforeAll(async () => {
    [anvil, s] = await Promise.all([startAnvil(), startTestServer()]);
    vaultId = (await s.createVault({ name: 'pinned' })).id;
    api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    base = `/api/v1/vaults/${vaultId}`;
    signer = (await api.post(`${base}/wallets`, { name: 'signer of both contracts' })).body.data.address;
    // Two contracts of the same signer: a signature for one uniq is valid on whichever contract has it.
    c1 = await deploy(anvil, 'SignableTarget', [signer, UNIQ_1]);
    c2 = await deploy(anvil, 'SignableTarget', [signer, UNIQ_2]);
    sender = await anvil.account(1).getAddress();
  });
  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  const sign = (contract: Contract, uniq: string, amount: number) =>
    api.post(`${base}/sign`, { chain: 'local', contract: contract.target, sender, uniq, signer, abi: MINT, args: [TO, amount] });
  const mintOn = async (contract: Contract, args: unknown[]) => {
    try {
      return await (await (contract.connect(anvil.account(1)) as Contract).getFunction('mint')(...args)).wait();
    } catch (error) {
      anvil.account(1).reset();
      throw error;
    }
  };
  const trail = () => s.server.container.get(ListAuditRecords).execute({ vaultId, limit: 1000 });
  const issued = (records: AuditRecord[]) => records.filter((r) => r.action === 'signature.issued');
  const setPolicy = (input: Parameters<ManagePolicies['set']>[1]) => s.server.container.get(ManagePolicies).set(vaultId, input);

  it('without a pin (the finding): a request naming C1 with C2\'s uniq is refused, not signed for C2', async () => {
    await setPolicy({ contracts: [c1.target as string] });
    const before = issued(await trail()).length;
    const r = await sign(c1, UNIQ_2, 1);
    expect(r.status).toBe(403);
    expect(r.body.error).toMatch(`policy: contract ${c1.target} has no pinned uniq, required on chain local`);
    expect(issued(await trail())).toHaveLength(before);
  });

  it("with C1's uniq pinned: a request naming C1 with C2's uniq is 403 naming the rule, recorded, and nothing is signed", async () => {
    await setPolicy({ contracts: [c1.target as string], contractUniqs: [`${c1.target}=${UNIQ_1}`] });
    const before = issued(await trail()).length;
    const r = await sign(c1, UNIQ_2, 2);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe(`policy: uniq ${UNIQ_2} is not the uniq pinned for contract ${c1.target}`);
    const records = await trail();
    expect(issued(records)).toHaveLength(before);
    expect(records.at(-1)).toMatchObject({
      action: 'sign.denied',
      details: { rule: r.body.error, contract: c1.target, uniq: UNIQ_2 },
    });
  });

  it("with C1's uniq pinned: a request naming C1 with C1's uniq is signed, names the uniq in the audit trail, and C1 accepts it", async () => {
    const r = await sign(c1, UNIQ_1, 3);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(issued(await trail()).at(-1)).toMatchObject({
      subject: r.body.data.submissionHash,
      details: { contract: c1.target, uniq: UNIQ_1 },
    });
    // What the pin protects: the same signature is worthless on C2, whose uniq differs.
    await expect(mintOn(c2, r.body.data.args)).rejects.toThrow(/bad signature/);
    expect((await mintOn(c1, r.body.data.args))?.status).toBe(1);
  });

  it('the contract list still applies: C2 is not allowed at all, even with its own uniq', async () => {
    const r = await sign(c2, UNIQ_2, 4);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe(`policy: no rule of this vault's policy allows this call (rule calls: contract ${c2.target} is not in its contracts)`);
  });
});
