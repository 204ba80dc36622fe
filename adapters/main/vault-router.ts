import express from 'express';
import { z } from 'zod';
import { createHttpPipeline, ownRequestId } from '../http/pipeline.js';
import { trackRequest, untrackRequest, type RequestObserver } from '../http/observed-requests.js';
import type { HttpDeps, UseCasePorts } from '../http/http-deps.js';
import type { JsonBounds } from '../http/json-shape.js';
import { clientAddressResolver, parseTrustedProxies } from '../http/caller.js';
import { RateLimiter, SharedRateLimiter } from '../http/rate-limits.js';
import { redisRequestRates, type RedisClientLike } from '../rate-limit/redis.request-rates.js';
import { skipFailingStore } from '../rate-limit/store-breaker.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { RequestRateCounter } from '../../src/ports/request-rate-store.port.js';
import { GovernanceVerifier } from '../../src/application/governance/governance-verifier.js';
import type { Vault } from './create-vault.js';
import { TOKENS } from './tokens.js';
import { USE_CASES, type UseCases } from './use-cases.js';
import { checkOptions, port, VaultOptionsError, type VaultLogger } from './vault-options.js';

/** What `vaultRouter` serves besides the vault's API, and its limits. */
export interface VaultRouterOptions {
  /** Largest request body accepted (bytes, default 1 MiB); 413 above it. */
  readonly bodyLimitBytes?: number;
  /** Requests per minute per API key (after authentication); default: no limit. */
  readonly rateLimitPerMinute?: number;
  /**
   * Where `rateLimitPerMinute` is counted. `'database'`: in the vault's PostgreSQL database, one limit for
   * every instance on it (the default there); `'process'`: in memory, each instance its own limit (the
   * default with SQLite); `{ redis }`: in Redis, through an ioredis client of yours (you close it), under
   * `keyPrefix` (default `wallet-vault:rate`). A store that fails a count or takes over 250 ms: the
   * request is counted in this process instead, from the key's last count in the store, and the store is
   * skipped for 5 s (logged; counted by `metrics.observeRateLimitStoreFailed` and
   * `observeRateLimitStoreSkipped`).
   */
  readonly rateLimitStore?: 'process' | 'database' | { readonly redis: RedisClientLike; readonly keyPrefix?: string };
  /** Longest wait for one count by the shared store before it is skipped (ms, default 250). */
  readonly rateLimitStoreTimeoutMs?: number;
  /** Shape limits on Sign's `args` and `abi` (default: depth 16, 10 000 items, 131 072 characters). */
  readonly argsBounds?: JsonBounds;
  /** Serve `GET /healthz` and `GET /readyz` under the mount point (default false). */
  readonly health?: boolean;
  /**
   * Serve `GET /metrics` from this source (Prometheus text) and count each request into it when it can
   * (`observeRequest`: the object `prometheusMetrics()` returns); `true`: the vault's own series
   * (`createVault({ metrics: true })`), with the requests'. Default: no such route.
   */
  readonly metrics?: HttpDeps['metrics'] | true;
  /**
   * Answer any other path under the mount point with the vault's 404 envelope, and a path of the vault's
   * asked with a method it does not serve with its 405 envelope and `Allow` (default true). Set false when
   * mounting at `/` in front of routes of your own: both go to your next handler.
   */
  readonly notFound?: boolean;
  /** Where unexpected failures are logged (with the request id); default: silent. */
  readonly logger?: VaultLogger;
  /** Requests per minute per client address, taken before authentication (IPv6 per /64); default: none. */
  readonly addressRateLimitPerMinute?: number;
  /**
   * Proxies (addresses, CIDR ranges) whose X-Forwarded-For names the client; default none: the socket's
   * peer is the client. Express's `trust proxy` setting is not read.
   */
  readonly trustedProxies?: readonly string[];
  /** `/metrics` needs `Authorization: Bearer <token>`, and `/readyz` says why only to it; default: none. */
  readonly metricsToken?: string;
}

const SILENT: VaultLogger = { info() {}, warn() {}, error() {} };

