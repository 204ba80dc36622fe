import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Principal } from '../../src/application/authenticate.use-case.js';
import { parseIdempotencyKey } from '../../src/application/idempotency.js';
import { DomainError, ErrorCode, isDomainError } from '../../src/domain/errors.js';
import { admitClient, clientAddressOf } from './address-rate-limit.js';
import { takeRateLimit } from './api-key-rate-limit.js';
import { errorEnvelope, toErrorResponse, UNAVAILABLE_RETRY_AFTER } from './error-response.js';
import type { HttpDeps } from './http-deps.js';
import { STATUS_BY_CODE } from './error-status.js';
import { parseJsonBody } from './json-body.js';
import { DEFAULT_ARGS_BOUNDS, type JsonBounds } from './json-bounds.js';
import { bodyLimits, type JsonTextLimits } from './json-nesting.js';
import { operatorTokenMatches } from './operator-token.js';
import { requestContextOf } from './request-context.js';
import { handleSign, writeSignOutput } from './sign-handler.js';
import { presentSubmission, presentWallet } from './presenters.js';
import { registerApiDocs, type ApiDocsOptions } from './openapi/api-docs.routes.js';
import { listQuerySchema, nameBodySchema, parseOrThrow, submissionBodySchema } from './schemas.js';

interface VaultLocals {
  requestId: string;
  inVault?: boolean;
  vaultId: string;
  /** Who is calling: the API key (by id) that authenticated, for the audit trail. */
  principal: Principal;
  body?: unknown;
}

const locals = (res: Response) => res.locals as VaultLocals;
const ok = (res: Response, data: unknown) => res.status(200).json({ success: true, data });
const param = (req: Request, name: string) => String(req.params[name]);

/**
 * The standalone server's Express app: every route of docs/api.md, health, readiness and metrics
 * included, at the root.
 */
export function createHttpApp(deps: HttpDeps, options: { apiDocs?: boolean } = {}): express.Express {
  return createVaultApp(deps, { health: true, notFound: true, apiDocs: { ui: options.apiDocs ?? true } });
}

export interface VaultAppOptions {
  /** Serve `GET /healthz` and `GET /readyz`. */
  readonly health: boolean;
  /** Answer any other path with the service's 404 envelope (ROUTE_NOT_FOUND) instead of passing it on. */
  readonly notFound: boolean;
  /** Serve `GET /openapi.json`, and with `ui` the Swagger UI page `GET /docs` (openapi/api-docs.routes.ts). */
  readonly apiDocs?: ApiDocsOptions;
}

/**
 * The vault's routes as an Express app of their own, so the settings they were written for (the
 * extended query parser, no ETag, no X-Powered-By) hold wherever it is mounted: the standalone server
 * serves it at the root, vaultRouter (wallet-vault/express) under any prefix of an embedding app.
 */
