import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { PERMITTED } from '../../../src/domain/operator.js';
import { ADMIN_PREFIX, ADMIN_ROUTES } from '../admin-routes.js';
import {
  adminApiKeySchema,
  adminApiKeyRolesSchema,
  adminApproverSchema,
  adminCreatedApiKeySchema,
  adminGovernanceSetSchema,
  adminInviteSchema,
  adminUnfreezeSchema,
  adminWebhookRemovedSchema,
  adminWebhookReplaySchema,
  adminWebhookSchema,
  governanceSchema,
  proposalPageSchema,
  proposalSchema,
  adminPolicySchema,
  adminRevokedApiKeySchema,
  adminRotatedApiKeySchema,
  adminVaultSchema,
  freezeResultSchema,
} from '../response-schemas.js';
import {
  adminApiKeyBodySchema,
  adminApiKeyRolesBodySchema,
  adminGovernanceBodySchema,
  adminInviteBodySchema,
  adminRotateBodySchema,
  adminVaultBodySchema,
  adminWebhookBodySchema,
  adminWebhookReplayBodySchema,
  freezeBodySchema,
} from '../schemas.js';
import type { OperationWithErrors } from './operation-codes.js';

/** What the document's helpers give this module (openapi-document.ts): the answers and bodies as every operation writes them. */
export interface AdminDocumentParts {
  responses(operation: OperationWithErrors, ok: ZodOpenApiResponseObject): Record<string, ZodOpenApiResponseObject>;
  ok(data: z.ZodType, description: string, example?: unknown): ZodOpenApiResponseObject;
  jsonBody(schema: z.ZodType, example: unknown): object;
}

