import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import {
  enveloped,
  errorEnvelopeSchema,
  signResultSchema,
  approvalPageSchema,
  approvalRequestedSchema,
  approvalSchema,
  freezeResultSchema,
  governanceSchema,
  proposalPageSchema,
  proposalSchema,
  signatureStructSchema,
  submissionSchema,
  vaultStatusSchema,
  walletPageSchema,
  walletSchema,
  RESULT_SCHEMAS,
} from '../response-schemas.js';
import {
  approvalListSchema,
  freezeBodySchema,
  listQuerySchema,
  proposalVoteBodySchema,
  createWalletBodySchema,
  nameBodySchema,
  signBodySchema,
  submissionBodySchema,
  voteBodySchema,
} from '../schemas.js';
import type { ApiKeyRole } from '../../../src/domain/api-key-access.js';
import type { ErrorCode } from '../../../src/domain/errors.js';
import { SIGNING_KIND_NAMES } from '../../../src/domain/signing/kinds/registered-signing-kinds.js';
import { STATUS_BY_CODE } from '../error-status.js';
import { VAULT_ROUTE_PREFIX, VAULT_ROUTES, type VaultRoute } from '../routes.js';
import { adminPaths } from './admin-operations.js';
import { signInPaths } from './sign-in-operations.js';
import { ERROR_EXAMPLES, ERROR_EXAMPLES_BY_OPERATION, EXAMPLES } from './examples.js';
import { STANDARD_KIND_DOCUMENTS, STANDARD_KINDS } from './standard-kind-documents.js';
import { ERROR_CODES_BY_OPERATION, WRONG_METHOD_CODE, type OperationWithErrors } from './operation-codes.js';

const evaluatePolicyBodySchema = z
  .object({
    kind: z.enum(SIGNING_KIND_NAMES).meta({ description: 'The kind of signature asked.' }),
    wallet: z.string().optional().meta({ description: "The signing wallet's address (every kind but `call`, whose signer is in its request)." }),
    request: z.unknown().meta({ description: "The body of that kind's route." }),
  })
  .strict();
const policyVerdictSchema = z.object({
  decision: z.enum(['allow', 'deny', 'hold']),
  rule: z.string().nullable().meta({ description: 'The deciding rule id; null when none matched (refused) or the vault has no policy document.' }),
  message: z.string(),
});
const jsonRpcCallSchema = z
  .looseObject({ jsonrpc: z.unknown().optional(), id: z.unknown().optional(), method: z.unknown().optional(), params: z.unknown().optional() })
  .meta({ description: 'A JSON-RPC 2.0 call: `jsonrpc: "2.0"`, `id`, `method`, `params` (an array). An object that is not one is answered with error -32600.' });
const jsonRpcBodySchema = z.union([
  jsonRpcCallSchema,
  z.array(z.unknown()).min(1).max(10).meta({ description: 'A batch of up to 10 calls; an entry that is not a JSON-RPC 2.0 call is answered in its place with error -32600.' }),
]);
const jsonRpcAnswerOneSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
});
const jsonRpcAnswerSchema = z.union([jsonRpcAnswerOneSchema, z.array(jsonRpcAnswerOneSchema)]);

/*
 * The API's published contract (OpenAPI 3.1), rendered from the zod schemas the server parses requests
 * with and types its answers by. Served at GET /openapi.json and shipped as openapi.json in the package
 * (npm run openapi writes it; a test holds the file to this function).
 */

const ERROR_WHEN: Record<number, string> = {
  400: 'The body is not JSON, not an object or not `application/json`; a field is missing, of the wrong type or out of range (the message names it); the request is not well-formed HTTP.',
  401: 'API key missing, malformed, unknown, revoked or of another vault; unknown vault. On Sign and the standard signing operations also: `X-Vault-Auth-Signature` missing where required, invalid, stale, replayed, or sent where no secret is configured.',
  403: "The API key lacks the operation's role (`ROLE_REQUIRED`), or is bound to networks the client address is not in (`FORBIDDEN_NETWORK`); on Sign and the standard signing operations also: a request outside the vault's sign policy (for messages, typed data and transactions deny by default), the message naming the rule.",
  404: 'Wallet, signer or submission not in this vault (including after a wallet expired); unknown route.',
  405: "The path exists but does not serve the request's method (`Allow` lists those it does); answered to anyone, before authentication.",
  408: 'The request head or body did not arrive in time.',
  409: 'Conflict: an `Idempotency-Key` reused with another body, a different transaction already recorded, or a concurrent change that exhausted its retries.',
  413: 'The body is larger than `VAULT_BODY_LIMIT_BYTES` (1 MiB by default).',
  429: "The API key used up its `VAULT_RATE_LIMIT_PER_MINUTE`, or the client address its `VAULT_ADDRESS_RATE_LIMIT_PER_MINUTE` (`RATE_LIMITED`); or a sign would go over one of the vault's sign limits per window, counted across all instances (`SIGN_LIMIT_REACHED`); `Retry-After` says when to try again.",
  422: 'The transaction was simulated on its chain before signing (`eth_call` from the wallet at the pending block) and reverts (`SIMULATION_REVERTED`): the message has the decoded revert reason; nothing was signed.',
  431: 'Request line and headers larger than `VAULT_MAX_HEADER_BYTES`; the connection is closed.',
  500: 'Unexpected; the message is only `internal error (request id …)`.',
  502: "A chain RPC failed, timed out or reports another chain id, or a chain's several RPCs disagree on `uniq()`/`signer()`; the message names the chain, and the RPC at fault or what each answered. On the JSON-RPC endpoint, a chain RPC's answer over the relay's byte cap (`RPC_ANSWER_TOO_LARGE`) is the `data.code` of that call's JSON-RPC error inside the 200, not this status.",
  503: 'The key store or database failed or did not answer in time, or every database connection is busy and `VAULT_DATABASE_MAX_WAITING` requests already wait for one; the message names which. `Retry-After` says when to try again.',
};

