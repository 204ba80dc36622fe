import type { IncomingHttpHeaders } from 'node:http';
import type { SignBodyCommand } from '../../src/application/signing/sign-call.use-case.js';
import type { VoteCommand } from '../../src/application/approvals/vote-on-approval.use-case.js';
import type { Principal } from '../../src/application/access/principal.js';
import type { EvaluatePolicyCommand } from '../../src/application/signing/evaluate-policy.use-case.js';
import { parseIdempotencyKey } from '../../src/application/shared/idempotency.js';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import { APPROVAL_READERS, type Approval } from '../../src/domain/approval.js';
import { invalidArgument } from '../../src/domain/errors.js';
import { REGISTERED_SIGNING_KINDS, type RegisteredSigningKind, type StandardKindName } from '../../src/domain/signing/kinds/registered-signing-kinds.js';
import type { HttpDeps } from './http-deps.js';
import type { OperationWithErrors } from './openapi/operation-codes.js';
import { presentApproval, presentGovernance, presentProposal, presentSubmission, presentWallet } from './presenters.js';
import { queryParameters } from './query-string.js';
import { approvalListSchema, createWalletBodySchema, freezeBodySchema, listQuerySchema, nameBodySchema, parseOrThrow, proposalVoteBodySchema, submissionBodySchema } from './schemas.js';
import { actorOf } from '../../src/application/audit/audit-actor.js';
import { GOVERNANCE_READERS } from '../../src/domain/governance.js';

/*
 * Every route of docs/api.md, declared once: method, path, whether and how it takes a body, the zod
 * parse that turns the request into the use case's typed command, and the use case with its
 * presenter. pipeline.ts runs each through the one admission sequence; the node:http server and the
 * Express router are shells over it. The routes outside the vaults are in service-routes.ts.
 */

/** An answer, written as it is by the pipeline (no framework adds or changes a header). */
export interface Reply {
  readonly status: number;
  readonly type: string;
  readonly headers?: Record<string, string>;
  readonly body: string | Buffer;
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const jsonReply = (status: number, value: unknown, headers?: Record<string, string>): Reply =>
  headers === undefined ? { status, type: JSON_TYPE, body: JSON.stringify(value) } : { status, type: JSON_TYPE, headers, body: JSON.stringify(value) };
const ok = (data: unknown) => jsonReply(200, { success: true, data });

/**
 * How a route takes its body: none, JSON, Sign's JSON whose raw bytes X-Vault-Auth-Signature signs
 * (`signed`, its `args` and `abi` bounded), or any other signing request's JSON under the same header
 * (`signed-json`: a message, typed data or a transaction, within Sign's text limits), or JSON that may be
 * left out (`optional-json`: a vote, unsigned for a key without credential; the body is then undefined).
 */
export type BodyKind = 'none' | 'json' | 'signed' | 'signed-json' | 'optional-json';

/** A request to a vault route once admitted: the caller, its path parameters (decoded), its body (parsed). */
export interface RouteRequest {
  readonly principal: Principal;
  readonly vaultId: string;
  readonly params: Readonly<Record<string, string>>;
  /** The query string without `?` ('' when none). */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  /** The JSON body (body kinds `json` and `signed`). */
  readonly body: unknown;
}

export const VAULT_ROUTE_PREFIX = '/api/v1/vaults/:vaultId';


/** A route under `/api/v1/vaults/:vaultId` (and the `/api/v1/vault/:vaultId` alias): authenticated. */
export interface VaultRoute<C = unknown> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below the vault prefix: `/wallets/:address`. */
  readonly path: string;
  /**
   * The operation's name in the OpenAPI document, which takes this route's method, path and role from
   * here, and its error codes from operation-codes.ts under this name; the client's role of each method
   * is generated from it too (client/operation-roles.ts).
   */
  readonly operationId: OperationWithErrors;
  readonly body: BodyKind;
  /**
   * The role the caller's API key must hold (Authorize, right after authentication and the per-key
   * limit); a list: any one of them. Required: a route without one does not compile. Written only here:
   * the OpenAPI document and the client's role table are derived from it.
   */
  readonly role: ApiKeyRole | readonly ApiKeyRole[];
  /** The request as the use case's command (zod, with the interface's messages). */
  readonly command: (request: RouteRequest, deps: HttpDeps) => C;
  /** The use case, and its result as the answer. */
  readonly answer: (deps: HttpDeps, command: C) => Promise<Reply>;
  /** For metrics and logs: the canonical pattern (`/api/v1/vaults/:vaultId/wallets/:address`), one string per route. */
  readonly label: string;
}

