import { readFileSync } from 'node:fs';
import http from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import { keccak256, parseTransaction, recoverMessageAddress, recoverTransactionAddress, recoverTypedDataAddress, type Hex, type TypedDataDefinition } from 'viem';
import { recoverAuthorizationAddress } from 'viem/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../adapters/http/openapi/openapi-document.js';
import { openApiFileText } from '../../adapters/http/openapi/write-openapi-file.js';
import { OpenApiConformance } from '../support/openapi-conformance.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { client, type Reply } from '../support/http-client.js';
import { localSignBody, MINT_TO } from '../support/sign-request.js';
import { STATUS_BY_CODE } from '../../adapters/http/error-status.js';
import { EXAMPLES } from '../../adapters/http/openapi/examples.js';
import { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import { createAuthSignature } from '../../src/domain/auth-signature.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { stateHash } from '../../src/domain/governance.js';
import { decisionTypedData, policyChangeTypedData } from '../../src/domain/signed-decisions.js';
import { parseCidrs } from '../../src/domain/api-key-access.js';
import { VAULT_ROUTE_PREFIX, VAULT_ROUTES } from '../../adapters/http/routes.js';

const document = buildOpenApiDocument();

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is shipped as openapi.json exactly as the code generates it (npm run build writes it)', () => {
    expect(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')).toBe(openApiFileText());
  });

  it('describes every route of docs/api.md, with the statuses of decisions.md', () => {
    const V = '/api/v1/vaults/{vaultId}';
    const operations = Object.entries(document.paths!).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId: string; responses: Record<string, unknown> }>).map(([method, op]) => ({
        at: `${method.toUpperCase()} ${path}`,
        id: op.operationId,
        statuses: Object.keys(op.responses),
      })),
    );
    expect(operations.map((o) => o.at).sort()).toEqual(
      [
        `POST ${V}/sign`,
        `GET ${V}/wallets`,
        `POST ${V}/wallets`,
        `GET ${V}/wallets/{address}`,
        `PUT ${V}/wallets/{address}`,
        `DELETE ${V}/wallets/{address}`,
        `POST ${V}/wallets/{address}`,
        `POST ${V}/wallets/{address}/sign-message`,
        `POST ${V}/wallets/{address}/sign-typed-data`,
        `POST ${V}/wallets/{address}/sign-transaction`,
        `POST ${V}/wallets/{address}/sign-authorization`,
        `POST ${V}/rpc`,
        `POST ${V}/policy/evaluate`,
        `GET ${V}/status`,
        `POST ${V}/submissions`,
        `GET ${V}/submissions/{submissionHash}`,
        `GET ${V}/approvals`,
        `GET ${V}/approvals/{approvalId}`,
        `POST ${V}/approvals/{approvalId}/approve`,
        `POST ${V}/approvals/{approvalId}/reject`,
        `GET ${V}/governance`,
        `GET ${V}/proposals`,
        `GET ${V}/proposals/{proposalId}`,
        `POST ${V}/proposals/{proposalId}/approve`,
        `POST ${V}/proposals/{proposalId}/reject`,
        `POST ${V}/freeze`,
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
        'GET /api/v1/sys/seal-status',
        'POST /api/v1/sys/unseal',
        'POST /api/v1/sys/seal',
        'GET /openapi.json',
        'GET /.well-known/wallet-vault-webhook-keys',
        'GET /.well-known/wallet-vault-audit-checkpoint-keys',
        // The admin API (docs/operators.md): a named operator's credential, not an API key.
        'GET /api/v1/admin/vaults',
        'POST /api/v1/admin/vaults',
        'GET /api/v1/admin/vaults/{vaultId}/api-keys',
        'POST /api/v1/admin/vaults/{vaultId}/api-keys',
        'DELETE /api/v1/admin/vaults/{vaultId}/api-keys/{keyId}',
        'POST /api/v1/admin/vaults/{vaultId}/api-keys/{keyId}/rotate',
        'PUT /api/v1/admin/vaults/{vaultId}/api-keys/{keyId}/roles',
        'GET /api/v1/admin/vaults/{vaultId}/policy',
        'PUT /api/v1/admin/vaults/{vaultId}/policy',
        'POST /api/v1/admin/vaults/{vaultId}/freeze',
        // Operators' sign-in through the OpenID Connect provider: a browser's redirect and its way back.
        'GET /api/v1/admin/sign-in',
        'GET /api/v1/admin/sign-in/callback',
        'POST /api/v1/admin/vaults/{vaultId}/unfreeze',
        'GET /api/v1/admin/vaults/{vaultId}/approvers',
        'POST /api/v1/admin/vaults/{vaultId}/approvers/invites',
        'DELETE /api/v1/admin/vaults/{vaultId}/approvers/{keyId}',
        'GET /api/v1/admin/vaults/{vaultId}/webhooks',
        'POST /api/v1/admin/vaults/{vaultId}/webhooks',
        'DELETE /api/v1/admin/vaults/{vaultId}/webhooks/{webhookId}',
        'POST /api/v1/admin/vaults/{vaultId}/webhooks/{webhookId}/replay',
        'GET /api/v1/admin/vaults/{vaultId}/governance',
        'PUT /api/v1/admin/vaults/{vaultId}/governance',
        'GET /api/v1/admin/vaults/{vaultId}/proposals',
        'GET /api/v1/admin/vaults/{vaultId}/proposals/{proposalId}',
      ].sort(),
    );
    const sign = operations.find((o) => o.id === 'sign')!;
    // 202: held for a quorum (approvals); 409: an Idempotency-Key of a held sign reused with another body; 422: `simulate: true` and it reverts.
    expect(sign.statuses).toEqual(['200', '202', '400', '401', '403', '404', '405', '408', '409', '413', '422', '429', '431', '500', '502', '503']);
    // As Sign: 202 held for a quorum; 409 an Idempotency-Key of a held request reused with another body; 502 a limit's price feed that cannot be read.
    for (const id of ['signMessage', 'signTypedData', 'signAuthorization']) {
      expect(operations.find((o) => o.id === id)!.statuses, id).toEqual(['200', '202', '400', '401', '403', '404', '405', '408', '409', '413', '429', '431', '500', '502', '503']);
    }
    // A transaction is simulated before signing (decisions.md, "Knowing what is signed"): a revert is 422, an RPC that cannot answer 502.
    expect(operations.find((o) => o.id === 'signTransaction')!.statuses).toEqual(['200', '202', '400', '401', '403', '404', '405', '408', '409', '413', '422', '429', '431', '500', '502', '503']);
    // A refused call is a JSON-RPC error inside the 200; the endpoint's own statuses are the service's.
    expect(operations.find((o) => o.id === 'jsonRpc')!.statuses).toEqual(['200', '400', '401', '403', '404', '405', '408', '413', '429', '431', '500', '502', '503']);
    expect(operations.find((o) => o.id === 'createWallet')!.statuses).toContain('409');
    expect(operations.find((o) => o.id === 'recordSubmission')!.statuses).toContain('409');
    expect(document.components!.securitySchemes).toMatchObject({
      apiKey: { type: 'http', scheme: 'bearer' },
      authSignature: { type: 'apiKey', in: 'header', name: 'X-Vault-Auth-Signature' },
    });
  });

  it("has standard-signing examples the example wallet really signed (viem recovers it)", async () => {
    const signer = EXAMPLES.standardSigner;
    expect(await recoverMessageAddress({ message: EXAMPLES.signMessageRequest.message, signature: EXAMPLES.signMessageResult.signature as Hex })).toBe(signer);
    expect(await recoverTypedDataAddress({ ...(EXAMPLES.signTypedDataRequest as unknown as TypedDataDefinition), signature: EXAMPLES.signTypedDataResult.signature as Hex })).toBe(signer);
    const auth = EXAMPLES.signAuthorizationRequest;
    expect(await recoverAuthorizationAddress({ authorization: { ...auth, address: auth.address as Hex }, signature: EXAMPLES.signAuthorizationResult.signature as Hex })).toBe(EXAMPLES.authorizationSigner);
    const serialized = EXAMPLES.signTransactionResult.serialized as Hex;
    expect(keccak256(serialized)).toBe(EXAMPLES.signTransactionResult.hash);
    expect(await recoverTransactionAddress({ serializedTransaction: serialized as never })).toBe(signer);
    const tx = parseTransaction(serialized);
    const request = EXAMPLES.signTransactionRequest;
    expect([tx.type, tx.chainId, tx.nonce, tx.to, tx.value, tx.gas, tx.maxFeePerGas, tx.maxPriorityFeePerGas]).toEqual([
      request.type,
      request.chainId,
      request.nonce,
      request.to.toLowerCase(),
      BigInt(request.value),
      BigInt(request.gas),
      BigInt(request.maxFeePerGas),
      BigInt(request.maxPriorityFeePerGas),
    ]);
  });

  it('has governance examples whose hashes and signatures are real: the state hashes to its documentHash, each signer recovers', async () => {
    const p = EXAMPLES.proposal;
    expect(stateHash(p.state as never)).toBe(p.documentHash);
    expect(stateHash(EXAMPLES.governance.state as never)).toBe(EXAMPLES.governance.hash);
    expect(p.state.previous).toBe(EXAMPLES.governance.hash);
    expect(await recoverTypedDataAddress({ ...(p.typedData as unknown as TypedDataDefinition), signature: EXAMPLES.proposalSignature as Hex })).toBe(p.approvals[0]);
    expect(await recoverTypedDataAddress({ ...(p.rejectTypedData as unknown as TypedDataDefinition), signature: EXAMPLES.proposalRejectSignature as Hex })).toBe(EXAMPLES.proposalRejecter);
    // Each is the use case's own typed data for this proposal.
    expect(p.typedData).toEqual(policyChangeTypedData(p.vault, p.id, p.documentHash));
    expect(p.rejectTypedData).toEqual(decisionTypedData(p.vault, p.id, p.documentHash, 'reject'));
  });

  it('has examples that match their own schemas', () => {
    const conformance = new OpenApiConformance(document);
    const checked: string[] = [];
    const visit = (node: unknown, pointer: string[]) => {
      if (typeof node !== 'object' || node === null) return;
      const n = node as Record<string, unknown>;
      if ('schema' in n && 'example' in n) {
        checked.push(pointer.join('/'));
        expect(conformance.validate([...pointer, 'schema'], n.example), pointer.join('/')).toEqual([]);
      }
      if ('schema' in n && 'examples' in n) {
        for (const [name, example] of Object.entries(n.examples as Record<string, { value: unknown }>)) {
          checked.push(`${pointer.join('/')}/examples/${name}`);
          expect(conformance.validate([...pointer, 'schema'], example.value), `${pointer.join('/')} ${name}`).toEqual([]);
        }
      }
      for (const [key, child] of Object.entries(n)) visit(child, [...pointer, key]);
    };
    visit(document.paths, ['paths']);
    visit(document.components!.responses, ['components', 'responses']);
    expect(checked.length).toBeGreaterThanOrEqual(10);
    expect(checked.filter((c) => c.includes('/examples/')).length).toBeGreaterThanOrEqual(Object.values(ErrorCode).length);
  });
});