const requestIdHeader = z
  .string()
  .meta({ description: 'The id of this request, on every log line written while serving it: the caller\'s own `X-Request-Id` when it was 8 to 128 characters of `A-Z a-z 0-9 . _ : -`, else a fresh UUID.' });
const responseHeaders = z.object({ 'X-Request-Id': requestIdHeader });
/** RFC 6750: the challenge of every 401. */
const wwwAuthenticate = z
  .string()
  .regex(/^Bearer realm="wallet-vault"(, error="invalid_token")?$/)
  .meta({ description: 'Always `Bearer realm="wallet-vault"`; with `, error="invalid_token"` when a Bearer token was presented and refused (none when no token was, RFC 6750 §3.1).' });

/**
 * Every path's answer to a method it does not serve, whatever the method and the caller: listed as 405 on
 * each operation (OpenAPI has no place for the methods a path lacks), one shared response.
 */
const methodNotAllowed: ZodOpenApiResponseObject = {
  id: 'MethodNotAllowed',
  description: `Not this operation's answer but its path's: any method the path does not serve. ${ERROR_WHEN[405]!} No body is read. Code: \`${WRONG_METHOD_CODE}\`.`,
  headers: responseHeaders.extend({
    Allow: z.string().regex(/^[A-Z]+(, [A-Z]+)*$/).meta({ description: 'The methods the path serves, sorted, comma-separated (HEAD wherever GET is).' }),
  }),
  content: {
    'application/json': {
      schema: errorEnvelopeSchema.extend({ code: z.enum([WRONG_METHOD_CODE]).meta({ description: 'Stable across releases; what a program acts on.' }) }),
      examples: { [WRONG_METHOD_CODE]: { summary: WRONG_METHOD_CODE, value: { success: false, error: ERROR_EXAMPLES[WRONG_METHOD_CODE], code: WRONG_METHOD_CODE } } },
    },
  },
};

/** Adds the shared 405 to every operation of `paths`. */
function withMethodNotAllowed(paths: Record<string, Partial<Record<'get' | 'put' | 'post' | 'delete', ZodOpenApiOperationObject>>>): ZodOpenApiPathsObject {
  for (const item of Object.values(paths)) for (const operation of Object.values(item)) operation.responses = { ...operation.responses, '405': methodNotAllowed };
  return paths;
}

/**
 * The error answers of one operation, one per status its codes map to (STATUS_BY_CODE): the body's
 * `code` is one of the codes of that status the operation lists (operation-codes.ts), with an example
 * message of each.
 */
function errorResponses(operation: OperationWithErrors): Record<string, ZodOpenApiResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set<ErrorCode>(ERROR_CODES_BY_OPERATION[operation])) {
    const status = STATUS_BY_CODE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const all: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) all[String(status)] = errorBody(operation, status, codes.sort());
  return all;
}

/**
 * Shared as components (`#/components/responses/Error404_ROUTE_NOT_FOUND_WALLET_NOT_FOUND`): most
 * operations answer a status with the same codes. An operation that words a code its own way gets its own.
 */
const sharedErrorResponses = new Map<string, ZodOpenApiResponseObject>();
function errorBody(operation: OperationWithErrors, status: number, codes: readonly ErrorCode[]): ZodOpenApiResponseObject {
  const own = codes.some((code) => ERROR_EXAMPLES_BY_OPERATION[operation]?.[code] !== undefined);
  const id = `${own ? `${operation}_` : ''}Error${status}_${codes.join('_')}`;
  let response = sharedErrorResponses.get(id);
  if (!response) {
    response = { id, ...errorResponse(operation, status, codes) };
    sharedErrorResponses.set(id, response);
  }
  return response;
}

