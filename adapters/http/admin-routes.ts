import type { OperatorView } from '../../src/application/access/manage-operators.use-case.js';
import { operatorActor } from '../../src/application/audit/audit-actor.js';
import { parseCidrs } from '../../src/domain/api-key-access.js';
import { DomainError, ErrorCode, isDomainError } from '../../src/domain/errors.js';
import type { OperatorPermission } from '../../src/domain/operator.js';
import type { ApiKeyRecord, Vault } from '../../src/domain/vault.js';
import { bearerCredential } from './caller.js';
import type { HttpDeps } from './http-deps.js';
import type { OperationWithErrors } from './openapi/operation-codes.js';
import { jsonReply, type Reply } from './routes.js';
import type { WebhookEndpoint } from '../../src/ports/webhook-outbox.port.js';
import { presentGovernance, presentProposal } from './presenters.js';
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
  parseOrThrow,
} from './schemas.js';
import type { ServiceRoute } from './service-route.js';

/*
 * The admin API (docs/operators.md): what the operator commands do, over HTTP, for named operators. Each
 * route is declared once here, with the permission it needs (src/domain/operator.ts); the OpenAPI document
 * takes its method and path from this table (openapi/admin-operations.ts). Mounted with the service routes:
 * outside the vaults, authenticated by an operator's credential, not an API key.
 */

export const ADMIN_PREFIX = '/api/v1/admin';

/** A request an operator's credential and permission admitted. */
export interface AdminRequest {
  readonly operator: OperatorView;
  /** `operator:<name>`: what every audit record of the action names. */
  readonly actor: string;
  readonly params: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export interface AdminRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below ADMIN_PREFIX; `:vaultId`, when present, is checked against the operator's scope. */
  readonly path: string;
  readonly operationId: OperationWithErrors;
  readonly permission: OperatorPermission;
  /** Reads a JSON body. */
  readonly body: boolean;
  readonly answer: (deps: HttpDeps, request: AdminRequest) => Promise<Reply>;
}

const ok = (data: unknown) => jsonReply(200, { success: true, data });
const vaultOf = (r: AdminRequest) => r.params.vaultId!;

const presentVault = (v: Vault) => ({ id: v.id, account: v.accountId, name: v.name, created: v.created.toISOString() });
const iso = (d: Date | null | undefined) => (d == null ? null : d.toISOString());
/** A key as an operator reads it: never the key, nor its hash. */
const presentKey = (k: ApiKeyRecord) => ({
  id: k.id,
  vault: k.vaultId,
  label: k.label ?? null,
  roles: [...k.roles],
  allowCidrs: k.allowCidrs === null ? null : k.allowCidrs.map((c) => c.text),
  group: k.group ?? null,
  approverAddress: k.approverAddress ?? null,
  created: k.created.toISOString(),
  revoked: iso(k.revoked),
  expires: iso(k.expires),
  replacedBy: k.replacedBy ?? null,
  overlapEnds: iso(k.overlapEnds),
  replaces: k.replaces ?? null,
  firstUsed: iso(k.firstUsed),
});
/** An endpoint as `webhooks list` prints it (the URL as given: the operator added it). */
const presentWebhook = (e: WebhookEndpoint) => ({
  id: e.id,
  vault: e.vaultId,
  url: e.url,
  events: [...e.events],
  created: e.created.toISOString(),
  deliveredSeq: e.deliveredSeq,
  attempts: e.attempts,
  nextAttempt: iso(e.nextAttempt),
  firstFailure: iso(e.firstFailure),
  lastError: e.lastError,
});
const withProposal = (made: { readonly proposal?: { readonly id: string; readonly documentHash: string } }) => (made.proposal ? { proposal: made.proposal } : {});