export function createVaultApp(deps: HttpDeps, options: VaultAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'extended');

  // The request id and the request log line come from observe-requests.ts, which wraps this app.
  app.use((req, res, next) => {
    const context = requestContextOf(req);
    locals(res).requestId = context?.requestId ?? ownRequestId(res);
    if (context) context.resolveRoute = () => routePattern(req, locals(res).inVault === true);
    next();
  });

  const operator = (req: Request) => deps.operatorToken !== undefined && operatorTokenMatches(deps.operatorToken, req.header('authorization'));
  if (options.health) {
    app.get('/healthz', (_req, res) => {
      res.status(200).json({ status: 'ok' });
    });
    app.get('/readyz', async (req, res) => {
      try {
        await deps.readiness();
        res.status(200).json({ status: 'ready' });
      } catch (error) {
        // A ReadinessFailure (adapters/main/readiness.ts) carries the why apart from the message.
        const why: unknown = isDomainError(error) ? (error as { details?: unknown }).details : undefined;
        const details = typeof why === 'string' ? why : undefined;
        if (details !== undefined) deps.logger.warn({ problems: details }, 'not ready');
        // A dependency down is 503 under its own code; readiness failing otherwise is unexpected, answered as on any route.
        const down = isDomainError(error) && STATUS_BY_CODE[error.code] === 503;
        const failure = down ? { status: 503, code: error.code, message: error.message } : toErrorResponse(error, locals(res).requestId, deps.logger);
        const message = details !== undefined && operator(req) ? details : failure.message;
        if (failure.status === 503) res.set(UNAVAILABLE_RETRY_AFTER);
        res.status(failure.status).json(errorEnvelope(failure.code, message));
      }
    });
  }

  if (deps.metrics) {
    const metrics = deps.metrics;
    app.get('/metrics', async (req, res) => {
      if (deps.operatorToken !== undefined && !operator(req)) {
        res
          .status(STATUS_BY_CODE.UNAUTHENTICATED)
          .set('WWW-Authenticate', 'Bearer')
          .json(errorEnvelope(ErrorCode.UNAUTHENTICATED, 'metrics need the operator token (Authorization: Bearer <VAULT_METRICS_TOKEN>)'));
        return;
      }
      const { contentType, text } = await metrics.exposition();
      res.status(200).type(contentType).send(text);
    });
  }

  if (options.apiDocs) registerApiDocs(app, options.apiDocs);

  // Sign authenticates and reads its own body (sign-handler.ts), so it sits before the vault middleware.
  app.post(['/api/v1/vaults/:vaultId/sign', '/api/v1/vault/:vaultId/sign'], async (req, res) => {
    const context = requestContextOf(req);
    if (context) context.route = `${VAULT_ROUTE_PREFIX}/sign`;
    // An app that parsed the body to raw bytes already (express.raw) hands them over as they are.
    const body = Buffer.isBuffer(req.body) ? req.body : req;
    const source = clientAddressOf(deps, req);
    writeSignOutput(res, await handleSign(deps, { vaultId: param(req, 'vaultId'), headers: req.headers, body, requestId: locals(res).requestId, source }));
  });

  const vault = express.Router({ mergeParams: true });
  vault.use(async (req, res, next) => {
    locals(res).inVault = true;
    const source = admitClient(deps, req);
    const vaultId = param(req, 'vaultId');
    locals(res).principal = await deps.authenticate.execute(req.header('authorization'), vaultId, source);
    takeRateLimit(deps, locals(res).principal.apiKeyId);
    locals(res).vaultId = vaultId;
    next();
  });
  const body = readJsonBody(deps.bodyLimitBytes, bodyLimits(deps.argsBounds ?? DEFAULT_ARGS_BOUNDS));

  vault.get('/wallets', async (req, res) => {
    const { offset, count } = parseOrThrow(listQuerySchema, req.query);
    const result = await deps.listWallets.execute(locals(res).vaultId, offset, count);
    ok(res, { count: result.count, page: result.page.map(presentWallet) });
  });
  vault.post('/wallets', body, async (req, res) => {
    const key = parseIdempotencyKey(req.header('idempotency-key'));
    const { name } = parseOrThrow(nameBodySchema, locals(res).body);
    const idempotency = key === undefined ? undefined : { key, body: locals(res).body };
    ok(res, presentWallet(await deps.createWallet.execute({ principal: locals(res).principal, name, idempotency })));
  });
  vault.get('/wallets/:address', async (req, res) => {
    ok(res, presentWallet(await deps.getWallet.execute(locals(res).vaultId, param(req, 'address'))));
  });
  vault.put('/wallets/:address', body, async (req, res) => {
    const { name } = parseOrThrow(nameBodySchema, locals(res).body);
    ok(res, presentWallet(await deps.renameWallet.execute(locals(res).principal, param(req, 'address'), name)));
  });
  vault.delete('/wallets/:address', async (req, res) => {
    ok(res, presentWallet(await deps.expireWallet.execute(locals(res).principal, param(req, 'address'))));
  });
  vault.post('/wallets/:address', async (req, res) => {
    ok(res, presentWallet(await deps.unexpireWallet.execute(locals(res).principal, param(req, 'address'))));
  });
  vault.get('/status', async (_req, res) => {
    const s = await deps.getVaultStatus.execute(locals(res).vaultId);
    // The one response without the envelope, as the interface specifies.
    res.status(200).json({
      timestamp: s.timestamp.toISOString(),
      online: s.online,
      vaultKeys: s.vaultKeys,
      wallets: s.wallets,
      version: s.version,
    });
  });
  vault.post('/submissions', body, async (_req, res) => {
    const submission = parseOrThrow(submissionBodySchema, locals(res).body);
    ok(res, presentSubmission(await deps.recordSubmission.execute({ vaultId: locals(res).vaultId, body: submission })));
  });
  vault.get('/submissions/:submissionHash', async (req, res) => {
    ok(res, presentSubmission(await deps.getSubmission.execute(locals(res).vaultId, param(req, 'submissionHash'))));
  });

  // `vault` (singular) appears in some of the interface's examples; `vaults` is canonical.
  app.use('/api/v1/vaults/:vaultId', vault);
  app.use('/api/v1/vault/:vaultId', vault);

  if (options.notFound) {
    app.use((req, _res, next) => {
      next(new DomainError(ErrorCode.ROUTE_NOT_FOUND, `no route ${req.method} ${req.path}`));
    });
  }
  app.use(errorHandler(deps.logger));
  return app;
}

/**
 * Reads the body as raw bytes and parses the JSON itself, so every failure is one of ours with a clear
 * message.
 */
function readJsonBody(limit: number, shape: JsonTextLimits) {
  const raw = express.raw({ type: () => true, limit });
  return (req: Request, res: Response, next: NextFunction) => {
    raw(req, res, (error?: unknown) => {
      if (error) return next(error);
      try {
        locals(res).body = parseJsonBody(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.header('content-type'), shape);
      } catch (parseError) {
        return next(parseError);
      }
      next();
    });
  };
}

function errorHandler(logger: HttpDeps['logger']) {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const { status, code, message, headers } = toErrorResponse(error, locals(res).requestId, logger);
    if (res.headersSent) return;
    if (headers) res.set(headers);
    res.status(status).json(errorEnvelope(code, message));
  };
}

/** Outside observe-requests.ts (an app mounted on its own), each answer still gets an id of its own. */
export function ownRequestId(res: { setHeader(name: string, value: string): unknown }): string {
  const id = randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

export const VAULT_ROUTE_PREFIX = '/api/v1/vaults/:vaultId';

/** The route pattern for metrics and logs: never the raw path, whose ids and addresses are unbounded. */
function routePattern(req: Request, inVault: boolean): string {
  const matched = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof matched === 'string') return inVault ? `${VAULT_ROUTE_PREFIX}${matched}` : matched;
  return inVault ? `${VAULT_ROUTE_PREFIX}/*` : 'unmatched';
}
