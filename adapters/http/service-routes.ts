import { DomainError, ErrorCode, isDomainError } from '../../src/domain/errors.js';
import { STATUS_BY_CODE } from './error-status.js';
import type { HttpDeps } from './http-deps.js';
import { apiDocs, type ApiDocsOptions, type DocsFile } from './openapi/api-docs.routes.js';
import { operatorTokenMatches } from './operator-token.js';
import { jsonReply, type Reply } from './routes.js';
import { adminRoutes } from './admin-routes.js';
import { adminSignInRoutes } from './admin-sign-in-routes.js';
import { sealRoutes } from './seal-routes.js';
import type { ServiceRequest, ServiceRoute } from './service-route.js';

export type { ServiceRequest, ServiceRoute } from './service-route.js';

/*
 * The routes outside the vaults: health, readiness, metrics, the public keys and the API docs. Apart from
 * the vault routes (routes.ts) because the API docs render the OpenAPI document, which reads the vault
 * routes: the two tables in one module would import each other.
 */

/** Where the public keys of webhook deliveries are served (decisions.md). */
export const WEBHOOK_KEYS_PATH = '/.well-known/wallet-vault-webhook-keys';
/** Where the public key of the signed audit checkpoints is served (docs/security.md). */
export const AUDIT_CHECKPOINT_KEYS_PATH = '/.well-known/wallet-vault-audit-checkpoint-keys';

/** What the app serves besides the vault routes. */
export interface ServiceOptions {
  /** `GET /healthz` and `GET /readyz`. */
  readonly health: boolean;
  /** `GET /openapi.json`, and with `ui` the Swagger UI page `GET /docs`. */
  readonly apiDocs?: ApiDocsOptions;
}

/** health, readiness, metrics (when `deps.metrics`) and the API docs: all GET (and HEAD). The console's are console-routes.ts'. */
export function serviceRoutes(deps: HttpDeps, options: ServiceOptions): ServiceRoute[] {
  const routes: ServiceRoute[] = [];
  const operator = (authorization: string | undefined) => deps.operatorToken !== undefined && operatorTokenMatches(deps.operatorToken, authorization);
  if (options.health) {
    routes.push({ path: '/healthz', answer: async () => jsonReply(200, { status: 'ok' }) });
    routes.push({
      path: '/readyz',
      answer: async (r) => {
        try {
          await deps.readiness();
        } catch (error) {
          throw notReady(error, deps, operator(r.authorization));
        }
        return jsonReply(200, { status: 'ready', ...(await governanceOfReadiness(deps, operator(r.authorization))) });
      },
    });
  }
  const webhookKeys = deps.webhookKeys;
  if (webhookKeys) {
    // Public and the same for every caller: cacheable, so receivers can keep it for a while.
    routes.push({ path: WEBHOOK_KEYS_PATH, answer: async () => jsonReply(200, await webhookKeys(), { 'cache-control': 'public, max-age=300' }) });
  }
  const checkpointKeys = deps.auditCheckpointKeys?.();
  // A key of its own, at a path of its own: a webhook signature and a checkpoint signature are never
  // checked against each other's key. Absent where the vault writes no checkpoints.
  if (checkpointKeys) routes.push({ path: AUDIT_CHECKPOINT_KEYS_PATH, answer: async () => jsonReply(200, checkpointKeys, { 'cache-control': 'public, max-age=300' }) });
  const metrics = deps.metrics;
  if (metrics) {
    routes.push({
      path: '/metrics',
      answer: async (r) => {
        if (deps.operatorToken !== undefined && !operator(r.authorization)) {
          if (/^Bearer\s+\S/i.test(r.authorization ?? '')) r.refusedToken();
          throw new DomainError(ErrorCode.UNAUTHENTICATED, 'metrics need the operator token (Authorization: Bearer <VAULT_METRICS_TOKEN>)');
        }
        const { contentType, text } = await metrics.exposition();
        return { status: 200, type: contentType, body: text };
      },
    });
  }
  routes.push(...sealRoutes(deps, operator));
  routes.push(...adminRoutes(deps), ...adminSignInRoutes(deps));
  if (options.apiDocs) {
    const docs = apiDocs(options.apiDocs);
    const file = (f: DocsFile | undefined): Reply | undefined => f && { status: 200, type: f.type, ...(f.headers ? { headers: f.headers } : {}), body: f.body };
    routes.push({ path: '/openapi.json', answer: async () => file(docs.openApi()) });
    if (docs.ui) {
      routes.push({ path: '/docs', answer: async (r) => file(docs.page(r.base)) });
      // An unknown file is no route (undefined): answered as any unknown path.
      routes.push({ path: '/docs/assets/:name', answer: async (r) => file(docs.asset(r.params.name!)) });
    }
  }
  return routes;
}

/**
 * `/readyz`'s word on governance: ready stays ready (one vault whose state does not verify refuses its own
 * signatures, not the others'), and the body names each governed vault that does not verify; why, only to
 * the operator (as for a dependency down). Nothing when every one verifies.
 */
async function governanceOfReadiness(deps: HttpDeps, operator: boolean): Promise<{ governance?: { unverified: { vault: string; problem?: string }[] } }> {
  const health = await deps.governanceHealth?.().catch(() => undefined);
  if (health === undefined || health.unverified.length === 0) return {};
  return { governance: { unverified: health.unverified.map((u) => (operator ? { vault: u.vault, problem: u.problem } : { vault: u.vault })) } };
}

/**
 * Readiness failing: a dependency down (a ReadinessFailure, 503) keeps its code, and says why only to
 * the operator; anything else is as unexpected as on any route.
 */
function notReady(error: unknown, deps: HttpDeps, operator: boolean): unknown {
  if (!isDomainError(error) || STATUS_BY_CODE[error.code] !== 503) return error;
  // A ReadinessFailure (adapters/main/readiness.ts) carries the why apart from the message.
  const why: unknown = (error as { details?: unknown }).details;
  if (typeof why !== 'string') return error;
  deps.logger.warn({ problems: why }, 'not ready');
  return operator ? new DomainError(error.code, why) : error;
}