/** The use case names the CLI's options (`allow-cidrs:`); a body's fields are named as they are sent. */
const JSON_FIELD_OF: Readonly<Record<string, string>> = { 'allow-cidrs': 'allowCidrs', 'approver-address': 'approverAddress', 'allow-signer-approver': 'allowSignerApprover' };
async function inJsonFields<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isDomainError(error) || error.code !== ErrorCode.INVALID_ARGUMENT) throw error;
    const renamed = error.message.replace(/^([a-z-]+):/, (whole, option: string) => (JSON_FIELD_OF[option] === undefined ? whole : `${JSON_FIELD_OF[option]}:`));
    throw renamed === error.message ? error : new DomainError(ErrorCode.INVALID_ARGUMENT, renamed);
  }
}

export const ADMIN_ROUTES: readonly AdminRoute[] = [
  {
    method: 'GET',
    path: '/vaults',
    operationId: 'adminListVaults',
    permission: 'vaults.read',
    body: false,
    // A scoped operator sees its vaults only.
    answer: async (deps, r) => ok((await deps.manageVaults.list()).filter((v) => r.operator.vaults === null || r.operator.vaults.includes(v.id)).map(presentVault)),
  },
  {
    method: 'POST',
    path: '/vaults',
    operationId: 'adminCreateVault',
    permission: 'vaults.create',
    body: true,
    answer: async (deps, r) => ok(presentVault(await deps.manageVaults.create(parseOrThrow(adminVaultBodySchema, r.body), r.actor))),
  },
  {
    method: 'GET',
    path: '/vaults/:vaultId/api-keys',
    operationId: 'adminListApiKeys',
    permission: 'api-keys.read',
    body: false,
    answer: async (deps, r) => ok((await deps.manageVaults.listApiKeys(vaultOf(r))).map(presentKey)),
  },
  {
    method: 'POST',
    path: '/vaults/:vaultId/api-keys',
    operationId: 'adminCreateApiKey',
    permission: 'api-keys.change',
    body: true,
    answer: async (deps, r) => {
      const { allowCidrs, ...access } = parseOrThrow(adminApiKeyBodySchema, r.body ?? {});
      const made = await inJsonFields(async () =>
        deps.manageVaults.createApiKey(vaultOf(r), { ...access, ...(allowCidrs === undefined ? {} : { allowCidrs: allowCidrs.length === 0 ? [] : parseCidrs(allowCidrs.join(',')) }) }, r.actor),
      );
      return ok({ apiKey: made.apiKey, ...presentKey(made.record), ...withProposal(made), ...(made.warnings ? { warnings: [...made.warnings] } : {}) });
    },
  },
  {
    method: 'DELETE',
    path: '/vaults/:vaultId/api-keys/:keyId',
    operationId: 'adminRevokeApiKey',
    permission: 'api-keys.change',
    body: false,
    answer: async (deps, r) => ok({ id: r.params.keyId!, revoked: true, ...withProposal(await deps.manageVaults.revokeApiKey(r.params.keyId!, r.actor, vaultOf(r))) }),
  },
  {
    method: 'POST',
    path: '/vaults/:vaultId/api-keys/:keyId/rotate',
    operationId: 'adminRotateApiKey',
    permission: 'api-keys.change',
    body: true,
    answer: async (deps, r) => {
      const { overlap } = parseOrThrow(adminRotateBodySchema, r.body ?? {});
      const { apiKey, record, replaced } = await deps.manageVaults.rotateApiKey(vaultOf(r), r.params.keyId!, overlap ?? '1h', r.actor);
      return ok({ apiKey, ...presentKey(record), overlapEnds: iso(replaced.overlapEnds) });
    },
  },
  {
    method: 'PUT',
    path: '/vaults/:vaultId/api-keys/:keyId/roles',
    operationId: 'adminSetApiKeyRoles',
    permission: 'api-keys.change',
    body: true,
    answer: async (deps, r) => {
      const { roles, allowSignerApprover } = parseOrThrow(adminApiKeyRolesBodySchema, r.body ?? {});
      const changed = await inJsonFields(async () => deps.manageVaults.setApiKeyRoles(vaultOf(r), r.params.keyId!, roles, r.actor, { allowSignerApprover: allowSignerApprover === true }));
      return ok({ ...presentKey(changed), previousRoles: [...changed.previousRoles], ...withProposal(changed) });
    },
  },
  {
    method: 'GET',
    path: '/vaults/:vaultId/policy',
    operationId: 'adminGetPolicy',
    permission: 'policy.read',
    body: false,
    answer: async (deps, r) => ok({ vault: vaultOf(r), policy: await deps.managePolicies.export(vaultOf(r)) }),
  },
  {
    method: 'PUT',
    path: '/vaults/:vaultId/policy',
    operationId: 'adminSetPolicy',
    permission: 'policy.change',
    body: true,
    // The document is checked by the use case, which names its first wrong field; a governed vault's is a proposal.
    answer: async (deps, r) => {
      if (r.body === undefined) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'body: must be a policy document (docs/policy.md)');
      const applied = await deps.managePolicies.apply(vaultOf(r), r.body, r.actor);
      return ok('proposal' in applied ? { vault: vaultOf(r), proposal: applied.proposal } : { vault: vaultOf(r), policy: applied });
    },
  },
  {
    method: 'POST',
    path: '/vaults/:vaultId/freeze',
    operationId: 'adminFreezeVault',
    permission: 'vault.freeze',
    body: true,
    answer: async (deps, r) => {
      const reason = parseOrThrow(freezeBodySchema, r.body ?? {}).reason ?? null;
      return ok({ vault: vaultOf(r), frozen: true, ...(await deps.governance.freeze(vaultOf(r), reason, r.actor)) });
    },
  },
  {
    method: 'POST',
    path: '/vaults/:vaultId/unfreeze',
    operationId: 'adminUnfreezeVault',
    permission: 'vault.unfreeze',
    body: false,
    // A governed vault's freezes are lifted by its quorum: the answer is the proposal that lifts them.
    answer: async (deps, r) => {
      const result = await deps.governance.unfreeze(vaultOf(r), r.actor);
      return ok({ vault: vaultOf(r), ...result });
    },
  },
  {
    method: 'GET',
    path: '/vaults/:vaultId/approvers',
    operationId: 'adminListApprovers',
    permission: 'approvers.read',
    body: false,
    answer: async (deps, r) => ok(await deps.consoleInvites.list(vaultOf(r))),
  },
  {
    method: 'POST',
    path: '/vaults/:vaultId/approvers/invites',
    operationId: 'adminInviteApprover',
    permission: 'approvers.change',
    body: true,
    answer: async (deps, r) => {
      const options = parseOrThrow(adminInviteBodySchema, r.body ?? {});
      const { url, expires, governed } = await deps.consoleInvites.invite(vaultOf(r), options, r.actor);
      return ok({ url, expires: expires.toISOString(), governed });
    },
  },
  {
    method: 'DELETE',
    path: '/vaults/:vaultId/approvers/:keyId',
    operationId: 'adminRevokeApprover',
    permission: 'approvers.change',
    body: false,
    // An approver is its API key: revoked at once, its console sessions refused; a proposal on a governed vault.
    answer: async (deps, r) => ok({ id: r.params.keyId!, revoked: true, ...withProposal(await deps.manageVaults.revokeApiKey(r.params.keyId!, r.actor, vaultOf(r))) }),
  },
  {
    method: 'GET',
    path: '/vaults/:vaultId/webhooks',
    operationId: 'adminListWebhooks',
    permission: 'webhooks.read',
    body: false,
    answer: async (deps, r) => ok((await deps.manageWebhooks.list(vaultOf(r))).map(presentWebhook)),
  },
  {
    method: 'POST',
    path: '/vaults/:vaultId/webhooks',
    operationId: 'adminAddWebhook',
    permission: 'webhooks.change',
    body: true,
    answer: async (deps, r) => {
      const { url, events } = parseOrThrow(adminWebhookBodySchema, r.body);
      const endpoint = await deps.manageWebhooks.add({ vaultId: vaultOf(r), url, ...(events === undefined ? {} : { events }) }, r.actor);
      return ok({ ...presentWebhook(endpoint), ...withProposal(endpoint) });
    },
  },
  {
    method: 'DELETE',
    path: '/vaults/:vaultId/webhooks/:webhookId',
    operationId: 'adminRemoveWebhook',
    permission: 'webhooks.change',
    body: false,
    answer: async (deps, r) => {
      const made = await deps.manageWebhooks.remove(vaultOf(r), r.params.webhookId!, r.actor);
      return ok({ vault: vaultOf(r), id: r.params.webhookId!, removed: made.proposal === undefined, ...withProposal(made) });
    },
  },
  {
    method: 'POST',
    path: '/vaults/:vaultId/webhooks/:webhookId/replay',
    operationId: 'adminReplayWebhook',
    permission: 'webhooks.change',
    body: true,
    answer: async (deps, r) => {
      const { fromSeq } = parseOrThrow(adminWebhookReplayBodySchema, r.body);
      const { endpoint, previousSeq } = await deps.manageWebhooks.replay({ vaultId: vaultOf(r), id: r.params.webhookId!, fromSeq }, r.actor);
      return ok({ ...presentWebhook(endpoint), fromSeq, previousSeq });
    },
  },
  {
    method: 'GET',
    path: '/vaults/:vaultId/governance',
    operationId: 'adminGetGovernance',
    permission: 'governance.read',
    body: false,
    answer: async (deps, r) => ok(presentGovernance(await deps.governance.show(vaultOf(r)))),
  },
  {
    method: 'PUT',
    path: '/vaults/:vaultId/governance',
    operationId: 'adminSetGovernance',
    permission: 'governance.change',
    body: true,
    // An ungoverned vault becomes governed (its genesis, with the pin to configure); a governed one gets a proposal.
    answer: async (deps, r) => {
      const input = parseOrThrow(adminGovernanceBodySchema, r.body);
      const result = await deps.governance.set(vaultOf(r), input, r.actor);
      const made = 'genesis' in result ? { genesis: result.genesis.hash, pin: result.genesis.pin } : { proposal: result.proposal };
      return ok({ vault: vaultOf(r), ...made, warnings: [...result.warnings] });
    },
  },
  {
    method: 'GET',
    path: '/vaults/:vaultId/proposals',
    operationId: 'adminListProposals',
    permission: 'governance.read',
    body: false,
    answer: async (deps, r) => {
      const list = await deps.governance.list(vaultOf(r));
      return ok({ count: list.length, page: list.map(presentProposal) });
    },
  },
  {
    method: 'GET',
    path: '/vaults/:vaultId/proposals/:proposalId',
    operationId: 'adminGetProposal',
    permission: 'governance.read',
    body: false,
    answer: async (deps, r) => ok(presentProposal(await deps.governance.get(vaultOf(r), r.params.proposalId!))),
  },
];