const route = <C>(r: Omit<VaultRoute<C>, 'label'>): VaultRoute => ({ ...r, label: `${VAULT_ROUTE_PREFIX}${r.path}` }) as VaultRoute;
const address = (r: RouteRequest) => r.params.address!;


type StandardKind = Extract<RegisteredSigningKind, { readonly standard: true }>;

const STANDARD_KINDS: readonly StandardKind[] = REGISTERED_SIGNING_KINDS.filter((kind): kind is StandardKind => kind.standard);

/** What each standard kind's route reads of its body: a message's body wraps it, the others are the payload itself. */
const STANDARD_BODIES: { readonly [K in StandardKindName]: (body: Record<string, unknown>) => unknown } = {
  message: messageOf,
  'typed-data': (body) => body,
  transaction: (body) => body,
  authorization: (body) => body,
};

/** A standard kind's route, from its facts (`route`, `requestField`): its use case is the deps' entry of its operationId. */
function standardRoute(kind: StandardKind): VaultRoute {
  return route({
    method: 'POST',
    path: `/wallets/:address/${kind.route.operation}`,
    operationId: kind.route.operationId,
    body: 'signed-json',
    role: 'signer',
    command: (r) => ({ principal: r.principal, address: address(r), [kind.requestField]: STANDARD_BODIES[kind.name](bodyObject(r.body)), ...keyOf(r) }),
    answer: async (deps, command) => outcomeReply(await deps[kind.route.operationId].execute(command as never)),
  });
}

