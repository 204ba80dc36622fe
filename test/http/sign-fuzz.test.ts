import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { localSignBody, MINT_ABI } from '../support/sign-request.js';
import { startSigningServer } from '../support/signing-server.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Issue 3: "no input makes the server answer 500 or stop". Random damage to a valid sign request (any
 * field replaced by any JSON, removed, ABI types made up, arguments of any shape), sent over HTTP to the
 * real service: every answer is a 2xx/4xx in the envelope, never a 500.
 */
const TYPES = [
  'uint', 'uint0', 'uint7', 'uint257', 'int', 'int264', 'bytes', 'bytes0', 'bytes33', 'byte', 'bool', 'address',
  'string', 'tuple', 'tuple[]', 'uint256[', 'uint256[]]', 'uint256[0]', 'uint256[-1]', 'uint256[1e3]', 'address[2][]',
  'function', 'fixed128x18', 'ufixed', '', ' uint256', 'UINT256', 'string[2][2]', 'bytes32[99999999999]',
];

const json = fc.jsonValue({ maxDepth: 3 });
const param = fc.record({
  name: fc.oneof(fc.string({ maxLength: 5 }), json),
  type: fc.oneof(fc.constantFrom(...TYPES), fc.string({ maxLength: 12 }), json),
  components: fc.option(fc.array(fc.record({ name: fc.string({ maxLength: 3 }), type: fc.constantFrom(...TYPES) }), { maxLength: 3 }), { nil: undefined }),
});

describe('Sign under random damage to its request', () => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  let signer: string;

  beforeAll(async () => {
    ({ s, api, base, signer } = await startSigningServer('fuzz'));
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('never answers 500', async () => {
    const damage = fc.oneof(
      // a field replaced by any JSON, or removed
      fc.tuple(fc.constantFrom('chain', 'contract', 'sender', 'uniq', 'signer', 'abi', 'args'), fc.option(json, { nil: undefined })).map(
        ([field, value]) => (body: Record<string, unknown>) => ({ ...body, [field]: value }),
      ),
      // made-up ABI inputs around the signature parameter
      fc.tuple(fc.array(param, { maxLength: 3 }), fc.array(json, { maxLength: 4 })).map(
        ([inputs, args]) => (body: Record<string, unknown>) => ({ ...body, abi: { ...MINT_ABI, inputs: [...inputs, MINT_ABI.inputs[2]] }, args }),
      ),
      // valid ABI, arguments of any shape
      fc.array(json, { maxLength: 4 }).map((args) => (body: Record<string, unknown>) => ({ ...body, args })),
      // hostile sizes (issue 14): long types, many dimensions, wide tuples, many inputs, wide arguments
      fc
        .tuple(
          fc.oneof(
            fc.integer({ min: 1, max: 60_000 }).map((n) => `uint256${'[]'.repeat(n)}`),
            fc.integer({ min: 1, max: 12 }).map((n) => `bool${'[2]'.repeat(n)}`),
            fc.integer({ min: 1, max: 131_072 }).map((n) => 'u'.repeat(n)),
          ),
          fc.integer({ min: 0, max: 600 }),
          fc.integer({ min: 0, max: 20_000 }),
        )
        .map(([type, width, values]) => (body: Record<string, unknown>) => ({
          ...body,
          abi: {
            ...MINT_ABI,
            inputs: [
              { name: 'x', type },
              { name: 't', type: 'tuple', components: Array.from({ length: width }, (_, i) => ({ name: `c${i}`, type: 'uint8' })) },
              ...Array.from({ length: width % 300 }, (_, i) => ({ name: `p${i}`, type: 'bool' })),
              MINT_ABI.inputs[2],
            ],
          },
          args: [Array<number>(values % 10_001).fill(0), Object.fromEntries(Array.from({ length: values }, (_, i) => [`c${i}`, 1]))],
        })),
      // the ABI item itself damaged
      fc.tuple(fc.constantFrom('type', 'name', 'inputs', 'stateMutability'), json).map(
        ([field, value]) => (body: Record<string, unknown>) => ({ ...body, abi: { ...MINT_ABI, [field]: value } }),
      ),
    );
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(damage, async (mutate) => {
        const body = mutate(localSignBody(signer));
        const r = await api.post(`${base}/sign`, body);
        seen.add(r.status);
        expect([200, 400, 404], JSON.stringify({ body, reply: r.body }).slice(0, 2_000)).toContain(r.status);
        if (r.status === 200) expect(r.body.success).toBe(true);
        else expect(r.body).toEqual({ success: false, error: expect.any(String), code: expect.stringMatching(/^(INVALID_ARGUMENT|MALFORMED_JSON|WALLET_NOT_FOUND)$/) });
      }),
      { numRuns: 300 },
    );
    expect(seen.has(400)).toBe(true);
    expect((await api.post(`${base}/sign`, localSignBody(signer))).status).toBe(200);
  }, 120_000);
});