/** The admin routes as service routes: each authenticates the operator, checks its permission and scope, then answers. */
export function adminRoutes(deps: HttpDeps): ServiceRoute[] {
  return ADMIN_ROUTES.map(
    (route): ServiceRoute => ({
      path: `${ADMIN_PREFIX}${route.path}`,
      method: route.method,
      ...(route.body ? { body: 'json' as const } : {}),
      // Each call reads the operator's row: counted under the per-address limit first, as an unseal is.
      limited: true,
      answer: async (r) => {
        const presented = bearerCredential(r.authorization);
        if (typeof presented !== 'string') throw new DomainError(ErrorCode.UNAUTHENTICATED, presented.message.replace('API key', 'operator credential'));
        let operator: OperatorView;
        try {
          operator = await deps.manageOperators.authenticate(presented);
        } catch (error) {
          r.refusedToken();
          throw error;
        }
        // Named on the request's log line from here on, a refusal of its role included.
        r.operatorAuthenticated?.(operator.name);
        await deps.manageOperators.authorize(operator, route.permission, r.params.vaultId ?? null, `${route.method} ${ADMIN_PREFIX}${route.path}`);
        // After authentication, as for a vault write: a change refused for want of an audit sink changes nothing.
        if (route.method !== 'GET' && deps.auditSinkGate !== undefined) deps.auditSinkGate();
        return route.answer(deps, { operator, actor: operatorActor(operator.name), params: r.params, body: r.body });
      },
    }),
  );
}