/** Every error answer of every operation: its status, the codes its schema allows, and its examples. */
function errorAnswers() {
  return Object.values(document.paths!).flatMap((item) =>
    Object.values(item as Record<string, { operationId: string; responses: Record<string, any> }>).flatMap((op) =>
      Object.entries(op.responses)
        .filter(([status]) => Number(status) >= 400)
        .map(([status, answer]) => {
          const response = typeof answer.$ref === 'string' ? (document.components!.responses as Record<string, any>)[answer.$ref.split('/').pop()] : answer;
          const media = response.content['application/json'];
          return {
            operation: op.operationId,
            status: Number(status),
            codes: media.schema.properties.code.enum as string[],
            examples: Object.values(media.examples as Record<string, { value: { success: false; error: string; code: string } }>).map((e) => e.value),
          };
        }),
    ),
  );
}

describe('error codes in the OpenAPI document', () => {
  it('lists for each error status of each operation the codes that map to that status, each with an example of its own', () => {
    const answers = errorAnswers();
    expect(answers.length).toBeGreaterThan(50);
    for (const { operation, status, codes, examples } of answers) {
      const at = `${operation} ${status}`;
      expect(codes.length, at).toBeGreaterThan(0);
      for (const code of codes) expect(STATUS_BY_CODE[code as ErrorCode], `${at}: ${code}`).toBe(status);
      expect(examples.map((e) => e.code).sort(), at).toEqual([...codes].sort());
      for (const example of examples) {
        expect(Object.keys(example), at).toEqual(['success', 'error', 'code']);
        expect(example.error, at).toMatch(PLAUSIBLE[example.code as ErrorCode] ?? /^$/);
      }
    }
  });

  it('derives the statuses from the codes: the operations that can refuse with a code list it', () => {
    const codesOf = (operation: string) => errorAnswers().filter((a) => a.operation === operation).flatMap((a) => a.codes);
    expect(codesOf('sign')).toEqual(expect.arrayContaining(['POLICY_DENIED', 'UNAUTHENTICATED', 'RATE_LIMITED', 'CHAIN_UNAVAILABLE', 'WALLET_NOT_FOUND']));
    // A rename, expire or unexpire that loses its race to a concurrent change too often is 409 (wallet-lookup.ts).
    for (const operation of ['renameWallet', 'expireWallet', 'unexpireWallet']) expect(codesOf(operation), operation).toContain('CONFLICT');
    expect(codesOf('createWallet')).toContain('IDEMPOTENCY_CONFLICT');
    expect(codesOf('getWallet')).not.toContain('POLICY_DENIED');
    // Every path answers a method it does not serve with the one shared 405.
    expect(codesOf('metrics')).toEqual(['UNAUTHENTICATED', 'METHOD_NOT_ALLOWED']);
    for (const item of Object.values(document.paths!)) {
      for (const op of Object.values(item as Record<string, { operationId: string; responses: Record<string, { $ref?: string }> }>)) {
        expect(op.responses['405'], op.operationId).toEqual({ $ref: '#/components/responses/MethodNotAllowed' });
      }
    }
    expect((document.components!.responses as Record<string, any>).MethodNotAllowed.headers.Allow.required).toBe(true);
    // Every code is answered somewhere, but those only the command line and the in-process API give, and the
    // approvers' console's own: its routes are the page's, outside this document (docs/console.md); the admin
    // API's approvers answer that the console is not enabled.
    expect(new Set(errorAnswers().flatMap((a) => a.codes))).toEqual(
      new Set(Object.values(ErrorCode).filter((c) => !NOT_OVER_HTTP.includes(c) && (!c.startsWith('CONSOLE_') || c === ErrorCode.CONSOLE_UNAVAILABLE))),
    );
  });
});

