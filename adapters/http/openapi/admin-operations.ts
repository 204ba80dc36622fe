import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { PERMITTED } from '../../../src/domain/operator.js';
import { ADMIN_PREFIX, ADMIN_ROUTES } from '../admin-routes.js';
import {
  adminApiKeySchema,
  adminCreatedApiKeySchema,
  adminPolicySchema,
  adminRevokedApiKeySchema,
  adminRotatedApiKeySchema,
  adminVaultSchema,
  freezeResultSchema,
} from '../response-schemas.js';
import { adminApiKeyBodySchema, adminRotateBodySchema, adminVaultBodySchema, freezeBodySchema } from '../schemas.js';
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
const EXAMPLE_API_KEY = 'wv_8f14e45fceea167a_3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** Each admin operation's words, schemas and examples, by its route's operationId (admin-routes.ts has method, path, permission). */
const DESCRIBED: Readonly<Record<string, { summary: string; description: string; body?: [z.ZodType, unknown]; data: z.ZodType; example: unknown }>> = {
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
};

const vaultId = z.string().meta({ description: 'The vault (in the operator\'s scope, else 403 `ROLE_REQUIRED`).' });
const keyId = z.string().meta({ description: 'The API key\'s id (see the list).' });

/** The admin paths, from the route table: one operation per route, its permission's roles in its security and words. */
export function adminPaths(parts: AdminDocumentParts): Record<string, Partial<Record<'get' | 'put' | 'post' | 'delete', ZodOpenApiOperationObject>>> {
  const paths: Record<string, Partial<Record<'get' | 'put' | 'post' | 'delete', ZodOpenApiOperationObject>>> = {};
  for (const route of ADMIN_ROUTES) {
    const described = DESCRIBED[route.operationId];
    if (described === undefined) throw new Error(`admin route ${route.method} ${route.path}: no OpenAPI words for ${route.operationId}`);
    const roles = PERMITTED[route.permission];
    const path = `${ADMIN_PREFIX}${route.path}`.replace(/:(\w+)/g, '{$1}');
    const params = { ...(route.path.includes(':vaultId') ? { vaultId } : {}), ...(route.path.includes(':keyId') ? { keyId } : {}) };
    (paths[path] ??= {})[route.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete'] = {
      operationId: route.operationId,
      summary: described.summary,
      description: `${described.description} Needs an operator credential whose roles include ${roles.map((r) => `\`${r}\``).join(' or ')} (else 403 \`ROLE_REQUIRED\` naming the role, audited \`auth.refused\`).`,
      tags: ['Admin'],
      security: roles.map((role) => ({ operatorCredential: [role] })),
      'x-required-operator-role': [...roles],
      ...(Object.keys(params).length > 0 ? { requestParams: { path: z.object(params) } } : {}),
      ...(described.body ? { requestBody: { ...parts.jsonBody(described.body[0], described.body[1]), required: route.operationId === 'adminCreateVault' || route.operationId === 'adminSetPolicy' } } : {}),
      responses: parts.responses(route.operationId, parts.ok(described.data, described.summary, described.example)),
    } as ZodOpenApiOperationObject;
  }
  return paths;
}
