import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonRpcChainReader } from '../../adapters/chain/json-rpc.chain-reader.js';
import { ListAuditRecords } from '../../src/application/audit/list-audit-records.use-case.js';
import { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import { ErrorCode } from '../../src/domain/errors.js';
import type { AuditRecord } from '../../src/ports/audit-log.port.js';
import { freePort } from '../support/cli.js';
import { startFakeRpc, type FakeRpc } from '../support/fake-rpc.server.js';
import { client } from '../support/http-client.js';
import { SIGNATURE_PARAM as SIG } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const MINT = { type: 'function', name: 'mint', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }, SIG] };
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
/** A second allow-listed contract: the reader caches what it read of the first for its TTL. */
const CONTRACT_2 = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const SENDER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** The allow-listed contract's own uniq. */
const OWN_UNIQ = `0x${'0c'.repeat(32)}`;
/** The uniq of another contract of the same signer (say the treasury's): what the attacker wants signed. */
const FOREIGN_UNIQ = `0x${'f0'.repeat(32)}`;
const SEPOLIA = 11155111n;

/**
 * The attack of issue 20 §3: on a chain with an RPC, uniq and signer are whatever the RPC answers. A
 * fake RPC answering a foreign uniq made the vault sign, for an allow-listed contract with no pin, a
 * signature valid for another contract of the same signer.
 */
describe('an RPC that lies about uniq() cannot choose what an allow-listed contract signs', () => {
  let rpc: FakeRpc;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  let vaultId: string;

  beforeAll(async () => {
    rpc = await startFakeRpc({ chainId: SEPOLIA, uniq: FOREIGN_UNIQ, signer: TO });
    s = await startTestServer({ env: { VAULT_RPC_URL_SEPOLIA: rpc.url } });
    vaultId = (await s.createVault({ name: 'rpc-trust' })).id;
    api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    base = `/api/v1/vaults/${vaultId}`;
    // The treasury wallet: the signer() of the allow-listed contract and of the foreign one alike.
    rpc.answers.signer = (await api.post(`${base}/wallets`, { name: 'treasury' })).body.data.address;
  });
  afterAll(async () => {
    await s?.stop();
    await rpc?.close();
  });

  const sign = (contract = CONTRACT) => api.post(`${base}/sign`, { chain: 'sepolia', contract, sender: SENDER, abi: MINT, args: [TO, 1] });
  const setPolicy = (input: Parameters<ManagePolicies['set']>[1]) => s.server.container.get(ManagePolicies).set(vaultId, input);
  const trail = () => s.server.container.get(ListAuditRecords).execute({ vaultId, limit: 1000 });
  const issued = (records: AuditRecord[]) => records.filter((r) => r.action === 'signature.issued');

  it('the attack: an allow-listed contract without a pin is refused (403 naming both ways out), recorded, nothing signed', async () => {
    await setPolicy({ contracts: [CONTRACT] });
    const before = issued(await trail()).length;
    const calls = rpc.calls.length;
    const r = await sign();
    expect(r.status, JSON.stringify(r.body)).toBe(403);
    expect(r.body.error).toBe(
      `policy: contract ${CONTRACT} has no pinned uniq, and the RPC of chain sepolia is not trusted to choose it ` +
        `(pin it: wallet-vault policies set --contract-uniq ${CONTRACT}=<uniq>, or trust the RPC for it: --trust-rpc-uniq ${CONTRACT})`,
    );
    // Refused before the RPC is asked: its answer could not have made it right.
    expect(rpc.calls.length).toBe(calls);
    const records = await trail();
    expect(issued(records)).toHaveLength(before);
    expect(records.at(-1)).toMatchObject({ action: 'sign.denied', details: { rule: r.body.error, chain: 'sepolia', contract: CONTRACT } });
  });

  it('with a pin the RPC contradicts: 403 naming the foreign uniq, nothing signed', async () => {
    await setPolicy({ contracts: [CONTRACT], contractUniqs: [`${CONTRACT}=${OWN_UNIQ}`] });
    const before = issued(await trail()).length;
    const r = await sign();
    expect(r.status, JSON.stringify(r.body)).toBe(403);
    expect(r.body.error).toBe(`policy: uniq ${FOREIGN_UNIQ} is not the uniq pinned for contract ${CONTRACT}`);
    expect(issued(await trail())).toHaveLength(before);
  });

  it('with the pin the RPC confirms: signed with the pinned uniq', async () => {
    await setPolicy({ contracts: [CONTRACT_2], contractUniqs: [`${CONTRACT_2}=${OWN_UNIQ}`] });
    rpc.answers.uniq = OWN_UNIQ;
    try {
      const r = await sign(CONTRACT_2);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(issued(await trail()).at(-1)).toMatchObject({ subject: r.body.data.submissionHash, details: { uniq: OWN_UNIQ } });
    } finally {
      rpc.answers.uniq = FOREIGN_UNIQ;
    }
  });

  it('with the operator trusting the RPC for the contract (explicit, audited): it signs what the RPC answers', async () => {
    await setPolicy({ contracts: [CONTRACT], trustRpcUniq: [CONTRACT] });
    expect((await trail()).at(-1)).toMatchObject({ action: 'policy.changed', details: { contracts: CONTRACT, trustRpcUniq: CONTRACT, contractUniqs: null } });
    const r = await sign();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // The risk the option names: the signature is for the uniq the RPC chose.
    expect(issued(await trail()).at(-1)).toMatchObject({ subject: r.body.data.submissionHash, details: { contract: CONTRACT, uniq: FOREIGN_UNIQ } });
  });
});

