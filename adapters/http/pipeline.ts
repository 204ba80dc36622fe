import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import type { Principal } from '../../src/application/access/principal.js';
import { bearerCredential, clientAddressOf } from './caller.js';
import { errorEnvelope, toErrorResponse, type ErrorResponse } from './error-response.js';
import { STATUS_BY_CODE } from './error-status.js';
import type { HttpDeps } from './http-deps.js';
import { DEFAULT_ARGS_BOUNDS } from './json-shape.js';
import { requestContextOf, type RequestContext } from './observed-requests.js';
import { takeAddressLimit, takeRateLimit } from './rate-limits.js';
import { bodyLimits, parseJsonBody, parseSignBody, readRequestBody, signBodyLimits, type BodyReading } from './request-body.js';
import { matchRoute, routeTable, type RouteMatch, type RouteTable } from './route-matcher.js';
import { JSON_TYPE, VAULT_ROUTE_PREFIX, type Reply } from './routes.js';
import { serviceRoutes, type ServiceOptions } from './service-routes.js';
import { consoleRoutes } from './console-routes.js';

/** What a shell hands over with the request. */
export interface Exchange {
  /** Path and query below where the app is mounted (`req.url` of node, or of Express inside a mount). */
  readonly url: string;
  /** The mount path ('' at the root), for links. */
  readonly base: string;
  /** The body an embedding app already read as bytes (express.raw): used as it is. */
  readonly body?: Buffer;
  /** No route of the vault's: hand the request back (an embedding app's next handler); absent: answer 404. */
  readonly pass?: () => void;
}

/** What the app serves besides the vault routes (health, docs); metrics whenever HttpDeps has them. */
export type PipelineOptions = ServiceOptions;

/** The one HTTP pipeline: every request, whichever shell received it, is answered here. */
export interface HttpPipeline {
  handle(req: IncomingMessage, res: ServerResponse, exchange: Exchange): Promise<void>;
}

const VAULT_UNMATCHED = `${VAULT_ROUTE_PREFIX}/*`;
/** The methods that write nothing but what authentication records: never refused for want of an audit sink. */
const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The admission sequence, written once: the per-address limit, authentication (the API key of
 * `Authorization: Bearer`, from a network the key allows), the per-key rate limit, the role the route
 * declares; then the body within its limit, for Sign and the standard signing routes
 * X-Vault-Auth-Signature over the raw bytes, the JSON parse within its bounds, the zod parse into the
 * use case's command, the use case, the presenter. Every failure is answered by toErrorResponse.
 */
