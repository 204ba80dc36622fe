import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

/*
 * Each request as observed: its id and the context every layer below finds on it (requestContextOf),
 * and, once answered, its log line and metrics (observeRequests, the outermost layer of every request).
 */

/** What every log line written while serving one request carries. */
export interface RequestContext {
  readonly requestId: string;
  /** The route pattern that served the request (`/api/v1/vaults/:vaultId/wallets/:address`), for metrics. */
  route?: string;
  /** Set when the request went back to the embedding app: neither counted nor logged as the vault's. */
  untracked?: boolean;
  /** The client's address as caller.ts resolved it (behind trusted proxies: the forwarded one), once known. */
  client?: string;
  /** The vault the path names, once its request reached authentication. */
  vaultId?: string;
  /** The id (never the value) of the API key that authenticated. */
  apiKeyId?: string;
  /** The named operator that authenticated, where a route takes operators' credentials. */
  operator?: string;
}

/*
 * The context travels with the request object, not in an AsyncLocalStorage. On Node 20 an
 * AsyncLocalStorage in use installs promise hooks that run on every promise the process creates, and the
 * sign path creates many: measured at 10 to 15 % of the server's CPU per sign (docs/benchmarks.md). Code
 * that logs while serving a request names the request id itself (see error-response.ts).
 */
// A symbol-keyed property of the request rather than a WeakMap entry: an entry per request in a WeakMap
// measured ~7 µs of event-loop time per sign (`bench:sign-profile`), and every one is an ephemeron the
// garbage collector must process; the property costs one store and dies with the request.
const CONTEXT = Symbol('wallet-vault request context');
type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

// A caller's own id (from a proxy or the client) is kept so one id follows the request across systems;
// anything else is replaced, so a header can never inject text into the logs.
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The caller's `X-Request-Id` when it is a plain token of 8 to 128 characters, else a fresh UUID. */
function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && ACCEPTABLE_ID.test(given) ? given : randomUUID();
}

/** Gives the request its context, for the layers below to find with requestContextOf. */
function attachRequestContext(req: IncomingMessage, context: RequestContext): void {
  (req as WithContext)[CONTEXT] = context;
}

/** The context of a request that came through observeRequests, if it did. */
export function requestContextOf(req: IncomingMessage): RequestContext | undefined {
  return (req as WithContext)[CONTEXT];
}

/** Where answered requests are counted; PrometheusMetrics implements it. */
export interface RequestObserver {
  observeRequest(method: string, route: string, status: number, seconds: number): void;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

/**
 * The standalone server's request listener, the outermost layer of every request: gives the request its
 * id (echoed in `X-Request-Id`) and its context, hands it to the pipeline (the server is mounted at the
 * root), and on the answer logs one `request` line and feeds the metrics, labelled by route pattern.
 * It calls the pipeline itself, so no listener of the composition root's runs per request.
 */
export function observeRequests(
  // The pipeline's shape, not its module: pipeline.ts reads the context this module attaches.
  pipeline: { handle(req: IncomingMessage, res: ServerResponse, exchange: { url: string; base: string }): Promise<void> },
  deps: { logger: { info(o: object, m?: string): void }; metrics?: RequestObserver },
): RequestListener {
  return (req, res) => {
    trackRequest(req, res, deps.metrics, (line) => deps.logger.info(line, 'request'));
    void pipeline.handle(req, res, { url: req.url ?? '/', base: '' });
  };
}

/**
 * Gives a request its id (echoed in `X-Request-Id`) and context, and once answered counts it into
 * `metrics` by route pattern and hands `log` its line: the standalone server's listener and the Express
 * router (`metrics`) both observe requests through this.
 */
export function trackRequest(req: IncomingMessage, res: ServerResponse, metrics: RequestObserver | undefined, log?: (line: object) => void): void {
  const context: RequestContext = { requestId: requestIdOf(req) };
  // performance.now() and `on` (a response finishes once): no BigInt pair and no once-wrapper per request.
  const started = performance.now();
  res.setHeader('X-Request-Id', context.requestId);
  res.on('finish', () => {
    if (context.untracked) return;
    const seconds = (performance.now() - started) / 1000;
    const route = context.route ?? 'unmatched';
    const method = METHODS.has(req.method ?? '') ? req.method! : 'OTHER';
    metrics?.observeRequest(method, route, res.statusCode, seconds);
    log?.(requestLine(context, method, route, res.statusCode, seconds * 1000));
  });
  attachRequestContext(req, context);
}

/**
 * The request's log line (docs/operations.md "Request log lines"): who asked (vault, API key id or
 * operator, client address), what (method, route pattern, never the raw path, which can carry anything)
 * and how it ended. Only what the pipeline already resolved: no look-up is made for the log. Never a
 * header or a body, so never a credential.
 */
function requestLine(context: RequestContext, method: string, route: string, status: number, ms: number): object {
  const line: Record<string, string | number> = { requestId: context.requestId, method, route, status, ms };
  if (context.client !== undefined) line.client = context.client;
  if (context.vaultId !== undefined) line.vault = context.vaultId;
  if (context.apiKeyId !== undefined) line.keyId = context.apiKeyId;
  if (context.operator !== undefined) line.operator = context.operator;
  return line;
}

/** A request the embedding app serves after all (the router's `notFound: false`): not the vault's to count. */
export function untrackRequest(req: IncomingMessage): void {
  const context = requestContextOf(req);
  if (context) context.untracked = true;
}
