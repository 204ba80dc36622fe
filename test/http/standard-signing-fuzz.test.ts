import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import type { Reply } from '../support/http-client.js';
import { startSigningServer } from '../support/signing-server.js';
import type { TestServer } from '../support/test-server.js';
import { asJson, permit } from '../support/typed-data-fixtures.js';

/**
 * Issue 23, as issue 3 for Sign: no body sent to sign-message, sign-typed-data or sign-transaction makes
 * the server answer 5xx. Valid bodies damaged at random (a field replaced by any JSON or removed, made-up
 * EIP-712 types, quantities of any shape, any JSON as the whole body), under a policy that allows the
 * valid ones, so the damage reaches the encoder and the policy check: every answer is 200, a 400, a 403
 * or a 404 in the envelope with a code.
 */
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const json = fc.jsonValue({ maxDepth: 3 });
const TYPES = ['uint256', 'uint8', 'int', 'int7', 'bytes', 'bytes32', 'bytes33', 'string', 'address', 'bool', 'Permit', 'Permit[]', 'uint256[2]', 'Nested', 'Nested[][]', 'tuple', '', 'EIP712Domain'];
const QUANTITIES = fc.oneof(json, fc.bigInt({ min: -1n, max: 2n ** 260n }).map(String), fc.bigInt({ min: 0n, max: 2n ** 260n }).map((n) => `0x${n.toString(16)}`), fc.integer());

const validTransaction = {
  type: 'eip1559',
  chainId: 31337,
  nonce: 0,
  to: RECIPIENT,
  value: '1',
  gas: '21000',
  maxFeePerGas: '2000000000',
  maxPriorityFeePerGas: '1000000000',
};
const validTypedData = () =>
  asJson(permit({ name: 'Token', version: '1', chainId: 31337, verifyingContract: TOKEN }, { owner: RECIPIENT, spender: RECIPIENT, value: 1n, nonce: 0n, deadline: 1n }));

/** A valid body, and what to do to it. */
const replaceOrRemove = (fields: string[], values: fc.Arbitrary<unknown>) =>
  fc.tuple(fc.constantFrom(...fields), fc.option(values, { nil: undefined })).map(([field, value]) => (body: Record<string, unknown>) => ({ ...body, [field]: value }));

const CASES = [
  {
    operation: 'sign-message',
    valid: () => ({ message: 'hello' }),
    damage: fc.oneof(
      replaceOrRemove(['message', 'raw', 'extra'], json),
      fc.string({ unit: 'binary', maxLength: 40 }).map((message) => () => ({ message })),
      fc.string({ maxLength: 70 }).map((raw) => () => ({ message: { raw: `0x${raw}` } })),
    ),
  },
  {
    operation: 'sign-typed-data',
    valid: validTypedData,
    damage: fc.oneof(
      replaceOrRemove(['domain', 'types', 'primaryType', 'message', 'extra'], json),
      fc
        .tuple(fc.constantFrom('name', 'version', 'chainId', 'verifyingContract', 'salt', 'extra'), fc.oneof(json, QUANTITIES))
        .map(([field, value]) => (body: Record<string, unknown>) => ({ ...body, domain: { ...(body.domain as object), [field]: value } })),
      fc
        .tuple(fc.array(fc.record({ name: fc.constantFrom('owner', 'value', 'x', ''), type: fc.oneof(fc.constantFrom(...TYPES), fc.string({ maxLength: 10 })) }), { maxLength: 4 }), fc.dictionary(fc.constantFrom('owner', 'value', 'x'), json))
        .map(([fields, message]) => (body: Record<string, unknown>) => ({ ...body, types: { Permit: fields, Nested: fields }, message })),
      fc.tuple(fc.constantFrom('owner', 'spender', 'value', 'nonce', 'deadline', 'extra'), fc.oneof(json, QUANTITIES)).map(
        ([field, value]) => (body: Record<string, unknown>) => ({ ...body, message: { ...(body.message as object), [field]: value } }),
      ),
    ),
  },
  {
    operation: 'sign-transaction',
    valid: () => validTransaction,
    damage: fc.oneof(
      replaceOrRemove(['type', 'chainId', 'nonce', 'to', 'from', 'value', 'data', 'input', 'gas', 'gasLimit', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'accessList', 'blobs'], fc.oneof(json, QUANTITIES)),
      fc.tuple(fc.constantFrom('legacy', 'eip2930', 'eip1559', '0x0', '0x1', '0x2', '0x3', 4, null), QUANTITIES, fc.array(json, { maxLength: 3 })).map(
        ([type, gasPrice, accessList]) => (body: Record<string, unknown>) => ({ ...body, type, gasPrice, accessList, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined }),
      ),
    ),
  },
] as const;

describe('standard signing under random damage to its bodies', () => {
  let s: TestServer;
  let post: (path: string, body: unknown) => Promise<Reply>;
  let raw: (path: string, text: string) => Promise<Reply>;
  let base: string;
  let signer: string;

  beforeAll(async () => {
    let api: Awaited<ReturnType<typeof startSigningServer>>['api'];
    ({ s, api, base, signer } = await startSigningServer('standard-fuzz'));
    post = (path, body) => api.post(path, body);
    raw = (path, text) => api.raw('POST', path, { raw: text });
    await s.server.container.get(ManagePolicies).set(base.split('/').pop()!, {
      messages: true,
      txChainIds: ['31337'],
      txTo: [RECIPIENT],
      txMaxValue: '1000',
      txContractCreation: true,
      typedDataContracts: [`31337:${TOKEN}`],
    });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const expectEnvelope = (r: Reply, context: unknown) => {
    const where = JSON.stringify({ context, reply: r.body }).slice(0, 2_000);
    expect([200, 400, 403, 404], where).toContain(r.status);
    if (r.status === 200) expect(r.body.success, where).toBe(true);
    else expect(r.body, where).toEqual({ success: false, error: expect.any(String), code: expect.stringMatching(/^(INVALID_ARGUMENT|MALFORMED_JSON|POLICY_DENIED|WALLET_NOT_FOUND)$/) });
  };

  it.each(CASES)('$operation never answers 5xx, and still signs its valid body', async ({ operation, valid, damage }) => {
    const url = `${base}/wallets/${signer}/${operation}`;
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(damage, async (mutate) => {
        const body = mutate(valid() as Record<string, unknown>);
        const r = await post(url, body);
        seen.add(r.status);
        expectEnvelope(r, body);
      }),
      { numRuns: 150 },
    );
    // Any JSON (or not JSON) as the whole body, and any text as the wallet.
    await fc.assert(
      fc.asyncProperty(fc.oneof(json.map((v) => JSON.stringify(v)), fc.string({ maxLength: 30 })), fc.option(fc.string({ minLength: 1, maxLength: 44 })), async (text, address) => {
        const path = address === null ? url : `${base}/wallets/${encodeURIComponent(address)}/${operation}`;
        const r = await raw(path, text);
        seen.add(r.status);
        expectEnvelope(r, { text, address });
      }),
      { numRuns: 100 },
    );
    // The damage reached both sides: refusals, and bodies still valid after it.
    expect([seen.has(400), seen.has(200)]).toEqual([true, true]);
    expect((await post(url, valid())).status).toBe(200);
  }, 120_000);
});