export function createHttpPipeline(deps: HttpDeps, options: PipelineOptions): HttpPipeline {
  // The approvers' console's routes (docs/console.md) are service routes too: outside the vaults, no API key.
  const table: RouteTable = routeTable([...serviceRoutes(deps, options), ...consoleRoutes(deps)]);
  const bounds = deps.argsBounds ?? DEFAULT_ARGS_BOUNDS;
  const jsonLimits = bodyLimits(bounds);
  // A typed-data message or a transaction's data can be as wide as a Sign body: Sign's text limits.
  const signedJsonLimits = signBodyLimits(bounds);
  const signedReading: BodyReading = { limit: deps.bodyLimitBytes, decode: false, consumed: 'error' };
  const jsonReading: BodyReading = { limit: deps.bodyLimitBytes, decode: true, consumed: 'empty' };

  async function vaultRequest(
    req: IncomingMessage,
    match: VaultMatch,
    exchange: Exchange,
    context: RequestContext | undefined,
    label: (route: string) => void,
    refusedToken: () => void,
  ): Promise<Reply | undefined> {
    const route = match.route;
    // Sign is labelled by its route from the start (its label was always its own); any other request
    // refused at admission by the vault prefix, or as unmatched when its vault id is malformed: never by
    // a path it names.
    const sign = route?.body === 'signed';
    label(sign ? route.label : 'unmatched');
    const vaultId = decodeSegment(match.vaultId);
    if (!sign) label(VAULT_UNMATCHED);
    // The address is what authentication reports refusals under.
    const source = clientAddressOf(deps, req);
    if (context) context.client = source;
    takeAddressLimit(deps, source);
    const credential = bearerCredential(req.headers.authorization);
    let principal: Principal;
    try {
      principal = await deps.authenticate.execute(credential, vaultId, source);
    } catch (error) {
      // A Bearer token was presented and refused: RFC 6750's invalid_token (no error code for no token).
      if (typeof credential === 'string') refusedToken();
      throw error;
    }
    // The log line names the vault once a key of it authenticated: a refused path's text is not logged.
    if (context) {
      context.vaultId = principal.vaultId;
      context.apiKeyId = principal.apiKeyId;
    }
    // Awaited only when the limit is counted in a shared store: the in-process one answers synchronously.
    const limited = takeRateLimit(deps, principal.apiKeyId);
    if (limited) await limited;
    if (route === undefined) return unmatched(req.method ?? '', match.allowed);
    const params = decodeParams(match.params);
    label(route.label);
    // After the per-key limit, so a key refused its role still spends its rate (each refusal is audited).
    await deps.authorize.execute(principal, route.role, `${req.method} ${route.label}`);
    // Before the body is read or anything written: a write refused for want of an audit sink leaves nothing half-done.
    if (deps.auditSinkGate !== undefined && !READS.has(req.method ?? '')) deps.auditSinkGate();
    let body: unknown;
    if (route.body === 'signed' || route.body === 'signed-json') {
      const raw = await readRequestBody(req, exchange.body, signedReading);
      // The header signs the raw bytes and is authentication: a caller without it gets 401, not a 400
      // about a body it was never entitled to have read.
      const signature = req.headers['x-vault-auth-signature'];
      await deps.verifyAuthSignature.execute(Array.isArray(signature) ? signature.join(',') : signature, raw, principal);
      // Before any parsing or encoding: a hostile shape of `args` or `abi` costs no more than these bounds.
      body = route.body === 'signed' ? parseSignBody(raw, req.headers['content-type'], bounds) : parseJsonBody(raw, req.headers['content-type'], signedJsonLimits);
    } else if (route.body === 'json') {
      body = parseJsonBody(await readRequestBody(req, exchange.body, jsonReading), req.headers['content-type'], jsonLimits);
    } else if (route.body === 'optional-json') {
      // No body at all is a call without one (a vote of a key without credential); anything sent is JSON.
      const raw = await readRequestBody(req, exchange.body, jsonReading);
      body = raw.length === 0 ? undefined : parseJsonBody(raw, req.headers['content-type'], jsonLimits);
    }
    const command = route.command({ principal, vaultId, params, query: match.query, headers: req.headers, body }, deps);
    return route.answer(deps, command);
  }

  return {
    async handle(req, res, exchange) {
      const context = requestContextOf(req);
      // The id, the request log line and the metrics come from observe-requests.ts when it wraps the shell.
      const requestId = context?.requestId ?? ownRequestId(res);
      const label = (route: string) => {
        if (context) context.route = route;
      };
      const method = req.method ?? '';
      const match = matchRoute(table, method, exchange.url);
      let reply: Reply | undefined;
      // Every 401 says how to authenticate (RFC 9110 §11.6.1): a vault's API key, the operator token.
      let challenge = BEARER_CHALLENGE;
      try {
        if (match.kind === 'vault') {
          reply = await vaultRequest(req, match, exchange, context, label, () => (challenge = INVALID_TOKEN_CHALLENGE));
        } else if (match.kind === 'service') {
          label(match.route.path);
          const route = match.route;
          const client = clientAddressOf(deps, req);
          if (context) context.client = client;
          if (route.limited) takeAddressLimit(deps, client);
          // Before the body is read or anything written, as for a vault write.
          if (route.audited && deps.auditSinkGate !== undefined) deps.auditSinkGate();
          let body: unknown;
          if (route.body === 'json') {
            const reading = route.bodyLimitBytes === undefined ? jsonReading : { ...jsonReading, limit: Math.min(route.bodyLimitBytes, jsonReading.limit) };
            const raw = await readRequestBody(req, exchange.body, reading);
            body = raw.length === 0 ? undefined : parseJsonBody(raw, req.headers['content-type'], jsonLimits);
          }
          reply = await route.answer({
            params: decodeParams(match.params),
            query: match.query,
            pathname: match.pathname,
            headers: req.headers,
            client,
            body,
            authorization: req.headers.authorization,
            base: exchange.base,
            requestId,
            refusedToken: () => (challenge = INVALID_TOKEN_CHALLENGE),
            operatorAuthenticated: (name) => {
              if (context) context.operator = name;
            },
          });
        } else if (match.kind === 'method') {
          // Whoever asks: no authentication, no body, no database; an embedding app that takes back what
          // the vault does not serve (notFound: false) gets it too.
          label(match.inVault ? VAULT_UNMATCHED : 'unmatched');
          if (exchange.pass) return exchange.pass();
          const allow = match.allow.join(', ');
          const code = ErrorCode.METHOD_NOT_ALLOWED;
          reply = errorReply({ status: STATUS_BY_CODE[code], code, message: `method ${method} is not allowed on ${match.pathname} (Allow: ${allow})`, headers: { Allow: allow } });
        } else label('unmatched');
        if (reply === undefined) {
          if (exchange.pass) return exchange.pass();
          throw new DomainError(ErrorCode.ROUTE_NOT_FOUND, `no route ${method} ${match.pathname}`);
        }
      } catch (error) {
        const failure = toErrorResponse(error, requestId, deps.logger);
        reply = errorReply(failure.status === 401 ? { ...failure, headers: { ...failure.headers, 'WWW-Authenticate': challenge } } : failure);
      }
      // A route's own headers go on every answer of it, an error too (the console's CSP).
      if (match.kind === 'service' && match.route.headers !== undefined) reply = { ...reply, headers: { ...match.route.headers, ...reply.headers } };
      try {
        write(res, reply);
      } catch (error) {
        // The shells call this without awaiting it: nothing may escape as an unhandled rejection.
        deps.logger.error({ requestId, err: { message: error instanceof Error ? error.message : String(error) } }, 'answer not written');
      }
    },
  };
}