const count = z.int().min(1);
const isProxyEntry = (entry: string) => {
  try {
    return parseTrustedProxies(entry).length === 1;
  } catch {
    return false;
  }
};
// Typed as JsonBounds: a bound added there and not here is a compile error.
const argsBoundsSchema: z.ZodType<JsonBounds> = z.strictObject({ maxDepth: count, maxArrayLength: count, maxStringLength: count, maxValues: count });
const optionsSchema = z.strictObject({
  bodyLimitBytes: count.optional(),
  rateLimitPerMinute: count.optional(),
  rateLimitStoreTimeoutMs: count.optional(),
  rateLimitStore: z
    .union([
      z.literal(['process', 'database']),
      z.strictObject({ redis: port(['defineCommand']), keyPrefix: z.string().min(1).max(100).optional() }),
    ])
    .optional(),
  argsBounds: argsBoundsSchema.optional(),
  health: z.boolean().optional(),
  metrics: z.union([z.literal(true), port(['exposition', 'observeRateLimited'])]).optional(),
  notFound: z.boolean().optional(),
  logger: port(['info', 'warn', 'error']).optional(),
  addressRateLimitPerMinute: count.optional(),
  trustedProxies: z.array(z.string().refine(isProxyEntry, 'must be an IP address or CIDR range')).optional(),
  metricsToken: z.string().min(16, 'must be at least 16 characters').optional(),
});
// An option added to VaultRouterOptions but not to the schema would be refused as unknown: make that
// a compile error naming it.
type Unchecked = Exclude<keyof VaultRouterOptions, keyof z.infer<typeof optionsSchema>>;
const everyOptionChecked: [Unchecked] extends [never] ? true : { missingFromSchema: Unchecked } = true;
void everyOptionChecked;

/**
 * The whole HTTP interface of docs/api.md as an Express router: `app.use('/vault', vaultRouter(vault))`
 * serves `/vault/api/v1/vaults/:vaultId/...`, answers and error envelopes byte for byte those of the
 * standalone server. Authentication is the vault's API keys; TLS and any auth of your own go in front.
 * A bad option throws VaultOptionsError naming it, here rather than at the first request.
 */
export function vaultRouter(vault: Vault, given: VaultRouterOptions = {}): express.Router {
  checkOptions('vaultRouter', optionsSchema, given);
  const options = { ...given, metrics: routerMetrics(vault, given.metrics) };
  const pipeline = createHttpPipeline(httpDepsOf(vault, options), { health: options.health ?? false });
  const notFound = options.notFound ?? true;
  const requests = options.metrics !== undefined && 'observeRequest' in options.metrics ? (options.metrics as RequestObserver) : undefined;
  const router = express.Router();
  // A shell: the request, its path below the mount and any body an earlier express.raw() read go to
  // the pipeline; a path it has no route for goes back to the embedding app when notFound is false.
  router.use((req, res, next) => {
    // Counted as the standalone server counts it (by route pattern); a request handed back to the app is the app's.
    if (requests) trackRequest(req, res, requests);
    void pipeline.handle(req, res, {
      url: req.url,
      base: req.baseUrl,
      ...(Buffer.isBuffer(req.body) ? { body: req.body } : {}),
      ...(notFound ? {} : { pass: () => (untrackRequest(req), next()) }),
    });
  });
  return router;
}

/** The router's metrics: `true` is the vault's own (createVault's `metrics`), refused when it has none. */
function routerMetrics(vault: Vault, metrics: VaultRouterOptions['metrics']): HttpDeps['metrics'] {
  if (metrics !== true) return metrics;
  if (vault.metrics === undefined) throw new VaultOptionsError('vaultRouter: metrics: true needs a vault made with createVault({ metrics: true }) (or pass prometheusMetrics() to both)');
  return vault.metrics;
}

/**
 * The HTTP layer's view of a vault (the standalone server builds its pipeline from the same): every use
 * case of USE_CASES and the HTTP settings. The use cases are read from the vault here, once, so a request
 * goes from the routes straight to the use case's object and runs nothing of the composition root. Only
 * one the vault cannot build (a use case on keys, in a vault without key stores) is read again when a
 * route needs it, failing there as before, while the other routes serve.
 */