function errorResponse(operation: OperationWithErrors, status: number, codes: readonly ErrorCode[]): ZodOpenApiResponseObject {
  const schema = errorEnvelopeSchema.extend({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]).meta({ description: 'Stable across releases; what a program acts on.' }) });
  const examples = Object.fromEntries(
    codes.map((code) => [code, { summary: code, value: { success: false, error: ERROR_EXAMPLES_BY_OPERATION[operation]?.[code] ?? ERROR_EXAMPLES[code], code } }]),
  );
  return {
    description: `${ERROR_WHEN[status]!} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers:
      status === 401
        ? responseHeaders.extend({ 'WWW-Authenticate': wwwAuthenticate })
        : status === 429
        ? responseHeaders.extend({ 'Retry-After': z.string().regex(/^\d+$/).meta({ description: 'Seconds until one more request is allowed.' }) })
        : status === 503
          ? responseHeaders.extend({ 'Retry-After': z.string().regex(/^\d+$/).meta({ description: 'Seconds to wait before trying again: the dependency is away, or every database connection is busy.' }) })
          : responseHeaders,
    content: { 'application/json': { schema, examples } },
  };
}

function responses(operation: OperationWithErrors, ok: ZodOpenApiResponseObject): Record<`${1 | 2 | 3 | 4 | 5}${string}`, ZodOpenApiResponseObject> {
  return { '200': ok, ...errorResponses(operation) };
}

const json = (schema: z.ZodType, description: string, example?: unknown): ZodOpenApiResponseObject => ({
  description,
  headers: responseHeaders,
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
});
const ok = (data: z.ZodType, description: string, example?: unknown) =>
  json(enveloped(data), description, example === undefined ? undefined : { success: true, data: example });

const jsonBody = (schema: z.ZodType, example: unknown) => ({
  required: true,
  content: { 'application/json': { schema, example } },
});

/** A vote's optional body: a key without credential sends none. */
const voteBody = {
  required: false,
  content: { 'application/json': { schema: voteBodySchema, example: { signature: EXAMPLES.approval.votes[0].signature } } },
};

const vaultId = z.string().meta({ description: 'The vault (a UUID; other text names no vault: 401 as an unknown vault). `/api/v1/vault/{vaultId}/…` (singular) is an alias of every path below.' });
const address = z.string().meta({ description: 'The wallet address, any case.', example: EXAMPLES.wallet.address });
const approvalId = z.string().meta({ description: 'The `id` of an approval (Sign answered it with 202).', example: EXAMPLES.approval.id });
const proposalId = z.string().meta({ description: 'The `id` of a proposal (a policy edit of a governed vault answered it).', example: EXAMPLES.proposal.id });
const submissionHash = z.string().meta({ description: 'A `submissionHash` returned by Sign.', example: EXAMPLES.signResult.submissionHash });
/**
 * Sign-message, sign-typed-data and sign-transaction: a wallet of the vault signs a standard payload
 * under the vault's policy (deny by default), with Sign's authentication and `X-Vault-Auth-Signature`.
 */
const standardSignOp = (
  operationId: OperationWithErrors,
  summary: string,
  description: string,
  request: { schema: z.ZodType; example: unknown },
  result: { schema: z.ZodType; description: string; example: unknown },
  held: unknown,
): VaultOperation => ({
  operationId,
  summary,
  description: `${description} Refused (403 \`POLICY_DENIED\`, naming the rule, and recorded as \`sign.denied\`) unless the vault's policy allows it; held (202 with the approval) when a hold rule matches it, and signed when its quorum approves (docs/policy.md). See docs/standard-signing.md. The signature is recorded in the audit trail before it is returned. \`X-Vault-Auth-Signature\` as on Sign.`,
  tags: ['Standard signing'],
  security: [{ apiKey: [], authSignature: [] }, { apiKey: [] }],
  requestParams: {
    ...withIdempotencyKey(
      'Binds a request a hold rule holds (202) to this key, per vault, as on Sign: repeating the request with the same key and body answers the approval as it stands (pending: 202; approved: 200 with the result; rejected or expired: 403 `APPROVAL_REJECTED`/`APPROVAL_EXPIRED`); another body is 409 `IDEMPOTENCY_CONFLICT`. A request no rule holds is signed anew each time.',
    ),
    path: z.object({ vaultId, address: standardAddress }),
  },
  requestBody: jsonBody(request.schema, request.example),
  responses: {
    ...responses(operationId, ok(result.schema, result.description, result.example)),
    '202': json(
      enveloped(approvalRequestedSchema),
      "Held: a hold rule of the vault's policy matched, so nothing is signed until its quorum of approver keys approves (`POST …/approvals/{approvalId}/approve`); the approve that completes it signs, and `GET …/approvals/{approvalId}` then has the result. The request is stored whole, as given.",
      { success: true, data: held },
    ),
  },
});
const standardAddress = z.string().meta({ description: 'The signing wallet, a wallet of this vault (any case).', example: EXAMPLES.standardSigner });

const requestIdParam = z
  .string()
  .optional()
  .meta({ description: 'Your own id for this request (8 to 128 characters of `A-Z a-z 0-9 . _ : -`); any other value is replaced by a fresh UUID.' });

/** A vault operation's parameters with the optional `Idempotency-Key` header, meaning `description` there. */
const withIdempotencyKey = (description: string) => ({
  ...inVault(),
  header: z.object({ 'X-Request-Id': requestIdParam, 'Idempotency-Key': z.string().min(1).max(255).optional().meta({ description }) }),
});

const inVault = (path: Record<string, z.ZodType> = {}) => ({
  path: z.object({ vaultId, ...path }),
  header: z.object({ 'X-Request-Id': requestIdParam }),
});

const walletOp = (
  operationId: OperationWithErrors,
  summary: string,
  description: string,
  withAddress: boolean,
  body: boolean,
  extra: Partial<Omit<ZodOpenApiOperationObject, 'operationId'>> = {},
): VaultOperation => ({
  operationId,
  summary,
  description,
  tags: ['Wallets'],
  requestParams: inVault(withAddress ? { address } : {}),
  ...(body ? { requestBody: jsonBody(nameBodySchema, { name: 'treasury' }) } : {}),
  responses: responses(operationId, ok(walletSchema, 'The wallet.', EXAMPLES.wallet)),
  ...extra,
});

export interface OpenApiOptions {
  /** The document's `info.version`; default: the package version. */
  readonly version?: string;
}

/** Each vault route by its operation (routes.ts): the one place its method, path and role are written. */
const ROUTE_OF_OPERATION: ReadonlyMap<string, VaultRoute> = new Map(VAULT_ROUTES.map((route) => [route.operationId, route]));

/** `/wallets/:address` as OpenAPI writes it: `/api/v1/vaults/{vaultId}/wallets/{address}`. */
const openApiPath = (path: string) => `${VAULT_ROUTE_PREFIX}${path}`.replace(/:(\w+)/g, '{$1}');

type VaultOperation = ZodOpenApiOperationObject & { operationId: OperationWithErrors };

/**
 * The vault operations under the path and method of their route, in the order given (the document's).
 * A route without an operation, or an operation without a route, is a mistake this refuses.
 */
function vaultPaths(operations: readonly VaultOperation[]): Record<string, Partial<Record<'get' | 'put' | 'post' | 'delete', ZodOpenApiOperationObject>>> {
  const paths: Record<string, Partial<Record<'get' | 'put' | 'post' | 'delete', ZodOpenApiOperationObject>>> = {};
  for (const operation of operations) {
    const route = ROUTE_OF_OPERATION.get(operation.operationId);
    if (route === undefined) throw new Error(`OpenAPI operation ${operation.operationId}: no route of routes.ts has this operationId`);
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete'] = operation;
  }
  const missing = VAULT_ROUTES.find((route) => !operations.some((operation) => operation.operationId === route.operationId));
  if (missing !== undefined) throw new Error(`route ${missing.method} ${missing.path}: no OpenAPI operation ${missing.operationId}`);
  return paths;
}