type VaultMatch = Extract<RouteMatch, { kind: 'vault' }>;

/**
 * `WWW-Authenticate` of every 401 (RFC 6750 §3): the API key and the operator token are both Bearer
 * tokens. `error="invalid_token"` when a Bearer token was presented and refused; none when there was none
 * (or another scheme, or the token passed and X-Vault-Auth-Signature did not), as §3.1 asks.
 */
export const BEARER_CHALLENGE = 'Bearer realm="wallet-vault"';
export const INVALID_TOKEN_CHALLENGE = 'Bearer realm="wallet-vault", error="invalid_token"';

/** The error envelope as an answer. */
function errorReply(failure: ErrorResponse): Reply {
  const body = JSON.stringify(errorEnvelope(failure.code, failure.message));
  return failure.headers === undefined ? { status: failure.status, type: JSON_TYPE, body } : { status: failure.status, type: JSON_TYPE, headers: failure.headers, body };
}

/**
 * An admitted request to a vault path no route serves: OPTIONS lists the methods the path has (as
 * Express answered it), anything else is no route (undefined).
 */
function unmatched(method: string, allowed: readonly string[]): Reply | undefined {
  if (method !== 'OPTIONS' || allowed.length === 0) return undefined;
  const list = allowed.join(', ');
  return { status: 200, type: 'text/plain', headers: { Allow: list, 'X-Content-Type-Options': 'nosniff' }, body: list };
}

/** Writes an answer as it is; a response already under way (a failure after the head) is left alone. */
function write(res: ServerResponse, reply: Reply): void {
  if (res.headersSent) return;
  const length = typeof reply.body === 'string' ? Buffer.byteLength(reply.body) : reply.body.length;
  res.writeHead(reply.status, reply.headers === undefined ? { 'Content-Type': reply.type, 'Content-Length': length } : { ...reply.headers, 'Content-Type': reply.type, 'Content-Length': length });
  res.end(reply.body);
}

/** A path segment, percent-decoded; malformed encoding is no route. */
function decodeSegment(raw: string): string {
  if (!raw.includes('%')) return raw; // what decodeURIComponent would return, at a fifteenth of the cost
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new DomainError(ErrorCode.ROUTE_NOT_FOUND, 'no route: malformed percent-encoding in path');
  }
}

function decodeParams(raw: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  let params: Record<string, string> | undefined;
  for (const name in raw) (params ??= {})[name] = decodeSegment(raw[name]!);
  return params ?? raw;
}

/** Outside observe-requests.ts (a router mounted in an app), each answer still gets an id of its own. */
export function ownRequestId(res: { setHeader(name: string, value: string): unknown }): string {
  const id = randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}