export const VAULT_ROUTES: readonly VaultRoute[] = [
  route({
    method: 'POST',
    path: '/sign',
    operationId: 'sign',
    body: 'signed',
    role: 'signer',
    // The body as sent: Sign's use case checks its fields, the one place (library callers need them checked too).
    command: (r): SignBodyCommand => ({ principal: r.principal, body: r.body, ...keyOf(r) }),
    answer: async (deps, command) => outcomeReply(await deps.signCall.executeBody(command)),
  }),
  // Approvals (docs/api.md, "Approvals"): signs held for a quorum of approver keys. Reads for any key that signs, reads or votes.
  route({
    method: 'GET',
    path: '/approvals',
    operationId: 'listApprovals',
    body: 'none',
    role: APPROVAL_READERS,
    command: (r) => ({ vaultId: r.vaultId, ...parseOrThrow(approvalListSchema, queryParameters(r.query, APPROVAL_LIST_PARAMETERS)) }),
    answer: async (deps, c) => {
      const { vaultId, ...query } = c;
      const [result, shown, labels] = await Promise.all([deps.listApprovals.execute(vaultId, query), deps.getApproval.shownPolicy(vaultId), deps.getApproval.keyLabels(vaultId)]);
      return ok({ count: result.count, page: result.page.map((a) => presentApproval(a, shown, labels)) });
    },
  }),
  route({
    method: 'GET',
    path: '/approvals/:approvalId',
    operationId: 'getApproval',
    body: 'none',
    role: APPROVAL_READERS,
    command: (r) => ({ vaultId: r.vaultId, id: r.params.approvalId! }),
    answer: async (deps, c) => {
      const [approval, shown, labels] = await Promise.all([deps.getApproval.execute(c.vaultId, c.id), deps.getApproval.shownPolicy(c.vaultId), deps.getApproval.keyLabels(c.vaultId)]);
      return ok(presentApproval(approval, shown, labels));
    },
  }),
  route({
    method: 'POST',
    path: '/approvals/:approvalId/approve',
    operationId: 'approveApproval',
    body: 'optional-json',
    role: 'approver',
    command: (r): VoteCommand => ({ principal: r.principal, id: r.params.approvalId!, vote: 'approve', ...voteOf(r.body) }),
    answer: async (deps, c) => ok(await votedApproval(deps, c)),
  }),
  route({
    method: 'POST',
    path: '/approvals/:approvalId/reject',
    operationId: 'rejectApproval',
    body: 'optional-json',
    role: 'approver',
    command: (r): VoteCommand => ({ principal: r.principal, id: r.params.approvalId!, vote: 'reject', ...voteOf(r.body) }),
    answer: async (deps, c) => ok(await votedApproval(deps, c)),
  }),
  // Governance (docs/governance.md): the state in force, proposals voted with approvers' EIP-712 signatures, the freeze.
  route({
    method: 'GET',
    path: '/governance',
    operationId: 'getGovernance',
    body: 'none',
    role: GOVERNANCE_READERS,
    command: (r) => r.vaultId,
    answer: async (deps, vaultId) => ok(presentGovernance(await deps.governance.show(vaultId))),
  }),
  route({
    method: 'GET',
    path: '/proposals',
    operationId: 'listProposals',
    body: 'none',
    role: APPROVAL_READERS,
    command: (r) => r.vaultId,
    answer: async (deps, vaultId) => {
      const list = await deps.governance.list(vaultId);
      return ok({ count: list.length, page: list.map(presentProposal) });
    },
  }),
  route({
    method: 'GET',
    path: '/proposals/:proposalId',
    operationId: 'getProposal',
    body: 'none',
    role: APPROVAL_READERS,
    command: (r) => ({ vaultId: r.vaultId, id: r.params.proposalId! }),
    answer: async (deps, c) => ok(presentProposal(await deps.governance.get(c.vaultId, c.id))),
  }),
  ...(['approve', 'reject'] as const).map((decision) =>
    route({
      method: 'POST',
      path: `/proposals/:proposalId/${decision}`,
      operationId: `${decision}Proposal`,
      body: 'json',
      role: 'approver',
      // The API key authenticates the call; the vote counts only with the signature of an approver of the state in force.
      command: (r) => ({ vaultId: r.vaultId, id: r.params.proposalId!, signature: parseOrThrow(proposalVoteBodySchema, r.body).signature, actor: actorOf(r.principal) }),
      answer: async (deps, c) => ok(presentProposal(await deps.governance.vote(c.vaultId, c.id, decision, c.signature, c.actor))),
    }),
  ),
  route({
    method: 'POST',
    path: '/freeze',
    operationId: 'freezeVault',
    body: 'json',
    role: 'admin',
    // No quorum: one admin key stops every signature of the vault, on every instance, from the next one on.
    command: (r) => ({ vaultId: r.vaultId, reason: parseOrThrow(freezeBodySchema, r.body).reason ?? null, actor: actorOf(r.principal) }),
    answer: async (deps, c) => ok({ vault: c.vaultId, frozen: true, ...(await deps.governance.freeze(c.vaultId, c.reason, c.actor)) }),
  }),
  route({
    method: 'GET',
    path: '/wallets',
    operationId: 'listWallets',
    body: 'none',
    role: 'reader',
    command: (r) => ({ vaultId: r.vaultId, ...parseOrThrow(listQuerySchema, queryParameters(r.query, LIST_PARAMETERS)) }),
    answer: async (deps, c) => {
      const result = await deps.listWallets.execute(c.vaultId, c.offset, c.count);
      return ok({ count: result.count, page: result.page.map(presentWallet) });
    },
  }),
  route({
    method: 'POST',
    path: '/wallets',
    operationId: 'createWallet',
    body: 'json',
    role: 'admin',
    command: (r) => {
      const key = idempotencyKeyOf(r);
      const { name, derivation } = parseOrThrow(createWalletBodySchema, r.body);
      return { principal: r.principal, name, ...(derivation ? { derivation } : {}), ...(key === undefined ? {} : { idempotency: { key, body: r.body } }) };
    },
    answer: async (deps, command) => ok(presentWallet(await deps.createWallet.execute(command))),
  }),
  route({
    method: 'GET',
    path: '/wallets/:address',
    operationId: 'getWallet',
    body: 'none',
    role: 'reader',
    command: (r) => ({ vaultId: r.vaultId, address: address(r) }),
    answer: async (deps, c) => ok(presentWallet(await deps.getWallet.execute(c.vaultId, c.address))),
  }),
  route({
    method: 'PUT',
    path: '/wallets/:address',
    operationId: 'renameWallet',
    body: 'json',
    role: 'admin',
    command: (r) => ({ principal: r.principal, address: address(r), name: parseOrThrow(nameBodySchema, r.body).name }),
    answer: async (deps, c) => ok(presentWallet(await deps.renameWallet.execute(c.principal, c.address, c.name))),
  }),
  route({
    method: 'DELETE',
    path: '/wallets/:address',
    operationId: 'expireWallet',
    body: 'none',
    role: 'admin',
    command: (r) => ({ principal: r.principal, address: address(r) }),
    answer: async (deps, c) => ok(presentWallet(await deps.expireWallet.execute(c.principal, c.address))),
  }),
  route({
    method: 'POST',
    path: '/wallets/:address',
    operationId: 'unexpireWallet',
    body: 'none',
    role: 'admin',
    command: (r) => ({ principal: r.principal, address: address(r) }),
    answer: async (deps, c) => ok(presentWallet(await deps.unexpireWallet.execute(c.principal, c.address))),
  }),
  route({
    method: 'GET',
    path: '/status',
    operationId: 'status',
    body: 'none',
    role: 'reader',
    command: (r) => r.vaultId,
    answer: async (deps, vaultId) => {
      const s = await deps.getVaultStatus.execute(vaultId);
      // The one response without the envelope, as the interface specifies.
      return jsonReply(200, { timestamp: s.timestamp.toISOString(), online: s.online, vaultKeys: s.vaultKeys, wallets: s.wallets, version: s.version });
    },
  }),
  route({
    method: 'POST',
    path: '/submissions',
    operationId: 'recordSubmission',
    body: 'json',
    role: 'signer',
    command: (r) => ({ vaultId: r.vaultId, ...parseOrThrow(submissionBodySchema, r.body) }),
    answer: async (deps, command) => ok(presentSubmission(await deps.recordSubmission.execute(command))),
  }),
  route({
    method: 'GET',
    path: '/submissions/:submissionHash',
    operationId: 'getSubmission',
    body: 'none',
    role: 'reader',
    command: (r) => ({ vaultId: r.vaultId, hash: r.params.submissionHash! }),
    answer: async (deps, c) => ok(presentSubmission(await deps.getSubmission.execute(c.vaultId, c.hash))),
  }),
  // Standard signing with a wallet (docs/standard-signing.md), one route per registered standard kind; X-Vault-Auth-Signature as on Sign.
  ...STANDARD_KINDS.map(standardRoute),
  // The policy's dry run (docs/policy.md#dry-run): what would be decided, nothing signed, recorded or counted.
  route({
    method: 'POST',
    path: '/policy/evaluate',
    operationId: 'evaluatePolicy',
    body: 'json',
    role: ['signer', 'reader', 'admin'],
    command: (r): EvaluatePolicyCommand => {
      const body = bodyObject(r.body) as { kind?: unknown; wallet?: unknown; request?: unknown };
      const extra = Object.keys(body).find((k) => k !== 'kind' && k !== 'wallet' && k !== 'request');
      if (extra !== undefined) throw invalidArgument(`${extra}: is not a field of a dry run (kind, wallet, request)`);
      return { principal: r.principal, kind: body.kind, wallet: body.wallet, request: body.request };
    },
    answer: async (deps, command) => ok(await deps.evaluatePolicy.execute(command)),
  }),
  // Ethereum JSON-RPC over the vault's wallets (docs/standard-signing.md#json-rpc): JSON-RPC answers, not the envelope.
  route({
    method: 'POST',
    path: '/rpc',
    operationId: 'jsonRpc',
    body: 'signed-json',
    role: 'signer',
    command: (r, deps): RpcBatch => {
      const calls = rpcCalls(r.body);
      return { principal: r.principal, chain: rpcChain(r, deps), single: calls.single === true, calls };
    },
    answer: async (deps, batch) => {
      const answers = [];
      // One budget for the batch: its relayed answers together are capped (RELAY_BATCH_MAX_BYTES).
      const budget = deps.jsonRpc.answerBudget();
      // One after another: eth_sendTransaction's nonce reads must see the transaction before it.
      for (const c of batch.calls) {
        if ('invalid' in c) answers.push({ jsonrpc: '2.0', id: c.id, error: { code: -32600, message: c.invalid } });
        else answers.push({ jsonrpc: '2.0', id: c.id, ...(await deps.jsonRpc.execute({ principal: batch.principal, chain: batch.chain, call: c, budget })) });
      }
      return jsonReply(200, batch.single ? answers[0] : answers);
    },
  }),
];