type Operation = { operationId?: string; description?: string; security?: Record<string, string[]>[]; 'x-required-role'?: ApiKeyRole | ApiKeyRole[] };

/**
 * Writes each vault operation's role, as its route declares it, into its security requirement (OpenAPI 3.1
 * lets a non-OAuth scheme list the roles an operation needs), `x-required-role` and description.
 */
function withRoles(document: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      const role = operation.operationId === undefined ? undefined : ROUTE_OF_OPERATION.get(operation.operationId)?.role;
      if (role === undefined) continue;
      // A list means any one of them: one security requirement per role (requirements are alternatives).
      const roles = typeof role === 'string' ? [role] : [...role];
      operation.security = (operation.security ?? [{ apiKey: [] }]).flatMap((requirement) => roles.map((r) => ({ ...requirement, apiKey: [r] })));
      operation['x-required-role'] = typeof role === 'string' ? role : roles;
      const note =
        typeof role === 'string'
          ? `Needs an API key with the role \`${role}\` (else 403 \`ROLE_REQUIRED\`).`
          : `Needs an API key with one of the roles ${roles.map((r) => `\`${r}\``).join(', ')} (else 403 \`ROLE_REQUIRED\`).`;
      operation.description = operation.description === undefined ? note : `${operation.description} ${note}`;
    }
  }
  return document;
}

/** A JWKS of Ed25519 keys (RFC 7517, keys as RFC 8037 OKP): the webhook and the audit checkpoint keys. */
const ED25519_KEY_SET = z.object({
  keys: z.array(
    z.object({
      kty: z.literal('OKP'),
      crv: z.literal('Ed25519'),
      x: z.string().meta({ description: 'The public key, base64url.' }),
      kid: z.string().meta({ description: 'The RFC 7638 thumbprint of the key (base64url of SHA-256).' }),
      use: z.literal('sig'),
      alg: z.literal('EdDSA'),
    }),
  ),
});

export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  return withRoles(documentWithoutRoles(options));
}

