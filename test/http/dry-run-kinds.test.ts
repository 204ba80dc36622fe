import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../adapters/http/openapi/examples.js';
import { REGISTERED_SIGNING_KINDS } from '../../src/domain/signing/kinds/registered-signing-kinds.js';
import { client } from '../support/http-client.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** The body of each kind's route, as its example in the OpenAPI document gives it. */
const REQUESTS: Record<string, (signer: string) => unknown> = {
  call: (signer) => localSignBody(signer),
  message: () => EXAMPLES.signMessageRequest,
  'typed-data': () => EXAMPLES.signTypedDataRequest,
  transaction: () => EXAMPLES.signTransactionRequest,
  authorization: () => EXAMPLES.signAuthorizationRequest,
};

// Every answer is checked against the OpenAPI document (test/support/openapi-conformance.setup.ts), the
// request body of a 200 too: a kind the document's enum lacked (authorization, once) fails here.
describe('the policy dry run answers every registered kind as the OpenAPI document describes it', () => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  let wallet: string;

  beforeAll(async () => {
    s = await startTestServer();
    const vaultId = (await s.createVault({ name: 'dry run kinds' })).id;
    api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    base = `/api/v1/vaults/${vaultId}`;
    wallet = (await api.post(`${base}/wallets`, { name: 'w' })).body.data.address;
  });
  afterAll(() => s?.stop());

  it.each(REGISTERED_SIGNING_KINDS.map((kind) => kind.name))('%s', async (kind) => {
    const request = REQUESTS[kind];
    expect(request, `a request of kind ${kind} for this test`).toBeDefined();
    const answer = await api.post(`${base}/policy/evaluate`, { kind, ...(kind === 'call' ? {} : { wallet }), request: request!(wallet) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(['allow', 'deny', 'hold']).toContain(answer.body.data.decision);
  });
});
