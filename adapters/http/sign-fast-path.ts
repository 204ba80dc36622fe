import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { admitClient } from './address-rate-limit.js';
import { toErrorResponse } from './error-response.js';
import { ownRequestId, takeRateLimit, VAULT_ROUTE_PREFIX, type HttpDeps } from './http-app.js';
import { parseJsonBody, tooLarge } from './json-body.js';
import { checkJsonBounds, DEFAULT_ARGS_BOUNDS } from './json-bounds.js';
import { requestContextOf } from './request-context.js';

const SIGN_PATH = /^\/api\/v1\/vaults?\/([^/?#]+)\/sign\/?(?:\?.*)?$/i;

/**
 * Sign is the hot path. Express 5's routing alone costs more per request here than the whole signature
 * (measured: 3 070 req/s for an empty Express route against 16 391 for node:http, see
 * docs/benchmarks.md), so POST .../sign is dispatched before Express, with the same authentication,
 * body rules, error table and envelope. Every other request goes to the Express app.
 */
export function withSignFastPath(app: Express, deps: HttpDeps): RequestListener {
  return (req, res) => {
    if (req.method === 'POST') {
      const match = SIGN_PATH.exec(req.url ?? '');
      if (match) {
        void handleSign(match[1]!, req, res, deps);
        return;
      }
    }
    app(req, res);
  };
}

async function handleSign(rawVaultId: string, req: IncomingMessage, res: ServerResponse, deps: HttpDeps): Promise<void> {
  // The id, the request log line and the metrics come from observe-requests.ts, which wraps this listener.
  const context = requestContextOf(req);
  const requestId = context?.requestId ?? ownRequestId(res);
  if (context) context.route = `${VAULT_ROUTE_PREFIX}/sign`;
  let status = 200;
  let payload: unknown;
  let headers: Record<string, string> | undefined;
  try {
    const source = admitClient(deps, req);
    const vaultId = decodeSegment(rawVaultId);
    const principal = await deps.authenticate.execute(req.headers.authorization, vaultId, source);
    takeRateLimit(deps, principal.apiKeyId);
    const rawBody = await readBody(req, deps.bodyLimitBytes);
    // The header signs the raw bytes and is authentication: a caller without it gets 401, not a 400
    // about a body it was never entitled to have read.
    const header = req.headers['x-vault-auth-signature'];
    await deps.verifyAuthSignature.execute(Array.isArray(header) ? header.join(',') : header, rawBody, principal);
    const body = parseJsonBody(rawBody, req.headers['content-type']);
    if (typeof body === 'object' && body !== null) {
      // Before any parsing or encoding: a hostile shape costs no more than these bounds.
      const { args, abi } = body as { args?: unknown; abi?: unknown };
      const bounds = deps.argsBounds ?? DEFAULT_ARGS_BOUNDS;
      checkJsonBounds(args, 'args', bounds);
      // Each tuple level of an argument is two levels of its ABI item (`inputs[i].components[j]`).
      checkJsonBounds(abi, 'abi', { ...bounds, maxDepth: 2 * bounds.maxDepth + 2 });
    }
    payload = { success: true, data: await deps.signCall.execute({ principal, body }) };
  } catch (error) {
    const failure = toErrorResponse(error, requestId, deps.logger);
    status = failure.status;
    payload = { success: false, error: failure.message };
    headers = failure.headers;
  }
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new DomainError(ErrorCode.ROUTE_NOT_FOUND, 'no route: malformed vault id in path');
  }
}

/** The raw body, refused past `limit` bytes (by Content-Length up front, or while streaming). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks, size));
    });
    req.on('error', (error) => {
      if (!failed) {
        failed = true;
        reject(new DomainError(ErrorCode.MALFORMED_JSON, 'request body could not be read', { cause: error }));
      }
    });
  });
}