/** Codes no route answers: a key import (issue 37) is the command line's and the in-process API's only. */
const NOT_OVER_HTTP: readonly ErrorCode[] = [ErrorCode.KEYSTORE_IMPORT_UNSUPPORTED, ErrorCode.KEYSTORE_EXPORT_UNSUPPORTED, ErrorCode.EXPORT_NOT_AUTHORIZED];

/**
 * What a message of each code looks like. Most are also provoked on a real server below and compared
 * with the document's example; the others (a dependency down, a lost race, a slow request) are held to
 * these shapes only.
 */
const PLAUSIBLE: Partial<Record<ErrorCode, RegExp>> = {
  INVALID_ARGUMENT: /^[a-zA-Z][\w.[\]-]*: /,
  MALFORMED_JSON: /request body|Content-Type/,
  UNAUTHENTICATED: /API key|Authorization|X-Vault-Auth-Signature|operator token|operator credential/,
  POLICY_DENIED: /^policy: /,
  ROLE_REQUIRED: /^this API key lacks (the role "(admin|signer|reader|approver)"|one of the roles ("(admin|signer|reader|approver)"(, )?)+) needed here \(it holds: [a-z,]+\)$/,
  FORBIDDEN_NETWORK: /^this API key may not be used from \S+$/,
  WALLET_NOT_FOUND: /^(wallet|signer) 0x[0-9a-fA-F]{40} (not found in|is not a wallet of) this vault$/,
  VAULT_NOT_FOUND: /^vault \S+ does not exist$/,
  CONSOLE_UNAVAILABLE: /^the approvers' console is not enabled: /,
  SUBMISSION_NOT_FOUND: /^submission 0x[0-9a-f]{64} not found in this vault$/,
  ROUTE_NOT_FOUND: /^no route/,
  METHOD_NOT_ALLOWED: /^method [A-Z]+ is not allowed on \S+ \(Allow: [A-Z, ]+\)$/,
  IDEMPOTENCY_CONFLICT: /^Idempotency-Key: /,
  CONFLICT: /concurrently; retry|already recorded|^share: /,
  PAYLOAD_TOO_LARGE: /^request body is larger than the limit of \d+ bytes$/,
  HEADERS_TOO_LARGE: /^request headers are larger than the limit of \d+ bytes$/,
  REQUEST_TIMEOUT: /^request was not received in time$/,
  RATE_LIMITED: /^rate limit exceeded for this (API key|client address); retry after \d+ s$/,
  SIGN_LIMIT_REACHED: /^limit [\w.-]+: at most \d+ signs? per \d+[smhd] (in all|for ((wallet|contract|recipient) 0x[0-9a-fA-F]{40}|function 0x[0-9a-f]{8})) reached; retry after \d+ s$/,
  APPROVAL_NOT_FOUND: /^approval \S+ not found in this vault$/,
  APPROVAL_REJECTED: /^approval \S+: the request was rejected; it is never signed$/,
  APPROVAL_EXPIRED: /^approval \S+: the request expired before its quorum; it is never signed$/,
  APPROVAL_SELF_VOTE: /^approval \S+: the requesting key can never vote on its own request$/,
  APPROVER_NOT_IN_GROUP: /^approval \S+: only approver keys of group \S+ vote on it \(this key is (of group \S+|of no group)\)$/,
  APPROVAL_SIGNATURE_INVALID: /^(approval|proposal) \S+: (this key votes with a signature|(the )?signature |vault \S+ is governed, so only the approvers)/,
  APPROVAL_ALREADY_VOTED: /^(approval \S+: this key has already voted \((approve|reject)\)|proposal \S+: 0x[0-9a-fA-F]{40} has already signed it, or it closed meanwhile)$/,
  APPROVAL_CLOSED: /^approval \S+: (already (approved|rejected); it takes no more votes|it takes no more votes)$/,
  CHAIN_UNAVAILABLE: /^chain [a-z0-9-]+: /,
  PRICE_FEED_STALE: /^limit \S+: price feed 0x[0-9a-fA-F]{40} of \S+ on chain \S+ answer(ed at \S+, older than its maxAgeSeconds \d+|s -?\d+, not a price); nothing was signed$/,
  PRICE_FEED_UNAVAILABLE: /^limit \S+: price feed 0x[0-9a-fA-F]{40} of \S+ on chain \S+ cannot be read \(.+\); nothing was signed$/,
  RPC_ANSWER_TOO_LARGE: /^\w+: the chain RPC's answers? (is|to this batch are) over the relay's cap of \d+ bytes per (call|batch)/,
  KEYSTORE_UNAVAILABLE: /^key store [a-z0-9-]+[: ]/,
  DATABASE_UNAVAILABLE: /^database/,
  INTERNAL: /^internal error \(request id [\w.:-]+\)$/,
  GOVERNANCE_UNVERIFIED: /^vault \S+'s governance does not verify, so it signs nothing: /,
  VAULT_FROZEN: /^vault \S+ is frozen: it signs nothing until the freeze is lifted/,
  WALLET_BINDING_INVALID: /^(wallet 0x[0-9a-fA-F]{40}: its row (does not match the vault its key was bound to|carries no binding of its key to vault \S+)|Idempotency-Key: the answer stored for it names .*: a change made in the database)/,
  SIGN_LIMIT_RECORDS_MISSING: /^limit \S+: .*: the database holds fewer signs in its window than this instance counted \(rows of sign_(value_)?counts were deleted or changed in the database\); nothing was signed/,
  APPROVAL_RECORD_INVALID: /^approval \S+: its row does not carry the seal its wallet made when it was held/,
  PROPOSAL_NOT_FOUND: /^proposal \S+ not found in this vault$/,
  PROPOSAL_CLOSED: /^proposal \S+ is (applied|rejected|superseded): it takes no more votes$/,
  VAULT_SEALED: /^the vault is sealed \(VAULT_SEAL=shamir\): nothing is signed until custodians unseal it/,
  OIDC_UNAVAILABLE: /^(the identity provider cannot be reached: |operator sign-in with OpenID Connect is not configured)/,
  AUDIT_SINK_UNAVAILABLE: /^no audit sink accepts records \(VAULT_AUDIT_REQUIRE_SINK\): writes are refused until one does/,
  SIMULATION_REVERTED: /^simulation: the (transaction|call) reverts on \S+ \((eth_call|eth_simulateV1) from 0x[0-9a-fA-F]{40} at the pending block\): .+; nothing was signed$/,
};

