import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignCall } from '../../src/application/signing/sign-call.use-case.js';
import { client } from '../support/http-client.js';
import { boundOf } from '../support/linear-cost.js';
import { localSignBody, SIGNATURE_PARAM as SIG } from '../support/sign-request.js';
import { startFakeRpc, type FakeRpc } from '../support/fake-rpc.server.js';
import { startSigningServer } from '../support/signing-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Issue 14, written as the attack: one API key, the standalone server on SQLite with its defaults, and the
 * requests that stalled every tenant, grew the heap without bound or ended in a 500. Each is sent as it
 * was found and must now get a 400 naming the place and the limit (or be served within the bounds), while
 * /healthz keeps answering. No timing is asserted: the outcome and the bounded state are.
 */
describe('hostile request bodies (issue 14)', () => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  let signer: string;

  beforeAll(async () => {
    ({ s, api, base, signer } = await startSigningServer('hostile'));
  });
  afterAll(async () => {
    await s?.stop();
  });

  const sign = (extra: Record<string, unknown>) => api.post(`${base}/sign`, localSignBody(signer, extra));
  const abiOf = (...inputs: object[]) => ({ type: 'function', name: 'f', inputs: [...inputs, SIG] });
  const uint8s = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, type: 'uint8' }));
  const refusal = (message: string | RegExp) => ({ success: false, error: typeof message === 'string' ? message : expect.stringMatching(message), code: 'INVALID_ARGUMENT' });

  it('a 918 KB body of seven `uint256` types with 65 532 `[]` each: 400 on the type length, and /healthz answers meanwhile', async () => {
    const type = `uint256${'[]'.repeat(65_532)}`;
    const inputs = Array.from({ length: 7 }, (_, i) => ({ name: `a${i}`, type }));
    const [answer, health] = await Promise.all([sign({ abi: abiOf(...inputs), args: [] }), client(s.url).get('/healthz')]);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(refusal('abi.inputs[0].type: 131071 characters is longer than the limit of 128'));
    expect(health.status).toBe(200);
  });

  it('array dimensions, tuple width and parameter count are bounded, each refusal naming the place and the limit', async () => {
    const nine = await sign({ abi: abiOf({ name: 'ok', type: 'bool' }, { name: 'x', type: `uint8${'[]'.repeat(9)}` }), args: [] });
    expect(nine.body).toEqual(refusal('abi.inputs[1].type: more than 8 array dimensions'));

    const wide = { name: 't', type: 'tuple', components: Array.from({ length: 10_000 }, (_, i) => ({ name: `c${i}`, type: 'uint8' })) };
    const sixtyThousandKeys = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 1]));
    const tuple = await sign({ abi: abiOf(wide), args: [{ c0: 1 }] });
    expect(tuple.status).toBe(400);
    expect(tuple.body).toEqual(refusal(/^abi\.inputs\[0\]\.components\[\d+\]\.name: more than the limit of 24576 values in a request body$/));
    const wider = await sign({ abi: abiOf({ ...wide, components: wide.components.slice(0, 300) }), args: [{ c0: 1 }] });
    expect(wider.body).toEqual(refusal('abi.inputs[0].components: 300 parameters is more than the limit of 256'));
    // As found (the 60 000-key object as its argument), the body's bounds refuse it before it is parsed.
    expect((await sign({ abi: abiOf(wide), args: [sixtyThousandKeys] })).body).toEqual(refusal(/^abi\.inputs\[0\]\.components\[\d+\]\.name: more than the limit of 24576 values/));
    expect((await sign({ abi: abiOf(...uint8s(3)), args: [sixtyThousandKeys] })).body).toEqual(refusal('args[0]: object with more than the limit of 1024 members'));

    const branch = (n: number) => ({ name: `b${n}`, type: 'tuple', components: Array.from({ length: 200 }, (_, i) => ({ name: `c${i}`, type: 'uint8' })) });
    const many = await sign({ abi: abiOf(...Array.from({ length: 6 }, (_, i) => branch(i))), args: [] });
    expect(many.body).toEqual(refusal(/^abi\.inputs\[5\]\.components\[\d+\]: the ABI item has more than 1024 parameters/));
  });

  it('a tuple given an object of 60 000 keys: refused on its width before the body is parsed; 256 arrays of 64 on the value count', async () => {
    const tuple = { name: 't', type: 'tuple', components: Array.from({ length: 256 }, (_, i) => ({ name: `c${i}`, type: 'uint8' })) };
    const keys = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`c${i}`, 1]));
    const r = await sign({ abi: abiOf(tuple), args: [keys] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(refusal('args[0]: object with more than the limit of 1024 members'));
    const arrays = { ...tuple, components: tuple.components.map((c) => ({ ...c, type: 'uint8[]' })) };
    const values = Object.fromEntries(arrays.components.map((c) => [c.name, Array<number>(64).fill(1)]));
    expect((await sign({ abi: abiOf(arrays), args: [values] })).body).toEqual(
      refusal(/^args\[0\]\.c252\[\d+\]: more than the limit of 16384 values \(array elements and fields at any depth\)$/),
    );
    // Within the bounds, the same tuple given by name is signed.
    const full = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`c${i}`, i % 256]));
    expect((await sign({ abi: abiOf(tuple), args: [full] })).status).toBe(200);
  });

  it('a valid 1 MB sign of 500 000 array elements: refused on the count of values; 15 000 elements are signed', async () => {
    const abi = abiOf({ name: 'xs', type: 'uint8[][]' });
    const huge = await sign({ abi, args: [Array.from({ length: 50 }, () => Array<number>(10_000).fill(0))] });
    expect(huge.status).toBe(400);
    // 16 384 values of args and 8 192 for the ABI item: the body is refused before it is parsed.
    expect(huge.body).toEqual(refusal(/^args\[0\]\[2\]\[\d+\]: more than the limit of 24576 values in a request body$/));
    const within = await sign({ abi, args: [[Array<number>(10_000).fill(7), Array<number>(5_000).fill(1)]] });
    expect(within.status).toBe(200);
    expect(within.body.data.args[0][1]).toHaveLength(5_000);
  });

  it('1 000 refused signs with distinct 0.9 MB ABI items leave the ABI cache as it was; a signed one is kept, by its estimated size', async () => {
    const cache = s.server.container.get(SignCall).functions;
    const before = { bytes: cache.byteSize, size: cache.size };
    // A valid item (255 inputs with 250-character names) padded with ignored fields to 0.9 MB; each request
    // differs in its name, so a cache keyed by the text would gain an entry each time.
    const inputs = Array.from({ length: 255 }, (_, i) => ({ name: `p${String(i).padStart(249, '0')}`, type: 'uint256' }));
    const padding = Array.from({ length: 7 }, () => 'x'.repeat(120_000));
    const template = JSON.stringify(localSignBody(signer, { abi: { type: 'function', name: 'NAME', inputs: [...inputs, SIG], padding }, args: [] }));
    expect(template.length).toBeGreaterThan(900_000);
    for (let batch = 0; batch < 1_000; batch += 8) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, j) => api.raw('POST', `${base}/sign`, { raw: template.replace('"NAME"', `"f${batch + j}"`) })),
      );
      for (const a of answers) expect(a.body).toEqual(refusal(/^args: expected 255 arguments/));
    }
    expect({ bytes: cache.byteSize, size: cache.size }).toEqual(before);
    expect((await client(s.url).get('/healthz')).status).toBe(200);

    const signed = await api.raw('POST', `${base}/sign`, {
      raw: template.replace('"NAME"', '"g"').replace('"args":[]', `"args":${JSON.stringify(inputs.map(() => '1'))}`),
    });
    expect(signed.status).toBe(200);
    expect(cache.size).toBe(before.size + 1);
    // 257 parameters kept, not the 0.9 MB of padding: well under 0.9 MB of UTF-16.
    expect(cache.byteSize - before.bytes).toBeGreaterThan(0);
    expect(cache.byteSize - before.bytes).toBeLessThan(400_000);
  }, 120_000);

  it('a create with Idempotency-Key and an extra field nested 4 000 deep: 400 naming the place and the limit, not a 500', async () => {
    const deep = `${'['.repeat(4_000)}${']'.repeat(4_000)}`;
    const r = await api.raw('POST', `${base}/wallets`, { raw: `{"name":"deep","extra":${deep}}`, headers: { 'idempotency-key': 'k-deep' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(refusal(`extra${'[0]'.repeat(34)}: nested deeper than the limit of 35 levels`));
    // The same key is still free: nothing was recorded for the refused body.
    expect((await api.post(`${base}/wallets`, { name: 'deep' }, { 'idempotency-key': 'k-deep' })).status).toBe(200);
  });

  it('a create with Idempotency-Key and 24 000 small objects: refused on the count of values before anything hashes it', async () => {
    const extra = Array.from({ length: 3 }, () => Array.from({ length: 8_000 }, (_, i) => ({ a: i })));
    const r = await api.post(`${base}/wallets`, { name: 'wide', extra }, { 'idempotency-key': 'k-wide' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(refusal('extra[0][511]: more than the limit of 1024 values in a request body'));
    // Within the bound the body is read, and its unknown field is what refuses it (strict bodies); the key is still free.
    const within = await api.post(`${base}/wallets`, { name: 'wide', extra: extra[0]!.slice(0, 500) }, { 'idempotency-key': 'k-wide' });
    expect([within.status, within.body.error]).toEqual([400, 'extra: is not a field of this request (name, derivation)']);
    expect((await api.post(`${base}/wallets`, { name: 'wide' }, { 'idempotency-key': 'k-wide' })).status).toBe(200);
  });

  it('a sign whose `contract` nests 400 000 deep: 400 naming the place and the limit', async () => {
    const withContract = (contract: string) => JSON.stringify(localSignBody(signer)).replace(/"contract":"[^"]*"/, `"contract":${contract}`);
    const arrays = await api.raw('POST', `${base}/sign`, { raw: withContract(`${'['.repeat(400_000)}${']'.repeat(400_000)}`) });
    expect(arrays.status).toBe(400);
    expect(arrays.body).toEqual(refusal(`contract${'[0]'.repeat(34)}: nested deeper than the limit of 35 levels`));
    const objects = await api.raw('POST', `${base}/sign`, { raw: withContract(`${'{"a":'.repeat(150_000)}1${'}'.repeat(150_000)}`) });
    expect(objects.body).toEqual(refusal(`contract${'.a'.repeat(34)}: nested deeper than the limit of 35 levels`));
    // Within the bounds, the refusal quotes what was sent without echoing it whole.
    const wide = await api.raw('POST', `${base}/sign`, { raw: withContract(JSON.stringify(Array<number>(10_000).fill(0))) });
    expect(wide.body).toEqual(refusal(`contract: [${'0,'.repeat(38)}... is not a 0x-prefixed 20-byte hex address`));
  });

  it('every route with a body refuses deep nesting with a 400 (rename, submissions, sign), and the server keeps serving', async () => {
    const deep = `{"name":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    const address = signer;
    for (const [method, path] of [
      ['PUT', `${base}/wallets/${address}`],
      ['POST', `${base}/submissions`],
      ['POST', `${base}/wallets`],
      ['POST', `${base}/sign`],
    ] as const) {
      const r = await api.raw(method, path, { raw: deep });
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.body, `${method} ${path}`).toEqual(refusal(`name${'[0]'.repeat(34)}: nested deeper than the limit of 35 levels`));
    }
    expect((await client(s.url).get('/healthz')).status).toBe(200);
    expect((await sign({})).status).toBe(200);
  });
});

/**
 * Typed data built to cost more than its size: a field type of `[]` repeated (a regular expression tried
 * every `[` of it as the start of the array suffixes, 5 s for 59 KB) and structs that share structs (ethers
 * walks every path from the primary type, 2^20 of them here: seconds). Sent as found, each is refused with a 400 (or a JSON-RPC
 * error) naming the field, and costs no more than a request of the same size that is refused at once: the
 * time of each against that baseline's, measured here, with generous slack (test/support/linear-cost.ts).
 */
describe('typed data built to be costly, over HTTP', () => {
  const MADE_UP_WALLET = '0x00000000000000000000000000000000000000a1';
  let s: TestServer;
  let rpc: FakeRpc;
  let base: string;
  let wallet: string;
  let reader: ReturnType<typeof client>;
  let signer: ReturnType<typeof client>;

  beforeAll(async () => {
    // A chain with an RPC, for the JSON-RPC endpoint (a typed-data signature never asks it anything).
    rpc = await startFakeRpc({ chainId: 31337n, uniq: `0x${'00'.repeat(32)}`, signer: MADE_UP_WALLET });
    s = await startTestServer({ env: { VAULT_CHAINS: 'devnet:31337', VAULT_RPC_URL_DEVNET: rpc.url } });
    const vaultId = (await s.createVault({ name: 'hostile-typed-data' })).id;
    base = `/api/v1/vaults/${vaultId}`;
    signer = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    wallet = (await signer.post(`${base}/wallets`, { name: 'signer' })).body.data.address as string;
    reader = client(s.url, (await s.server.vault.manageVaults.createApiKey(vaultId, { roles: ['reader'] })).apiKey);
  });
  afterAll(async () => {
    await s?.stop();
    await rpc?.close();
  });

  /** The fastest of three answers to `send` (the baseline), and one answer to `crafted` with its time. */
  const againstBaseline = async <T>(send: () => Promise<T>, crafted: () => Promise<T>) => {
    let baselineMs = Infinity;
    for (let r = 0; r < 3; r++) {
      const t = performance.now();
      await send();
      baselineMs = Math.min(baselineMs, performance.now() - t);
    }
    const t = performance.now();
    const answer = await crafted();
    return { answer, ms: performance.now() - t, bound: boundOf(baselineMs) };
  };
  const withFieldType = (type: string) => ({ domain: { name: 'n' }, types: { Mail: [{ name: 'a', type }] }, primaryType: 'Mail', message: { a: 1 } });

  it('a 59 KB dry run from a reader key, for a made-up wallet, with a field type of 29 500 `[]`: 400 naming the field, at the cost of a same-size one', async () => {
    const evaluate = (type: string) => reader.post(`${base}/policy/evaluate`, { kind: 'typed-data', wallet: MADE_UP_WALLET, request: withFieldType(type) });
    const crafted = `${'[]'.repeat(29_500)}!`;
    const { answer, ms, bound } = await againstBaseline(() => evaluate('a'.repeat(crafted.length)), () => evaluate(crafted));
    expect(ms).toBeLessThanOrEqual(bound);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, code: 'INVALID_ARGUMENT', error: 'types.Mail[0].type: 59001 characters is longer than the limit of 256' });
  });

  it('eth_signTypedData_v4 of 21 structs, each with a field of every later one (2^20 paths): a JSON-RPC error naming the bound, at the cost of a same-size call', async () => {
    const types = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`T${i}`, [{ name: 'v', type: 'uint8' }, ...Array.from({ length: 20 - i }, (_, j) => ({ name: `t${i + 1 + j}`, type: `T${i + 1 + j}` }))]]));
    const call = (primaryType: string) =>
      signer.post(`${base}/rpc?chain=devnet`, { jsonrpc: '2.0', id: 1, method: 'eth_signTypedData_v4', params: [wallet, JSON.stringify({ domain: { name: 'n' }, types, primaryType, message: {} })] });
    // The baseline names a primary type that is not there: refused before the types are walked.
    const { answer, ms, bound } = await againstBaseline(() => call('Tx'), () => call('T0'));
    expect(ms).toBeLessThanOrEqual(bound);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.error.message).toBe('types: T0 reaches its structs along more than 1024 paths (a struct used by several types counts once for each way to it)');
  });
});