/** Several RPCs for one chain (VAULT_RPC_URL_SEPOLIA=a,b): each is asked, and one lie or failure stops the sign. */
describe('several RPCs for one chain must agree on uniq and signer', () => {
  let a: FakeRpc;
  let b: FakeRpc;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  let treasury: string;
  /** A fresh contract address per case: the reader caches what it read of a contract for its TTL. */
  let next = 0x1000;
  const contract = () => `0x${(next++).toString(16).padStart(40, '0')}`;

  beforeAll(async () => {
    [a, b] = await Promise.all([
      startFakeRpc({ chainId: SEPOLIA, uniq: OWN_UNIQ, signer: TO }),
      startFakeRpc({ chainId: SEPOLIA, uniq: OWN_UNIQ, signer: TO }),
    ]);
    s = await startTestServer({ env: { VAULT_RPC_URL_SEPOLIA: `${a.url},${b.url}` } });
    const vaultId = (await s.createVault({ name: 'two-rpcs' })).id;
    api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    base = `/api/v1/vaults/${vaultId}`;
    treasury = (await api.post(`${base}/wallets`, { name: 'treasury' })).body.data.address;
  });
  afterAll(async () => {
    await s?.stop();
    await Promise.all([a?.close(), b?.close()]);
  });

  /** Both RPCs honest (answering the treasury and OWN_UNIQ), then `lie` applied to b for one sign. */
  const signWith = async (lie: Partial<FakeRpc['answers']>, target = contract()) => {
    Object.assign(a.answers, { chainId: SEPOLIA, uniq: OWN_UNIQ, signer: treasury, revert: false });
    Object.assign(b.answers, { chainId: SEPOLIA, uniq: OWN_UNIQ, signer: treasury, revert: false }, lie);
    const before = [a.calls.length, b.calls.length];
    const r = await api.post(`${base}/sign`, { chain: 'sepolia', contract: target, sender: SENDER, abi: MINT, args: [TO, 1] });
    // Each RPC was asked, whichever answered first.
    expect(a.calls.length).toBeGreaterThan(before[0]!);
    expect(b.calls.length).toBeGreaterThan(before[1]!);
    return r;
  };
  const host = (rpc: FakeRpc) => new URL(rpc.url).host;

  it('signs when they agree', async () => {
    const r = await signWith({});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it('refuses with 502 naming uniq() and what each RPC answered when one lies about uniq', async () => {
    const target = contract();
    const r = await signWith({ uniq: FOREIGN_UNIQ }, target);
    expect(r.status, JSON.stringify(r.body)).toBe(502);
    expect(r.body.error).toBe(
      `chain sepolia: RPCs disagree on uniq() of ${target}: RPC #1 ${host(a)} answers ${OWN_UNIQ}, RPC #2 ${host(b)} answers ${FOREIGN_UNIQ}`,
    );
  });

  it('refuses with 502 naming signer() when one lies about the signer', async () => {
    const target = contract();
    const r = await signWith({ signer: SENDER }, target);
    expect(r.status, JSON.stringify(r.body)).toBe(502);
    expect(r.body.error).toBe(`chain sepolia: RPCs disagree on signer() of ${target}: RPC #1 ${host(a)} answers ${treasury}, RPC #2 ${host(b)} answers ${SENDER}`);
  });

  it('refuses with 502 when one says the contract is not signable and the other answers', async () => {
    const r = await signWith({ revert: true });
    expect(r.status, JSON.stringify(r.body)).toBe(502);
    expect(r.body.error).toMatch(new RegExp(`^chain sepolia: RPCs disagree on uniq\\(\\) of 0x[0-9a-f]{40}: RPC #1 ${host(a)} answers ${OWN_UNIQ}, RPC #2 ${host(b)} answers no signable contract$`));
  });
});

describe('the chain reader with several RPCs: one that fails or reports another chain fails the read, naming it', () => {
  const target = '0x0000000000000000000000000000000000002000';
  let good: FakeRpc;
  let otherChain: FakeRpc;
  beforeAll(async () => {
    [good, otherChain] = await Promise.all([
      startFakeRpc({ chainId: SEPOLIA, uniq: OWN_UNIQ, signer: TO }),
      startFakeRpc({ chainId: 1n, uniq: OWN_UNIQ, signer: TO }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([good?.close(), otherChain?.close()]);
  });

  it('another chain id at one of them: CHAIN_UNAVAILABLE naming that RPC by position and host', async () => {
    const reader = new JsonRpcChainReader({ rpcUrls: { sepolia: [good.url, otherChain.url] } });
    await expect(reader.readSignable('sepolia', target)).rejects.toMatchObject({
      code: ErrorCode.CHAIN_UNAVAILABLE,
      message: `chain sepolia: RPC #2 ${new URL(otherChain.url).host} reports chain id 1, expected 11155111`,
    });
    await reader.close();
  });

  it('one unreachable: CHAIN_UNAVAILABLE naming it, not the values of the other (fail closed, never outvoted)', async () => {
    const dead = `http://127.0.0.1:${await freePort()}/v3/api-key-in-path`;
    const reader = new JsonRpcChainReader({ rpcUrls: { sepolia: [dead, good.url] }, timeoutMs: 2000 });
    const error = await reader.readSignable('sepolia', target).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.CHAIN_UNAVAILABLE, message: expect.stringMatching(`^chain sepolia: RPC #1 ${new URL(dead).host} `) });
    expect((error as Error).message).not.toMatch(/api-key-in-path/);
    await reader.close();
  });

  it('all agreeing: the values, from one URL as from a list of one', async () => {
    const reader = new JsonRpcChainReader({ rpcUrls: { sepolia: [good.url] } });
    expect(await reader.readSignable('sepolia', target)).toEqual({ uniq: OWN_UNIQ, signer: TO });
    await reader.close();
  });
});