const LIST_PARAMETERS = ['offset', 'count'] as const;
const APPROVAL_LIST_PARAMETERS = ['offset', 'count', 'status'] as const;

/** A vote's answer: the approval after it, with the policy's names and the keys' labels, as a read shows it. */
async function votedApproval(deps: HttpDeps, c: VoteCommand) {
  const approval = await deps.voteOnApproval.execute(c);
  const [shown, labels] = await Promise.all([deps.getApproval.shownPolicy(c.principal.vaultId), deps.getApproval.keyLabels(c.principal.vaultId)]);
  return presentApproval(approval, shown, labels);
}

/** A signature, or the approval that holds the request: 202, nothing signed yet (docs/api.md#approvals-four-eyes), on every signing route. */
function outcomeReply(outcome: object): Reply {
  return 'approval' in outcome ? jsonReply(202, { success: true, data: { approval: presentApproval(outcome.approval as Approval) } }) : ok(outcome);
}

/** The Idempotency-Key of a standard sign, as the command's field (absent when not given). */
function keyOf(r: RouteRequest): { idempotencyKey?: string } {
  const key = idempotencyKeyOf(r);
  return key === undefined ? {} : { idempotencyKey: key };
}

/** The `Idempotency-Key` header (1 to 255 characters), or undefined. */
function idempotencyKeyOf(r: RouteRequest): string | undefined {
  const given = r.headers['idempotency-key'];
  return parseIdempotencyKey(Array.isArray(given) ? given.join(', ') : given);
}