export function httpDepsOf(vault: Vault, options: Omit<VaultRouterOptions, 'metrics'> & { readonly metrics?: HttpDeps['metrics'] }): HttpDeps {
  // Of the registry's own type (every entry of USE_CASES, each read from the vault's property of its name);
  // that it serves what the routes call is the compiler's check below, not a cast to HttpDeps.
  const useCases = {} as UseCases;
  for (const name of Object.keys(USE_CASES) as (keyof UseCases)[]) {
    let useCase: unknown;
    try {
      useCase = vault[name];
    } catch {
      Object.defineProperty(useCases, name, { enumerable: true, get: () => vault[name] });
      continue;
    }
    Object.defineProperty(useCases, name, { enumerable: true, value: useCase });
  }
  // Checked, not cast: a registry that lost a use case the routes call (UseCasePorts) fails to compile here;
  // a use case's changed parameters fail at the route that passes the old ones (UseCasePorts is of its class).
  const routesCall: UseCasePorts = useCases;
  return Object.assign(routesCall, {
    readiness: () => vault.readiness(),
    governanceHealth: () => vault.container.get(GovernanceVerifier).recentHealth(),
    webhookKeys: () => vault.webhookKeys(),
    auditCheckpointKeys: () => vault.auditCheckpointKeys(),
    ...(vault.auditSinkGate ? { auditSinkGate: vault.auditSinkGate } : {}),
    logger: options.logger ?? SILENT,
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    metrics: options.metrics,
    rateLimiter: options.rateLimitPerMinute === undefined ? undefined : apiKeyRateLimiter(vault, options, options.rateLimitPerMinute),
    argsBounds: options.argsBounds,
    // Checked here too: a library caller's list is not validated by the server's configuration.
    clientAddress: clientAddressResolver(parseTrustedProxies((options.trustedProxies ?? []).join(','))),
    addressRateLimiter:
      options.addressRateLimitPerMinute === undefined
        ? undefined
        : new RateLimiter(options.addressRateLimitPerMinute, Date.now, { scope: 'this client address' }),
    operatorToken: options.metricsToken,
    ...(vault.seal ? { seal: vault.seal } : {}),
  });
}

/**
 * The per-API-key limiter `rateLimitStore` names: by default shared through the vault's database when it
 * is PostgreSQL, in process with SQLite (whose processes share one host; see docs/configuration.md).
 */
function apiKeyRateLimiter(vault: Vault, options: Omit<VaultRouterOptions, 'metrics'> & { readonly metrics?: HttpDeps['metrics'] }, perMinute: number): HttpDeps['rateLimiter'] {
  const choice = options.rateLimitStore ?? (vault.requestRates ? 'database' : 'process');
  if (choice === 'process') return new RateLimiter(perMinute);
  const logger = options.logger ?? SILENT;
  const clock = vault.container.get<Clock>(TOKENS.CLOCK);
  const limit = { points: perMinute, windowSeconds: 60 };
  // A failing store is skipped for a while rather than waited on by every request (store-breaker.ts).
  const shared = (counter: RequestRateCounter, store: string) =>
    new SharedRateLimiter(
      skipFailingStore(counter, {
        clock,
        ...(options.rateLimitStoreTimeoutMs === undefined ? {} : { callTimeoutMs: options.rateLimitStoreTimeoutMs }),
        failed: () => options.metrics?.observeRateLimitStoreFailed?.(),
        skipped: (seconds) => options.metrics?.observeRateLimitStoreSkipped?.(seconds),
      }),
      perMinute,
      { logger },
      store,
      clock,
    );
  if (choice === 'database') {
    if (!vault.requestRates) throw new VaultOptionsError("vaultRouter: rateLimitStore: 'database' needs a vault on PostgreSQL (SQLite counts in process)");
    return shared(vault.requestRates.counter(limit), 'database');
  }
  return shared(redisRequestRates(choice.redis, choice.keyPrefix).counter(limit), 'redis');
}

/**
 * The vault's public keys where receivers and auditors fetch them, outside the router's mount (which an
 * app often puts behind its own authentication): `app.get(WEBHOOK_KEYS_PATH, webhookKeysHandler(vault))`
 * before the app's auth middleware, as the standalone server serves them at its root. Public and the
 * same for every caller, so cacheable for five minutes.
 */
export function webhookKeysHandler(vault: Vault): express.RequestHandler {
  return (_req, res, next) => {
    ownRequestId(res);
    vault.webhookKeys().then((keys) => void res.set('Cache-Control', 'public, max-age=300').json(keys), next);
  };
}

/** `GET /.well-known/wallet-vault-audit-checkpoint-keys` for the app's root: 404 when the vault signs no checkpoints. */
export function auditCheckpointKeysHandler(vault: Vault): express.RequestHandler {
  return (_req, res, next) => {
    const keys = vault.auditCheckpointKeys();
    if (keys === null) return next();
    ownRequestId(res);
    res.set('Cache-Control', 'public, max-age=300').json(keys);
  };
}