const EXAMPLE_VAULT = { id: '0190f7e2-5b7a-7c3e-9d4f-2a1b3c4d5e6f', account: 'default', name: 'payments', created: '2026-12-03T09:00:00.000Z' };
const EXAMPLE_KEY = {
  id: '8f14e45fceea167a',
  vault: EXAMPLE_VAULT.id,
  label: 'payments backend',
  roles: ['signer', 'reader'],
  allowCidrs: null,
  group: null,
  approverAddress: null,
  created: '2026-12-03T09:05:00.000Z',
  revoked: null,
  expires: '2027-01-02T09:05:00.000Z',
  replacedBy: null,
  overlapEnds: null,
  replaces: null,
  firstUsed: null,
};
const EXAMPLE_WEBHOOK = {
  id: '0190f7e2-7000-7c3e-9d4f-2a1b3c4d5e6f',
  vault: EXAMPLE_VAULT.id,
  url: 'https://hooks.example.com/vault',
  events: ['approval.requested'],
  created: '2026-12-03T09:10:00.000Z',
  deliveredSeq: 7,
  attempts: 0,
  nextAttempt: null,
  firstFailure: null,
  lastError: null,
};
const EXAMPLE_API_KEY = 'wv_8f14e45fceea167a_3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** Each admin operation's words, schemas and examples, by its route's operationId (admin-routes.ts has method, path, permission). */
const DESCRIBED: Readonly<Record<string, { summary: string; description: string; body?: [z.ZodType, unknown]; data: z.ZodType; example?: unknown }>> = {
  adminListVaults: { summary: 'List vaults', description: "The vaults in the operator's scope.", data: z.array(adminVaultSchema), example: [EXAMPLE_VAULT] },
  adminCreateVault: {
    summary: 'Create a vault',
    description: 'As `wallet-vault vaults create`; audited `vault.created` with the operator as actor. Needs an operator of every vault (no `--vault` scope).',
    body: [adminVaultBodySchema, { name: 'payments' }],
    data: adminVaultSchema,
    example: EXAMPLE_VAULT,
  },
  adminListApiKeys: { summary: "List a vault's API keys", description: 'Ids, labels, roles, networks and lifecycle; never a key or its hash.', data: z.array(adminApiKeySchema), example: [EXAMPLE_KEY] },
  adminCreateApiKey: {
    summary: 'Create an API key',
    description:
      'As `wallet-vault api-keys create`: the key is in this answer only. On a governed vault the key authenticates once the proposal adding it is in force (`proposal`). Audited `api-key.created` with the operator as actor.',
    body: [adminApiKeyBodySchema, { roles: ['signer', 'reader'], label: 'payments backend', expires: '30d' }],
    data: adminCreatedApiKeySchema,
    example: { apiKey: EXAMPLE_API_KEY, ...EXAMPLE_KEY },
  },
  adminRevokeApiKey: {
    summary: 'Revoke an API key',
    description: 'As `wallet-vault api-keys revoke`: refused from now on; on a governed vault a proposal removing it from the signed state is made too. A key of another vault is 400 naming `id`.',
    data: adminRevokedApiKeySchema,
    example: { id: EXAMPLE_KEY.id, revoked: true },
  },
  adminRotateApiKey: {
    summary: 'Rotate an API key',
    description:
      'As `wallet-vault api-keys rotate`: a new key (in this answer only) with the old one\'s roles, networks, label and expiry; the old key works until `overlapEnds` or the new key\'s first use. Refused (400) on a governed vault, whose keys change only by proposals.',
    body: [adminRotateBodySchema, { overlap: '1h' }],
    data: adminRotatedApiKeySchema,
    example: { apiKey: EXAMPLE_API_KEY, ...EXAMPLE_KEY, replaces: '1c383cd30b7c298a', overlapEnds: '2026-12-03T10:05:00.000Z' },
  },
  adminSetApiKeyRoles: {
    summary: "Change an API key's roles",
    description:
      'As `wallet-vault api-keys set-roles`: the key\'s roles are replaced (with the rules of creation: approver with signer or admin needs `allowSignerApprover`), audited `api-key.roles-changed` with the operator as actor; its next request is judged by them. On a governed vault the answer is the `proposal` that changes them once its approvers sign it and the delay has passed. A key of another vault or a revoked key is 400 naming `id`.',
    body: [adminApiKeyRolesBodySchema, { roles: ['reader'] }],
    data: adminApiKeyRolesSchema,
    example: { ...EXAMPLE_KEY, roles: ['reader'], previousRoles: ['signer', 'reader'] },
  },
  adminGetPolicy: { summary: "A vault's policy", description: 'The policy document in force (docs/policy.md), or null.', data: adminPolicySchema, example: { vault: EXAMPLE_VAULT.id, policy: null } },
  adminSetPolicy: {
    summary: "Replace a vault's policy",
    description:
      'As `wallet-vault policies apply`: the body is the whole document, checked first (400 naming its first wrong field, nothing changed). On a governed vault the answer is the `proposal` its approvers sign. Audited `policy.changed` with the operator as actor.',
    body: [z.looseObject({}).meta({ description: 'A policy document (docs/policy.md).' }), { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }] }],
    data: adminPolicySchema,
    example: { vault: EXAMPLE_VAULT.id, policy: { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }] } },
  },
  adminFreezeVault: {
    summary: 'Freeze a vault',
    description: 'As `wallet-vault governance freeze`: every signature of the vault refused (403 `VAULT_FROZEN`) on every instance from the next one on. No quorum. Audited `vault.frozen` with the operator as actor.',
    body: [freezeBodySchema, { reason: 'approver key may be stolen' }],
    data: freezeResultSchema,
    example: { vault: EXAMPLE_VAULT.id, frozen: true, freezes: 1 },
  },
  adminUnfreezeVault: {
    summary: 'Lift the freezes of a vault',
    description:
      'As `wallet-vault governance unfreeze`: on a vault that is not governed the freezes are lifted at once (`lifted`, audited `vault.unfrozen`); on a governed one the answer is the `proposal` that lifts them once its approvers sign it (audited `governance.proposed`). The operator is the actor.',
    data: adminUnfreezeSchema,
    example: { vault: EXAMPLE_VAULT.id, lifted: 1 },
  },
  adminListApprovers: {
    summary: "List a vault's approvers",
    description: "As `wallet-vault approvers list`: the approvers enrolled with a passkey (revoked ones included); on a governed vault each with its enrolment's standing. Needs the approvers' console (`VAULT_PUBLIC_URL`, else 503 `CONSOLE_UNAVAILABLE`).",
    data: z.array(adminApproverSchema),
    example: [{ id: '8f14e45fceea167a', name: 'alice laptop', vault: EXAMPLE_VAULT.id, vaultName: 'payments', group: null, created: '2026-12-03T09:05:00.000Z', revoked: null, credential: 'q2V0…' }],
  },
  adminInviteApprover: {
    summary: 'Invite an approver',
    description:
      "As `wallet-vault approvers invite`: a one-time enrolment URL (in this answer only; only its hash is stored); whoever opens it first becomes an approver of the vault. Audited `approver.invited` with the operator as actor. Needs `VAULT_PUBLIC_URL` (else 503 `CONSOLE_UNAVAILABLE`).",
    body: [adminInviteBodySchema, { expires: '24h' }],
    data: adminInviteSchema,
    example: { url: 'https://vault.example.com/console/#enrol=…', expires: '2026-12-04T09:00:00.000Z', governed: false },
  },
  adminRevokeApprover: {
    summary: 'Revoke an approver',
    description: "As `wallet-vault approvers revoke`: the approver's API key is revoked (its votes count for nothing, its console sessions are refused); on a governed vault a proposal removing it from the signed state is made too. Audited `api-key.revoked` with the operator as actor.",
    data: adminRevokedApiKeySchema,
    example: { id: EXAMPLE_KEY.id, revoked: true },
  },
  adminListWebhooks: {
    summary: "List a vault's webhook endpoints",
    description: 'As `wallet-vault webhooks list`: each endpoint and how far delivery has got.',
    data: z.array(adminWebhookSchema),
    example: [EXAMPLE_WEBHOOK],
  },
  adminAddWebhook: {
    summary: 'Add a webhook endpoint',
    description: 'As `wallet-vault webhooks add`: it receives the events from now on. On a governed vault it is delivered to once the `proposal` adding it is in force. Audited `webhook.changed` (`added`) with the operator as actor.',
    body: [adminWebhookBodySchema, { url: 'https://hooks.example.com/vault', events: ['approval.requested'] }],
    data: adminWebhookSchema,
    example: EXAMPLE_WEBHOOK,
  },
  adminRemoveWebhook: {
    summary: 'Remove a webhook endpoint',
    description: 'As `wallet-vault webhooks remove`: nothing more is delivered to it; on a governed vault whose state lists it, the `proposal` removing it instead (`removed: false`). Audited `webhook.changed` (`removed`) with the operator as actor.',
    data: adminWebhookRemovedSchema,
    example: { vault: EXAMPLE_VAULT.id, id: EXAMPLE_WEBHOOK.id, removed: true },
  },
  adminReplayWebhook: {
    summary: 'Replay webhook events',
    description: "As `wallet-vault webhooks replay`: the endpoint's events from audit seq `fromSeq` on are sent again, in order. Audited `webhook.changed` (`replayed`) with the operator as actor.",
    body: [adminWebhookReplayBodySchema, { fromSeq: 1 }],
    data: adminWebhookReplaySchema,
    example: { ...EXAMPLE_WEBHOOK, fromSeq: 1, previousSeq: 7 },
  },
  adminGetGovernance: {
    summary: "A vault's governance",
    description: 'As `wallet-vault governance show`: the governed state in force, its hash, the pin, the freezes.',
    data: governanceSchema,
    example: { vault: EXAMPLE_VAULT.id, governed: false, state: null, hash: null, genesisHash: null, pin: null, pinned: false, frozen: false, freezes: 0, liftedFreezes: 0, problem: null },
  },
  adminSetGovernance: {
    summary: "Govern a vault, or propose its approvers, quorum and delay",
    description:
      'As `wallet-vault governance set`: a vault that is not governed becomes governed (`genesis`, and the `pin` to add to every instance\'s `VAULT_GOVERNANCE_PINS`; audited `governance.set`); a governed one gets the `proposal` its approvers sign (audited `governance.proposed`). The operator is the actor.',
    body: [adminGovernanceBodySchema, { required: 2, approvers: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'], delay: '1h' }],
    data: adminGovernanceSetSchema,
    example: { vault: EXAMPLE_VAULT.id, proposal: { id: '0190f7e2-6000-7c3e-9d4f-2a1b3c4d5e6f', documentHash: `0x${'ab'.repeat(32)}` }, warnings: [] },
  },
  adminListProposals: {
    summary: "A vault's proposals",
    description: 'As `wallet-vault governance proposals list`: every proposal of the vault, oldest first, with what it changes and the typed data its approvers sign.',
    data: proposalPageSchema,
    example: { count: 0, page: [] },
  },
  adminGetProposal: {
    summary: 'A proposal',
    description: 'As `wallet-vault governance proposals show`: what it changes, its signatures, and the typed data to sign to approve or reject it (with the vault API\'s `POST …/proposals/{id}/approve`, or the CLI).',
    data: proposalSchema,
  },
};

const vaultId = z.string().meta({ description: 'The vault (in the operator\'s scope, else 403 `ROLE_REQUIRED`).' });
const keyId = z.string().meta({ description: 'The API key\'s id (see the list).' });
const webhookId = z.string().meta({ description: 'The webhook endpoint\'s id (see the list).' });
const proposalId = z.string().meta({ description: 'The proposal\'s id (see the list).' });

/** The operations whose body is not optional: each names a field that is required. */
const REQUIRED_BODY = new Set<string>(['adminCreateVault', 'adminSetPolicy', 'adminAddWebhook', 'adminReplayWebhook', 'adminSetGovernance']);

/** The admin paths, from the route table: one operation per route, its permission's roles in its security and words. */
export function adminPaths(parts: AdminDocumentParts): Record<string, Partial<Record<'get' | 'put' | 'post' | 'delete', ZodOpenApiOperationObject>>> {
  const paths: Record<string, Partial<Record<'get' | 'put' | 'post' | 'delete', ZodOpenApiOperationObject>>> = {};
  for (const route of ADMIN_ROUTES) {
    const described = DESCRIBED[route.operationId];
    if (described === undefined) throw new Error(`admin route ${route.method} ${route.path}: no OpenAPI words for ${route.operationId}`);
    const roles = PERMITTED[route.permission];
    const path = `${ADMIN_PREFIX}${route.path}`.replace(/:(\w+)/g, '{$1}');
    const params = {
      ...(route.path.includes(':vaultId') ? { vaultId } : {}),
      ...(route.path.includes(':keyId') ? { keyId } : {}),
      ...(route.path.includes(':webhookId') ? { webhookId } : {}),
      ...(route.path.includes(':proposalId') ? { proposalId } : {}),
    };
    (paths[path] ??= {})[route.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete'] = {
      operationId: route.operationId,
      summary: described.summary,
      description: `${described.description} Needs an operator credential whose roles include ${roles.map((r) => `\`${r}\``).join(' or ')} (else 403 \`ROLE_REQUIRED\` naming the role, audited \`auth.refused\`).`,
      tags: ['Admin'],
      security: roles.map((role) => ({ operatorCredential: [role] })),
      'x-required-operator-role': [...roles],
      ...(Object.keys(params).length > 0 ? { requestParams: { path: z.object(params) } } : {}),
      ...(described.body ? { requestBody: { ...parts.jsonBody(described.body[0], described.body[1]), required: REQUIRED_BODY.has(route.operationId) } } : {}),
      responses: parts.responses(route.operationId, parts.ok(described.data, described.summary, described.example)),
    } as ZodOpenApiOperationObject;
  }
  return paths;
}