/** The JSON-RPC endpoint's request: one call or a batch, each valid or the reason it is not. */
type RpcEntry = { readonly id: unknown; readonly method: string; readonly params: readonly unknown[] } | { readonly id: unknown; readonly invalid: string };
interface RpcBatch {
  readonly principal: Principal;
  readonly chain: string;
  readonly single: boolean;
  readonly calls: readonly RpcEntry[];
}
/**
 * Calls per batch: each may wait on the chain's RPC (VAULT_OUTBOUND_TIMEOUT_MS per read, a few reads for
 * eth_sendTransaction), and a batch counts once against the per-key rate limit, so its cost is kept small.
 */
const RPC_BATCH_MAX = 10;

/** `?chain=<name>`, or the only chain with an RPC. */
function rpcChain(r: RouteRequest, deps: HttpDeps): string {
  const named = new URLSearchParams(r.query).get('chain');
  const chain = named ?? deps.jsonRpc.defaultChain();
  if (chain === undefined) throw invalidArgument('chain: name the chain whose RPC this endpoint uses (?chain=<name>): several or no chains have an RPC');
  return chain;
}

/** The members of a JSON-RPC 2.0 request object. */
const RPC_MEMBERS: ReadonlySet<string> = new Set(['jsonrpc', 'method', 'params', 'id']);

function rpcCalls(body: unknown): RpcBatch['calls'] & { single?: boolean } {
  const single = !Array.isArray(body);
  if (single && (typeof body !== 'object' || body === null)) throw invalidArgument('body: must be a JSON-RPC call (an object) or a batch of them (an array)');
  const list = single ? [body] : (body as unknown[]);
  if (list.length === 0) throw invalidArgument('body: an empty JSON-RPC batch');
  if (list.length > RPC_BATCH_MAX) throw invalidArgument(`body: a JSON-RPC batch of more than ${RPC_BATCH_MAX} calls`);
  const calls = list.map((entry): RpcEntry => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return { id: null, invalid: 'a JSON-RPC call is an object' };
    const e = entry as Record<string, unknown>;
    const id = typeof e.id === 'string' || typeof e.id === 'number' ? e.id : null;
    if (e.jsonrpc !== '2.0') return { id, invalid: 'jsonrpc: must be "2.0"' };
    // Strict as every body is: a member JSON-RPC 2.0 does not define binds nothing, so it is named.
    const extra = Object.keys(e).find((k) => !RPC_MEMBERS.has(k));
    if (extra !== undefined) return { id, invalid: `${extra.slice(0, 64)}: is not a member of a JSON-RPC call (jsonrpc, method, params, id)` };
    if (typeof e.method !== 'string' || e.method === '') return { id, invalid: 'method: must be a string' };
    if (e.params !== undefined && !Array.isArray(e.params)) return { id, invalid: 'params: must be an array' };
    return { id, method: e.method, params: (e.params as unknown[] | undefined) ?? [] };
  });
  return Object.assign(calls, { single });
}

/*
 * Standard signing (the last three routes): the payload is checked by the use case's encoder, which
 * names the field it refuses; here only that the body is an object, and for a message that it holds
 * nothing but `message` (what is signed is exactly what was sent).
 */
function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidArgument('body: must be a JSON object');
  return body as Record<string, unknown>;
}

/** A vote's body (optional): `{"signature": "0x…"}`; the use case checks the signature itself. */
function voteOf(body: unknown): { signature?: string } {
  if (body === undefined) return {};
  const fields = bodyObject(body);
  for (const key in fields) if (key !== 'signature') throw invalidArgument(`${key}: is not a field of a vote (signature)`);
  if (fields.signature === undefined) return {};
  if (typeof fields.signature !== 'string') throw invalidArgument('signature: must be a string (0x, 65 bytes: the EIP-712 Decision signature)');
  return { signature: fields.signature };
}

function messageOf(body: Record<string, unknown>): unknown {
  for (const key in body) if (key !== 'message') throw invalidArgument(`${key}: is not a field of a sign-message body (message)`);
  if (body.message === undefined) throw invalidArgument('message: is required (a string, or {"raw": "0x…"})');
  return body.message;
}