describe('the API key role of each operation', () => {
  it('is the role its route entry declares, in the security requirement, x-required-role and the description', () => {
    const paths = buildOpenApiDocument().paths as Record<string, Record<string, { security: Record<string, string[]>[]; 'x-required-role': string; description: string }>>;
    for (const route of VAULT_ROUTES) {
      const path = `${VAULT_ROUTE_PREFIX}${route.path}`.replace(/:(\w+)/g, '{$1}');
      const operation = paths[path]?.[route.method.toLowerCase()];
      const at = `${route.method} ${route.path}`;
      expect(operation, at).toBeDefined();
      // A list of roles means any one of them: one security requirement per role, all listed.
      const roles = typeof route.role === 'string' ? [route.role] : [...route.role];
      expect(operation!['x-required-role'], at).toEqual(route.role);
      expect(operation!.security.map((requirement) => requirement.apiKey), at).toEqual(
        expect.arrayContaining(roles.map((role) => [role])),
      );
      for (const requirement of operation!.security) expect(roles.map((role) => [role]), at).toContainEqual(requirement.apiKey);
      for (const role of roles) expect(operation!.description, at).toContain(`\`${role}\``);
    }
  });
});

describe("the error examples are the server's own words", () => {
  const SECRET = 'a-secret-of-at-least-32-characters!!';
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  let vaultId: string;

  beforeAll(async () => {
    s = await startTestServer({ env: { VAULT_AUTH_SECRET_KEY: SECRET } });
    vaultId = (await s.createVault({ name: 'examples' })).id;
    api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    base = `/api/v1/vaults/${vaultId}`;
  });
  afterAll(() => s?.stop());

  /** Ids, addresses, hashes and numbers differ from run to run; the wording may not. */
  const shape = (message: string) =>
    message
      .replace(/0x[0-9a-fA-F]+/g, '0x…')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
      .replace(/\d+/g, 'N');
  const exampleOf = (operation: string, code: string) => {
    const found = errorAnswers()
      .filter((a) => a.operation === operation)
      .flatMap((a) => a.examples)
      .find((e) => e.code === code);
    if (!found) throw new Error(`${operation} has no example for ${code}`);
    return found;
  };
  const signed = (body: unknown, path = '/sign') => {
    const raw = JSON.stringify(body);
    return api.raw('POST', `${base}${path}`, { raw, headers: { 'x-vault-auth-signature': createAuthSignature(Buffer.from(raw), SECRET, new Date()) } });
  };
  const expectExample = (operation: string, reply: Reply) => {
    const example = exampleOf(operation, reply.body.code);
    expect(reply.body.success).toBe(false);
    expect(shape(reply.body.error), `${operation} ${reply.body.code}`).toBe(shape(example.error));
  };

  it('for every code a test can provoke, on the operations that answer it', async () => {
    const wallet = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data as { address: string };
    const missing = EXAMPLES.wallet.address;
    const provoked: Array<[string, Reply]> = [
      ['createWallet', await api.post(`${base}/wallets`, { name: 5 })],
      ['createWallet', await api.raw('POST', `${base}/wallets`, { raw: '{"name":' })],
      ['createWallet', await api.post(`${base}/wallets`, { name: 'x'.repeat(1024 * 1024 + 1) })],
      ['listWallets', await client(s.url, `wv_ffffffffffffffff_${'A'.repeat(43)}`).get(`${base}/wallets`)],
      ['listWallets', await api.get(`/api/v1/vaults/%/wallets`)],
      ['listWallets', await api.raw('PATCH', `${base}/wallets`)],
      ['getWallet', await api.get(`${base}/wallets/${missing}`)],
      ['getSubmission', await api.get(`${base}/submissions/${EXAMPLES.signResult.submissionHash}`)],
      ['sign', await api.post(`${base}/sign`, localSignBody(wallet.address))],
      ['sign', await signed(localSignBody(missing))],
    ];
    await api.post(`${base}/wallets`, { name: 'a' }, { 'idempotency-key': 'example-1' });
    provoked.push(['createWallet', await api.post(`${base}/wallets`, { name: 'b' }, { 'idempotency-key': 'example-1' })]);
    const policies = s.server.container.get(ManagePolicies);
    await policies.set(vaultId, { senders: [MINT_TO] });
    provoked.push(['sign', await signed(localSignBody(wallet.address))]);
    await policies.clear(vaultId);
    // Standard signing: the example wallet is not one of this vault's; the policy allows other domains and recipients.
    const at = (address: string, operation: string) => `/wallets/${address}/${operation}`;
    provoked.push(['signMessage', await signed({ message: 5 }, at(wallet.address, 'sign-message'))]);
    provoked.push(['signMessage', await signed(EXAMPLES.signMessageRequest, at(EXAMPLES.standardSigner, 'sign-message'))]);
    provoked.push(['signMessage', await signed(EXAMPLES.signMessageRequest, at(wallet.address, 'sign-message'))]);
    provoked.push(['signTypedData', await signed({ ...EXAMPLES.signTypedDataRequest, primaryType: 'Mail' }, at(wallet.address, 'sign-typed-data'))]);
    provoked.push(['signTransaction', await signed({ ...EXAMPLES.signTransactionRequest, chainId: undefined }, at(wallet.address, 'sign-transaction'))]);
    await policies.set(vaultId, { typedDataContracts: [`1:${MINT_TO}`], txChainIds: ['1'], txTo: [MINT_TO] });
    provoked.push(['signTypedData', await signed(EXAMPLES.signTypedDataRequest, at(wallet.address, 'sign-typed-data'))]);
    provoked.push(['signTransaction', await signed(EXAMPLES.signTransactionRequest, at(wallet.address, 'sign-transaction'))]);
    await policies.clear(vaultId);
    const { submissionHash } = (await signed(localSignBody(wallet.address))).body.data as { submissionHash: string };
    await api.post(`${base}/submissions`, { submissionHash, transactionHash: `0x${'c4'.repeat(32)}` });
    provoked.push(['recordSubmission', await api.post(`${base}/submissions`, { submissionHash, transactionHash: `0x${'d5'.repeat(32)}` })]);
    const reader = await s.server.vault.manageVaults.createApiKey(vaultId, { roles: ['reader'] });
    provoked.push(['sign', await client(s.url, reader.apiKey).post(`${base}/sign`, localSignBody(wallet.address))]);
    const elsewhere = await s.server.vault.manageVaults.createApiKey(vaultId, { allowCidrs: parseCidrs('198.51.100.0/24') });
    provoked.push(['status', await client(s.url, elsewhere.apiKey).get(`${base}/status`)]);
    // The dry run refuses what the route of the kind refuses: a malformed body, an unknown wallet.
    provoked.push(['evaluatePolicy', await api.post(`${base}/policy/evaluate`, { kind: 'signature', request: {} })]);
    provoked.push(['evaluatePolicy', await api.raw('POST', `${base}/policy/evaluate`, { raw: '{"kind":' })]);
    provoked.push(['evaluatePolicy', await api.post(`${base}/policy/evaluate`, { kind: 'message', wallet: 'x'.repeat(1024 * 1024 + 1), request: {} })]);
    provoked.push(['evaluatePolicy', await api.post(`${base}/policy/evaluate`, { kind: 'message', wallet: missing, request: EXAMPLES.signMessageRequest })]);

    for (const [operation, reply] of provoked) expectExample(operation, reply);
    expect(provoked.map(([operation, r]) => `${operation} ${r.body.code}`)).toEqual([
      'createWallet INVALID_ARGUMENT',
      'createWallet MALFORMED_JSON',
      'createWallet PAYLOAD_TOO_LARGE',
      'listWallets UNAUTHENTICATED',
      'listWallets ROUTE_NOT_FOUND',
      'listWallets METHOD_NOT_ALLOWED',
      'getWallet WALLET_NOT_FOUND',
      'getSubmission SUBMISSION_NOT_FOUND',
      'sign UNAUTHENTICATED',
      'sign WALLET_NOT_FOUND',
      'createWallet IDEMPOTENCY_CONFLICT',
      'sign POLICY_DENIED',
      'signMessage INVALID_ARGUMENT',
      'signMessage WALLET_NOT_FOUND',
      'signMessage POLICY_DENIED',
      'signTypedData INVALID_ARGUMENT',
      'signTransaction INVALID_ARGUMENT',
      'signTypedData POLICY_DENIED',
      'signTransaction POLICY_DENIED',
      'recordSubmission CONFLICT',
      'sign ROLE_REQUIRED',
      'status FORBIDDEN_NETWORK',
      'evaluatePolicy INVALID_ARGUMENT',
      'evaluatePolicy MALFORMED_JSON',
      'evaluatePolicy PAYLOAD_TOO_LARGE',
      'evaluatePolicy WALLET_NOT_FOUND',
    ]);
  });

  it('for headers over the limit, which node refuses before any route', async () => {
    const url = new URL(`${s.url}${base}/wallets`);
    const body = await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, headers: { 'x-padding': 'p'.repeat(20_000) } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    expectExample('listWallets', { status: 431, headers: new Headers(), body: JSON.parse(body) });
  });
});

describe('GET /openapi.json and GET /docs', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s?.stop());

  it('serves the document without authentication', async () => {
    const res = await fetch(`${s.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('serves the reference page with a strict Content-Security-Policy and only the files it needs', async () => {
    const page = await fetch(`${s.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe');
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).not.toMatch(/<script>|https?:\/\//);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) {
      expect((await fetch(`${s.url}/docs/assets/${asset}`)).status, asset).toBe(200);
    }
    // Nothing else of swagger-ui-dist (its sample initializer points at a public petstore).
    for (const other of ['swagger-initializer.js', 'index.html', '..%2Fpackage.json']) {
      expect((await fetch(`${s.url}/docs/assets/${other}`)).status, other).toBe(404);
    }
  });

  it('VAULT_API_DOCS=false turns the page off and keeps the document', async () => {
    const off = await startTestServer({ env: { VAULT_API_DOCS: 'false' } });
    try {
      expect((await fetch(`${off.url}/docs`)).status).toBe(404);
      expect((await fetch(`${off.url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(404);
      expect((await fetch(`${off.url}/openapi.json`)).status).toBe(200);
    } finally {
      await off.stop();
    }
  });
});