function documentWithoutRoles(options: OpenApiOptions): OpenApiDocument {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'wallet-vault',
      version: options.version ?? packageVersion(),
      description: [
        'A self-hostable key vault and signing service for Ethereum wallets.',
        '',
        'Every answer but `/status`, the health checks and `/metrics` is `{"success": true, "data": …}` or `{"success": false, "error": "…", "code": "…"}`. `code` is stable across releases: each error answer of each operation lists the codes it can carry.',
        'Every path under `/api/v1/vaults/{vaultId}` also answers under `/api/v1/vault/{vaultId}` (singular). A known path asked with a method it does not serve is 405 `METHOD_NOT_ALLOWED` with `Allow`, to anyone (before authentication); an unknown path is 404 `ROUTE_NOT_FOUND`. Every 401 carries `WWW-Authenticate: Bearer realm=\"wallet-vault\"`.',
        'See docs/api.md for every choice where the interface is silent, and docs/signing.md for the signing scheme and `X-Vault-Auth-Signature`.',
      ].join('\n'),
    },
    tags: [
      { name: 'Sign', description: 'Signatures for signable contracts, and the record of the transactions that carried them.' },
      { name: 'Standard signing', description: 'EIP-191 messages, EIP-712 typed data and transactions signed by a wallet, under the vault policy (deny by default).' },
      { name: 'Policy', description: "The vault's one policy document: what it would decide for a request (the dry run)." },
      { name: 'Approvals', description: "Signs an approval rule of the vault's policy holds until a quorum of approver keys approves them." },
      { name: 'Governance', description: "A governed vault's changes take effect only when M approvers have signed them (EIP-712); a freeze stops every signature at once (docs/governance.md)." },
      { name: 'Wallets' },
      { name: 'Vault' },
      { name: 'Operations', description: 'Unauthenticated: health, readiness, metrics, this document.' },
      { name: 'Webhooks', description: 'Unauthenticated: the public key that signs webhook deliveries (docs/webhooks.md).' },
      { name: 'Admin', description: "What the operator commands do, for named operators: an operator's credential, its roles and vault scope (docs/operators.md)." },
    ],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key of the vault in the path (`wallet-vault api-keys create`). A key of another vault is 401. Each operation names the role its key must hold (`admin`, `signer`, `reader`, `approver`; a list means any one of them): a key without it is 403 `ROLE_REQUIRED`. A key bound to networks (`--allow-cidrs`) used from any other client address is 403 `FORBIDDEN_NETWORK`.',
        },
        operatorCredential: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A named operator's credential (`wvop_…`, `wallet-vault operators create`), or, with `VAULT_OIDC_ISSUER`, an ID token of the company's OpenID Connect provider (`GET /api/v1/admin/sign-in`; signature, issuer, audience and expiry checked; its `VAULT_OIDC_OPERATOR_CLAIM` claim names the operator). Each admin operation lists the operator roles that may call it (`vault-admin`, `key-admin`, `auditor`); an operator without one, or acting on a vault outside its scope, is 403 `ROLE_REQUIRED`. Unknown, malformed or revoked: 401.",
        },
        operatorToken: {
          type: 'http',
          scheme: 'bearer',
          description: "The server's `VAULT_METRICS_TOKEN`, when set: required on `/metrics`; on `/readyz` it shows why a dependency is not ready.",
        },
        authSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Vault-Auth-Signature',
          description:
            'Required on Sign, sign-message, sign-typed-data and sign-transaction when the server has `VAULT_AUTH_SECRET_KEY`, refused (401) otherwise. Three lower-case RFC 4648 base32 strings with `=` padding joined by `.`: 32 random bytes of nonce, the request time as 8-byte big-endian milliseconds since the epoch, and sha256(body || nonce || timestamp || utf8(secret)) over the exact body bytes. Refused when more than 2 minutes from the server clock or replayed.',
        },
      },
      schemas: { SignatureStruct: signatureStructSchema, Error: errorEnvelopeSchema },
    },
    paths: withMethodNotAllowed({
      ...vaultPaths([
        {
          operationId: 'sign',
          summary: 'Sign a contract call',
          description:
            "Signs `keccak256(abi.encode(uniq, nonce, sender, abi.encode(selector, ...args)))` with the wallet that is the contract's `signer()`, records it under its `submissionHash`, and answers the argument list of the on-chain call. Retrying a Sign answered 502 or 503 is safe (nothing was signed); each attempt needs a fresh `X-Vault-Auth-Signature`.",
          tags: ['Sign'],
          security: [{ apiKey: [], authSignature: [] }, { apiKey: [] }],
          requestBody: jsonBody(signBodySchema, EXAMPLES.signRequest),
          requestParams: withIdempotencyKey(
            'Binds a sign an approval rule holds (202) to this key, per vault: repeating the request with the same key and body answers the approval as it stands (pending: 202; approved: 200 with the Sign result; rejected or expired: 403 `APPROVAL_REJECTED`/`APPROVAL_EXPIRED`); another body is 409 `IDEMPOTENCY_CONFLICT`. A sign no rule holds is signed anew each time (each signature is single-use, with a fresh nonce).',
          ),
          responses: {
            ...responses('sign', ok(signResultSchema, 'The signature, inside the arguments of the call.', EXAMPLES.signResult)),
            '202': json(
              enveloped(approvalRequestedSchema),
              "Held: an approval rule of the vault's policy matched, so nothing is signed until its quorum of approver keys approves (`GET …/approvals/{approvalId}`). The request is stored whole, as asked.",
              { success: true, data: EXAMPLES.approvalRequested },
            ),
          },
        },
        {
          operationId: 'listApprovals',
          summary: 'List approvals',
          description: 'Signs held for a quorum, ordered by `created` ascending, then `id`; `?status=pending` for those awaiting votes.',
          tags: ['Approvals'],
          requestParams: { ...inVault(), query: approvalListSchema },
          responses: responses('listApprovals', ok(approvalPageSchema, 'One page, and the total.', EXAMPLES.approvalPage)),
        },
        {
          operationId: 'getApproval',
          summary: 'Get an approval',
          description: 'What is asked (the Sign fields as asked, the function and its decoded arguments), the votes, and once approved the Sign result.',
          tags: ['Approvals'],
          requestParams: inVault({ approvalId }),
          responses: responses('getApproval', ok(approvalSchema, 'The approval.', EXAMPLES.approval)),
        },
        {
          operationId: 'approveApproval',
          summary: 'Approve a held sign',
          description:
            "One vote per key; the requester's own key can never vote (403 `APPROVAL_SELF_VOTE`), a key outside the rule's group neither (403 `APPROVER_NOT_IN_GROUP`). A key with an approver address votes with `{\"signature\"}`, its EIP-712 `Decision` (403 `APPROVAL_SIGNATURE_INVALID` when missing or wrong); a key without one may send no body. The approve that completes the quorum makes the signature (a fresh nonce; uniq and signer read now; the policy and sign limits checked now), after verifying every counted vote's signature again against the stored request, and answers the approval with its `result`. Should that fail (a chain RPC, the key store, a limit), the approval stays pending with its votes and another approve call, also by a key that already voted, retries it; votes whose signature no longer verifies count for nothing (the approval stays pending, `approval.vote-invalid` on record).",
          tags: ['Approvals'],
          requestParams: inVault({ approvalId }),
          requestBody: voteBody,
          responses: responses('approveApproval', ok(approvalSchema, 'The approval after the vote (approved, with `result`, when this vote completed the quorum).', EXAMPLES.approvedApproval)),
        },
        {
          operationId: 'rejectApproval',
          summary: 'Reject a held sign',
          description: 'One reject ends the request: it is never signed. The same refusals as approve; the signature is the `Decision` with `decision` `reject`.',
          tags: ['Approvals'],
          requestParams: inVault({ approvalId }),
          requestBody: voteBody,
          responses: responses('rejectApproval', ok(approvalSchema, 'The approval, rejected.', { ...EXAMPLES.approval, status: 'rejected', decided: EXAMPLES.approval.votes[0].at, votes: [{ ...EXAMPLES.approval.votes[0], vote: 'reject' }] })),
        },
        {
          operationId: 'getGovernance',
          summary: "The vault's governance",
          description:
            'The state in force (policy, approvers, M, delay, freezes lifted), its hash, the genesis hash and the pin line for `VAULT_GOVERNANCE_PINS`, whether this instance pins it, whether the vault is frozen, and why its governance does not verify when it does not (it then signs nothing). A vault that is not governed answers `governed: false`.',
          tags: ['Governance'],
          requestParams: inVault(),
          responses: responses('getGovernance', ok(governanceSchema, 'The governance of the vault.', EXAMPLES.governance)),
        },
        {
          operationId: 'listProposals',
          summary: 'List proposals',
          description: 'Every proposed change of a governed vault, oldest first, each with its diff and what to sign; none for a vault that is not governed.',
          tags: ['Governance'],
          requestParams: inVault(),
          responses: responses('listProposals', ok(proposalPageSchema, 'Every proposal, and how many.', { count: 1, page: [EXAMPLES.proposal] })),
        },
        {
          operationId: 'getProposal',
          summary: 'Get a proposal',
          description: 'What it changes (`diff`, the whole new `state`), who signed it, when it takes effect, and the typed data to sign to approve (`typedData`) or reject (`rejectTypedData`) it.',
          tags: ['Governance'],
          requestParams: inVault({ proposalId }),
          responses: responses('getProposal', ok(proposalSchema, 'The proposal.', EXAMPLES.proposal)),
        },
        {
          operationId: 'approveProposal',
          summary: 'Approve a proposal (signed)',
          description:
            "`signature` is the approver's EIP-712 signature of the proposal's `typedData`: `PolicyChange(string vault,string proposal,bytes32 document)`, domain `{name: \"wallet-vault\", version: \"1\"}` (docs/governance.md#the-governed-state). It counts once per address, only when it recovers to an approver of the state in force; missing or wrong: 403 `APPROVAL_SIGNATURE_INVALID`. The proposal is in force once M approvers signed and the delay passed since the M-th signature: at once when this signature completes the quorum with no delay, else on any instance's next load (within 5 s). The API key only authenticates the call.",
          tags: ['Governance'],
          requestParams: inVault({ proposalId }),
          requestBody: jsonBody(proposalVoteBodySchema, { signature: EXAMPLES.proposalSignature }),
          responses: responses('approveProposal', ok(proposalSchema, 'The proposal after the signature (`applied` when it completed the quorum with no delay).', EXAMPLES.proposal)),
        },
        {
          operationId: 'rejectProposal',
          summary: 'Reject a proposal (signed)',
          description:
            "`signature` is the approver's EIP-712 signature of the proposal's `rejectTypedData`: `Decision(string vault,string approval,bytes32 request,string decision)` with `approval` the proposal id, `request` its `documentHash` and `decision` `reject`: another message than the approve, so an approve signature is never a reject. One signed reject of an approver of the state in force closes the proposal (`rejected`). The same refusals as approve.",
          tags: ['Governance'],
          requestParams: inVault({ proposalId }),
          requestBody: jsonBody(proposalVoteBodySchema, { signature: EXAMPLES.proposalRejectSignature }),
          responses: responses('rejectProposal', ok(proposalSchema, 'The proposal, rejected.', { ...EXAMPLES.proposal, status: 'rejected', decided: EXAMPLES.proposal.created, rejectedBy: EXAMPLES.proposalRejecter })),
        },
        {
          operationId: 'freezeVault',
          summary: 'Freeze the vault',
          description:
            'Needs no quorum: from the next request on, on every instance, every signature of the vault is refused (403 `VAULT_FROZEN`): the signing routes, the JSON-RPC signing methods, the release of held approvals, also a signature whose key was signing when the freeze committed (its record is refused at commit, nothing of it answered); the dry run as soon as the instance knows of the freeze (on PostgreSQL within 5 s). Audited `vault.frozen`. The body is a JSON object, `{}` or with a `reason`. Lifting it is `wallet-vault governance unfreeze`: on a governed vault a proposal its quorum signs.',
          tags: ['Governance'],
          requestParams: inVault(),
          requestBody: jsonBody(freezeBodySchema, { reason: 'approver key may be stolen' }),
          responses: responses('freezeVault', ok(freezeResultSchema, 'Frozen.', { vault: EXAMPLES.governance.vault, frozen: true, freezes: 1 })),
        },
        {
          operationId: 'listWallets',
          summary: 'List wallets',
          description: 'Ordered by `created` ascending, then `id`. A parameter given twice is 400.',
          tags: ['Wallets'],
          requestParams: { ...inVault(), query: listQuerySchema },
          responses: responses('listWallets', ok(walletPageSchema, 'One page, and the total.', EXAMPLES.walletPage)),
        },
        walletOp('createWallet', 'Create a wallet', "A new key in the configured key store; with `\"derivation\": \"hd\"`, derived from the vault's HD seed at its next index.", false, true, {
          requestBody: jsonBody(createWalletBodySchema, { name: 'treasury' }),
          requestParams: withIdempotencyKey(
            'Makes a retry safe: the same key and the same JSON body within 24 hours answer the first wallet and create nothing; the same key with another body is 409. 1 to 255 characters without control characters, per vault.',
          ),
          responses: responses('createWallet', ok(walletSchema, 'The new wallet (or, for a retry with its `Idempotency-Key`, the first answer).', EXAMPLES.wallet)),
        }),
        walletOp('getWallet', 'Get a wallet', 'A wallet of this vault by address.', true, false),
        walletOp('renameWallet', 'Rename a wallet', 'Renaming to the same name changes nothing.', true, true),
        walletOp(
          'expireWallet',
          'Expire a wallet',
          'Sets `expires` to now plus 30 days; from then on the wallet and its key are gone. On an expiring wallet: unchanged.',
          true,
          false,
          { responses: responses('expireWallet', ok(walletSchema, 'The wallet with `expires`.', EXAMPLES.expiringWallet)) },
        ),
        walletOp('unexpireWallet', 'Unexpire a wallet', 'Cancels a pending expiry; on an active wallet: unchanged.', true, false),
        // One per standard kind of the registry, in its order: the kind's module states what its route does.
        ...STANDARD_KINDS.map((kind) => {
          const documented = STANDARD_KIND_DOCUMENTS[kind.name];
          return standardSignOp(
            kind.route.operationId,
            kind.route.summary,
            kind.route.description,
            { schema: documented.body, example: documented.request },
            { schema: RESULT_SCHEMAS[kind.resultSchema], description: kind.route.resultDescription, example: documented.result },
            documented.held,
          );
        }),
        {
          operationId: 'jsonRpc',
          summary: 'Ethereum JSON-RPC',
          description:
            "The vault's wallets behind Ethereum JSON-RPC 2.0, as Web3Signer's eth1 mode: `eth_accounts`, `eth_sign`, `personal_sign`, `eth_signTypedData_v4` and `eth_signTransaction` are answered by the vault under its policy; `eth_sendTransaction` fills nonce, gas and fees from the chain's RPC, signs and sends (the policy checked before any filling; a `chainId` that is not the chain's is refused, -32602); only chain reads (`eth_call`, `eth_getBalance`, `eth_getLogs`, receipts, fees, …) and `eth_sendRawTransaction` are passed to the chain's RPC (`?chain=<name>`, default: the only chain with an RPC), any other method is -32601 `ROUTE_NOT_FOUND`. A relayed answer is at most 1 MiB, a batch's together at most 4 MiB (over: -32000 `RPC_ANSWER_TOO_LARGE`). One call or a batch of up to 10. Answers are JSON-RPC objects, not the envelope: a refused call is a JSON-RPC error whose `data.code` is the vault's code. A call a hold rule of the policy holds is a JSON-RPC error -32000 whose `data` is `{code: \"APPROVAL_PENDING\", approval: {id, status, required, approvals, expires, rule}}`: nothing is signed (or sent) until its quorum approves; `GET …/approvals/{approvalId}` then has the result. `X-Vault-Auth-Signature` as on Sign. See docs/standard-signing.md#json-rpc.",
          tags: ['Standard signing'],
          security: [{ apiKey: [], authSignature: [] }, { apiKey: [] }],
          requestParams: { ...inVault(), query: z.object({ chain: z.string().optional().meta({ description: 'The chain whose RPC is used; default: the only chain with an RPC.' }) }) },
          requestBody: jsonBody(jsonRpcBodySchema, { jsonrpc: '2.0', id: 1, method: 'eth_accounts', params: [] }),
          responses: responses('jsonRpc', json(jsonRpcAnswerSchema, 'The JSON-RPC answer (or answers, for a batch).', { jsonrpc: '2.0', id: 1, result: [EXAMPLES.standardSigner] })),
        },
        {
          operationId: 'status',
          summary: 'Vault status',
          description: 'The one authenticated answer without the envelope, as the interface specifies.',
          tags: ['Vault'],
          requestParams: inVault(),
          responses: responses('status', json(vaultStatusSchema, 'The status object.', EXAMPLES.status)),
        },
        {
          operationId: 'evaluatePolicy',
          summary: "Dry run of the vault's policy",
          description:
            "What the vault's one policy would decide for a request of any kind: `request` is the body of that kind's route (Sign for `call`, sign-message, sign-typed-data, sign-transaction), read exactly as that route reads it (a call's `uniq` and `signer` from the chain where it has an RPC); `wallet` is the signing wallet (all kinds but `call`). Answers the decision, the deciding rule and why; signs nothing, records nothing, counts no limit. See docs/policy.md#dry-run.",
          tags: ['Policy'],
          requestParams: inVault(),
          requestBody: jsonBody(evaluatePolicyBodySchema, { kind: 'transaction', wallet: EXAMPLES.standardSigner, request: EXAMPLES.signTransactionRequest }),
          responses: responses(
            'evaluatePolicy',
            ok(policyVerdictSchema, 'The decision and the rule that made it (null when no rule matched).', {
              decision: 'deny',
              rule: null,
              message: "policy: no rule of this vault's policy allows this transaction (rule payouts: value 2000000000000000000 wei is over its maxValue 1000000000000000000)",
            }),
          ),
        },
        {
          operationId: 'recordSubmission',
          summary: 'Record the transaction of a signed call',
          description: 'Posting the same pair again is accepted unchanged; another `transactionHash` for the same submission is 409.',
          tags: ['Sign'],
          requestParams: inVault(),
          requestBody: jsonBody(submissionBodySchema, { submissionHash: EXAMPLES.signResult.submissionHash, transactionHash: EXAMPLES.submission.transactionHash }),
          responses: responses('recordSubmission', ok(submissionSchema, 'The record.', EXAMPLES.submission)),
        },
        {
          operationId: 'getSubmission',
          summary: 'Get the record of a signature',
          tags: ['Sign'],
          requestParams: inVault({ submissionHash }),
          responses: responses('getSubmission', ok(submissionSchema, 'The record; `transactionHash` and `submitted` are null until recorded.', EXAMPLES.submission)),
        },
      ]),
      '/healthz': {
        get: {
          operationId: 'healthz',
          summary: 'Liveness',
          tags: ['Operations'],
          security: [],
          responses: { '200': json(z.object({ status: z.literal('ok') }), 'Serving.') },
        },
      },
      '/readyz': {
        get: {
          operationId: 'readyz',
          summary: 'Readiness',
          description:
            "Each dependency (database, key stores) must answer within 2 s. A 503 names the dependency; why it failed only for a request with `VAULT_METRICS_TOKEN`. A governed vault whose state does not verify (it signs nothing, `GOVERNANCE_UNVERIFIED`) does not make the instance unready (the other vaults sign): the 200's `governance.unverified` names it, checked at most 5 s before; why (`problem`) only for a request with `VAULT_METRICS_TOKEN`.",
          tags: ['Operations'],
          security: [{}, { operatorToken: [] }],
          responses: responses(
            'readyz',
            json(
              z.object({
                status: z.literal('ready'),
                governance: z
                  .object({
                    unverified: z.array(
                      z.object({
                        vault: z.string(),
                        problem: z.string().optional().meta({ description: 'Why it does not verify; only with `VAULT_METRICS_TOKEN`.' }),
                      }),
                    ),
                  })
                  .optional()
                  .meta({ description: 'Present only when a governed vault does not verify.' }),
              }),
              'The database and key stores answer.',
            ),
          ),
        },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          summary: 'Prometheus metrics',
          description: 'Prometheus text exposition format 0.0.4 (see docs/operations.md). With `VAULT_METRICS_TOKEN` set it needs that token.',
          tags: ['Operations'],
          security: [{}, { operatorToken: [] }],
          responses: {
            '200': { description: 'The metrics.', headers: responseHeaders, content: { 'text/plain': { schema: z.string() } } },
            '401': {
              ...errorResponses('metrics')['401']!,
              description: 'The server has `VAULT_METRICS_TOKEN` and the request did not bring it. Code: `UNAUTHENTICATED`.',
              headers: responseHeaders.extend({ 'WWW-Authenticate': wwwAuthenticate }),
            },
          },
        },
      },
      ...adminPaths({ responses, ok, jsonBody }),
      ...signInPaths({ responses, ok, jsonBody }),
      '/api/v1/sys/seal-status': {
        get: {
          operationId: 'sealStatus',
          summary: 'Seal status',
          description:
            'With `VAULT_SEAL=shamir` the server starts sealed and signs nothing (503 `VAULT_SEALED`) until custodians submit `threshold` shares of the master key (`POST /api/v1/sys/unseal`). Without a seal: `{"sealed": false, "threshold": null, "progress": 0}`. No authentication. See docs/keystores.md#sealed-start.',
          tags: ['Operations'],
          security: [],
          responses: responses('sealStatus', json(SEAL_STATUS, 'The seal of this process.', { sealed: true, threshold: 2, progress: 1 })),
        },
      },
      '/api/v1/sys/unseal': {
        post: {
          operationId: 'unseal',
          summary: "Submit a custodian's share",
          description:
            'One share of the master key (the contents of a `share-<i>.json` that `wallet-vault master-key split` wrote; `wallet-vault unseal` sends it). The share is its own credential: no authentication, limited per client address, a body of at most 8 KiB. A malformed or corrupted share is 400, a share of another split than those submitted so far or one submitted twice is 409, each naming `share` and recorded (`seal.share-refused`, never the share). At the threshold the key is reconstructed in memory and checked against the key directory; a key that is not its master key unseals nothing (409) and the progress starts again. Shares are forgotten `VAULT_UNSEAL_TIMEOUT_SECONDS` (default 600) after the first. Answers the status.',
          tags: ['Operations'],
          security: [],
          requestBody: jsonBody(z.object({ share: z.union([z.string(), z.looseObject({})]).meta({ description: 'The contents of a share file (its text, or its JSON object).' }) }), { share: '{"format": "wallet-vault master key share", "version": 1, …}' }),
          responses: responses('unseal', json(SEAL_STATUS, 'The seal after this share.', { sealed: false, threshold: 2, progress: 0 })),
        },
      },
      '/api/v1/sys/seal': {
        post: {
          operationId: 'seal',
          summary: 'Seal',
          description:
            'Drops the unsealed master key from this process: every sign is 503 `VAULT_SEALED` again until custodians unseal it. Needs the operator token (`VAULT_METRICS_TOKEN`); refused when the server has none (restarting the process seals it too). 409 without `VAULT_SEAL`.',
          tags: ['Operations'],
          security: [{ operatorToken: [] }],
          responses: responses('seal', json(SEAL_STATUS, 'The seal, now sealed.', { sealed: true, threshold: 2, progress: 0 })),
        },
      },
      '/.well-known/wallet-vault-webhook-keys': {
        get: {
          operationId: 'webhookKeys',
          summary: 'Public keys of webhook deliveries',
          description:
            'A JWKS (RFC 7517, Ed25519 keys as RFC 8037 OKP) of the key(s) whose Ed25519 signatures `webhook-signature` carries (`v1a,…`, Standard Webhooks). No authentication; the same for every caller; cacheable for 5 minutes. Verify a delivery against every key of the set (docs/webhooks.md).',
          tags: ['Webhooks'],
          security: [],
          responses: responses(
            'webhookKeys',
            json(
              ED25519_KEY_SET,
              'The key set.',
              { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', use: 'sig', alg: 'EdDSA' }] },
            ),
          ),
        },
      },
      '/.well-known/wallet-vault-audit-checkpoint-keys': {
        get: {
          operationId: 'auditCheckpointKeys',
          summary: 'Public key of the signed audit checkpoints',
          description:
            'A JWKS of the Ed25519 key that signs audit checkpoints (`audit.checkpoint` webhooks, `wallet-vault audit checkpoint`); derived from the master key, so no database writer can sign one. Served where the vault writes checkpoints: elsewhere (`VAULT_SEAL=shamir`, whose master key a start does not have, or `VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS=0`) 404 `ROUTE_NOT_FOUND`. No authentication; cacheable for 5 minutes. See docs/security.md, "Audit checkpoints".',
          tags: ['Webhooks'],
          security: [],
          responses: responses('auditCheckpointKeys', json(ED25519_KEY_SET, 'The key set.', { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', use: 'sig', alg: 'EdDSA' }] })),
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          tags: ['Operations'],
          security: [],
          responses: { '200': { description: 'OpenAPI 3.1.', headers: responseHeaders, content: { 'application/json': { schema: z.looseObject({ openapi: z.string() }) } } } },
        },
      },
    }),
  });
}

export type OpenApiDocument = ReturnType<typeof createDocument>;

/** What the seal's three routes answer. */
const SEAL_STATUS = z.object({
  sealed: z.boolean(),
  threshold: z.int().nullable().meta({ description: 'Shares that unseal (of the split whose shares are, or were last, submitted); null until one is.' }),
  progress: z.int().meta({ description: 'Shares of that split submitted so far (0 once unsealed).' }),
});

/** The package version, from the source tree or from dist/ alike. */
function packageVersion(): string {
  const here = new URL('.', import.meta.url);
  for (const up of ['../../../package.json', '../../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, here), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'wallet-vault' && pkg.version) return pkg.version;
    } catch {
      // not at this depth
    }
  }
  return '0.0.0';
}
