import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contract, InterfaceAbi } from 'ethers';
import { client } from '../support/http-client.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const UNIQ = `0x${'5a'.repeat(32)}`;
const abiItem = (name: string) => (loadArtifact('SignableTarget').abi as InterfaceAbi as { name?: string }[]).find((i) => i.name === name)!;

interface Case {
  fn: string;
  args: unknown[];
  value?: bigint;
}

describe('signatures accepted by a signable contract on a real EVM (anvil)', () => {
  let anvil: Anvil;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  let signer: string;
  let target: Contract;
  let sender: string;

  beforeAll(async () => {
    [anvil, s] = await Promise.all([startAnvil(), startTestServer()]);
    const vaultId = (await s.createVault({ name: 'chain' })).id;
    api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    base = `/api/v1/vaults/${vaultId}`;
    signer = (await api.post(`${base}/wallets`, { name: 'contract signer' })).body.data.address;
    target = await deploy(anvil, 'SignableTarget', [signer, UNIQ]);
    sender = await anvil.account(1).getAddress();
  });
  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  const sign = (fn: string, args: unknown[], from = sender, extra: Record<string, unknown> = {}) =>
    api.post(`${base}/sign`, {
      chain: 'local',
      contract: target.target,
      sender: from,
      uniq: UNIQ,
      signer,
      abi: abiItem(fn),
      args,
      ...extra,
    });

  const send = async (fn: string, args: unknown[], account = 1, value?: bigint) => {
    const c = target.connect(anvil.account(account)) as Contract;
    try {
      const tx = await c.getFunction(fn)(...args, value === undefined ? {} : { value });
      return await tx.wait();
    } catch (error) {
      // A refused transaction never reaches the chain: the nonce it took locally must be given back.
      anvil.account(account).reset();
      throw error;
    }
  };

  const token = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
  const cases: Case[] = [
    { fn: 'mint', args: [token.toLowerCase(), '1000000000000000000000'] },
    { fn: 'first', args: [255, '-12345678901234567890', true] },
    { fn: 'middle', args: [`0x${'11'.repeat(32)}`, 'héllo wörld ✓', '0xdeadbeef'] },
    {
      fn: 'small',
      args: [-128, 16777215, '0xff', `0x${'ab'.repeat(17)}`, '-170141183460469231731687303715884105728', `0x${'ff'.repeat(32)}`],
    },
    {
      fn: 'arrays',
      args: [
        [1, '2', '0x03'],
        [token, '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'],
        [[1, 2], [], [65535]],
        [[`0x${'01'.repeat(32)}`, `0x${'02'.repeat(32)}`]],
        ['a', '', 'x'.repeat(100)],
      ],
    },
    {
      fn: 'structs',
      args: [
        { id: 7, item: { token, amount: '79228162514264337593543950335', data: '0x' }, memo: 'order' },
        [[token, 1, '0x01'], { token, amount: 2, data: '0xabcd' }],
      ],
    },
    { fn: 'pay', args: ['1000'], value: 1000n },
  ];

  it.each(cases)('$fn: the returned args are accepted on-chain as sent', async ({ fn, args, value }) => {
    const before = (await target.getFunction('calls')()) as bigint;
    const r = await sign(fn, args);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const { submissionHash, args: signed } = r.body.data;
    expect(signed).toHaveLength(args.length + 1);
    const sig = signed.find((a: unknown) => typeof a === 'object' && a !== null && 'nonce' in (a as object) && 'v' in (a as object));
    expect(sig).toEqual({ nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/), r: expect.stringMatching(/^0x[0-9a-f]{64}$/), s: expect.stringMatching(/^0x[0-9a-f]{64}$/), v: expect.any(Number) });
    expect(signed.filter((a: unknown) => a !== sig)).toEqual(args);

    const receipt = await send(fn, signed, 1, value);
    expect(receipt?.status).toBe(1);
    expect((await target.getFunction('calls')()) as bigint).toBe(before + 1n);
    expect(await target.getFunction('used')(submissionHash)).toBe(true);
  });

  it('places the signature where the ABI puts it: first, middle and last', async () => {
    const first = (await sign('first', [1, 2, false])).body.data.args;
    expect(first[0]).toHaveProperty('nonce');
    const middle = (await sign('middle', [`0x${'00'.repeat(32)}`, '', '0x'])).body.data.args;
    expect(middle[1]).toHaveProperty('nonce');
    const last = (await sign('mint', [token, 1])).body.data.args;
    expect(last[2]).toHaveProperty('nonce');
  });

  it('a used signature reverts when replayed', async () => {
    const signed = (await sign('mint', [token, 5])).body.data.args;
    await send('mint', signed);
    await expect(send('mint', signed)).rejects.toThrow(/signature used/);
  });

  it('another sender cannot use the signature', async () => {
    const signed = (await sign('mint', [token, 6])).body.data.args;
    await expect(send('mint', signed, 2)).rejects.toThrow(/bad signature/);
  });

  it('records every signature; a submission can be attached and read back', async () => {
    const r = await sign('mint', [token, 7]);
    const receipt = await send('mint', r.body.data.args);
    const posted = await api.post(`${base}/submissions`, { submissionHash: r.body.data.submissionHash, transactionHash: receipt!.hash });
    expect(posted.status).toBe(200);
    expect(posted.body.data).toMatchObject({
      submissionHash: r.body.data.submissionHash,
      wallet: signer,
      chain: 'local',
      contract: target.target,
      sender,
      selector: target.interface.getFunction('mint')!.selector,
      transactionHash: receipt!.hash,
    });
    expect((await api.get(`${base}/submissions/${r.body.data.submissionHash}`)).body.data).toEqual(posted.body.data);
    const other = await api.post(`${base}/submissions`, { submissionHash: r.body.data.submissionHash, transactionHash: `0x${'9'.repeat(64)}` });
    expect(other.status).toBe(409);
    expect((await api.get(`${base}/submissions/0x${'0'.repeat(64)}`)).status).toBe(404);
  });

  it('an expiring wallet still signs; once deleted, sign is 404', async () => {
    const w = (await api.post(`${base}/wallets`, { name: 'expiring signer' })).body.data.address;
    await api.delete(`${base}/wallets/${w}`);
    const ok = await sign('mint', [token, 1], sender, { signer: w });
    expect(ok.status).toBe(200);
    s.clock.advance(31 * 24 * 3600 * 1000);
    const gone = await sign('mint', [token, 1], sender, { signer: w });
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatch(/not a wallet of this vault/);
  });
});

describe('chain lookup mode: uniq and signer read from the contract', () => {
  let anvil: Anvil;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  let signer: string;
  let target: Contract;
  let sender: string;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 11155111 });
    s = await startTestServer({ env: { VAULT_RPC_URL_SEPOLIA: anvil.rpcUrl } });
    const vaultId = (await s.createVault({ name: 'sepolia' })).id;
    api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    base = `/api/v1/vaults/${vaultId}`;
    signer = (await api.post(`${base}/wallets`, { name: 'sepolia signer' })).body.data.address;
    target = await deploy(anvil, 'SignableTarget', [signer, UNIQ]);
    sender = await anvil.account(1).getAddress();
  });
  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  const request = (extra: Record<string, unknown> = {}) => ({
    chain: 'sepolia',
    contract: target.target,
    sender,
    abi: abiItem('mint'),
    args: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 42],
    ...extra,
  });

  it('signs without uniq or signer in the request, and the chain accepts it', async () => {
    const r = await api.post(`${base}/sign`, request());
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const tx = await (target.connect(anvil.account(1)) as Contract).getFunction('mint')(...r.body.data.args);
    expect((await tx.wait())?.status).toBe(1);
  });

  it('refuses request values that disagree with the contract', async () => {
    const uniq = await api.post(`${base}/sign`, request({ uniq: `0x${'00'.repeat(32)}` }));
    expect(uniq.status).toBe(400);
    expect(uniq.body.error).toMatch(/^uniq: .* does not match the contract's uniq\(\) on sepolia/);
    const other = await api.post(`${base}/sign`, request({ signer: sender }));
    expect(other.status).toBe(400);
    expect(other.body.error).toMatch(/^signer: /);
    expect((await api.post(`${base}/sign`, request({ uniq: UNIQ, signer }))).status).toBe(200);
  });

  it('a contract without uniq()/signer() is 400; a chain without RPC needs uniq and signer', async () => {
    const noCode = await api.post(`${base}/sign`, request({ contract: '0x000000000000000000000000000000000000dEaD' }));
    expect(noCode.status).toBe(400);
    expect(noCode.body.error).toMatch(/does not answer uniq\(\)\/signer\(\)/);
    const polygon = await api.post(`${base}/sign`, request({ chain: 'polygon' }));
    expect(polygon.status).toBe(400);
    expect(polygon.body.error).toMatch(/^uniq: is required for chain polygon \(no RPC configured\)/);
  });
});
