import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { takeAddressLimit } from './address-rate-limit.js';
import { takeRateLimit } from './api-key-rate-limit.js';
import { errorEnvelope, toErrorResponse } from './error-response.js';
import type { HttpDeps } from './http-deps.js';
import { tooLarge } from './json-body.js';
import { DEFAULT_ARGS_BOUNDS } from './json-bounds.js';
import { parseSignBody } from './sign-body.js';

/** What Sign needs from the application and the HTTP settings. */
export type SignDeps = Pick<
  HttpDeps,
  'authenticate' | 'verifyAuthSignature' | 'signCall' | 'logger' | 'bodyLimitBytes' | 'metrics' | 'rateLimiter' | 'argsBounds' | 'addressRateLimiter'
>;

export interface SignInput {
  /** The `:vaultId` path segment; still percent-encoded when `vaultIdEncoded` (a raw URL's segment). */
  readonly vaultId: string;
  readonly vaultIdEncoded?: boolean;
  readonly headers: IncomingHttpHeaders;
  /** The raw body, or the request to read it from (read only once the caller is authenticated). */
  readonly body: Buffer | IncomingMessage;
  /** Named in the log line of an unexpected failure. */
  readonly requestId: string;
  /** The client's address (clientAddressOf): its limit is taken first, refusals are summarised under it. */
  readonly source?: string;
}

export interface SignOutput {
  readonly status: number;
  readonly headers: Record<string, string | number>;
  readonly body: string;
}

/**
 * POST …/sign, free of any framework: the per-address limit, authentication, the per-key rate limit, the body limit,
 * `X-Vault-Auth-Signature` over the raw bytes, the bounds on `args`/`abi`, and the error table, in that
 * order, written once. The Express router and the standalone server's node:http fast path both answer
 * with what this returns.
 */
export async function handleSign(deps: SignDeps, input: SignInput): Promise<SignOutput> {
  let status = 200;
  let payload: unknown;
  let headers: Record<string, string> | undefined;
  try {
    const source = input.source ?? 'unknown';
    takeAddressLimit(deps, source);
    const vaultId = input.vaultIdEncoded ? decodeSegment(input.vaultId) : input.vaultId;
    const principal = await deps.authenticate.execute(input.headers.authorization, vaultId, source);
    takeRateLimit(deps, principal.apiKeyId);
    const rawBody = Buffer.isBuffer(input.body) ? withinLimit(input.body, deps.bodyLimitBytes) : await readBody(input.body, deps.bodyLimitBytes);
    // The header signs the raw bytes and is authentication: a caller without it gets 401, not a 400
    // about a body it was never entitled to have read.
    const header = input.headers['x-vault-auth-signature'];
    await deps.verifyAuthSignature.execute(Array.isArray(header) ? header.join(',') : header, rawBody, principal);
    // Before any parsing or encoding: a hostile shape of `args` or `abi` costs no more than these bounds.
    const body = parseSignBody(rawBody, input.headers['content-type'], deps.argsBounds ?? DEFAULT_ARGS_BOUNDS);
    payload = { success: true, data: await deps.signCall.execute({ principal, body }) };
  } catch (error) {
    const failure = toErrorResponse(error, input.requestId, deps.logger);
    status = failure.status;
    payload = errorEnvelope(failure.code, failure.message);
    headers = failure.headers;
  }
  const text = JSON.stringify(payload);
  const length = Buffer.byteLength(text);
  return {
    status,
    headers:
      headers === undefined
        ? { 'Content-Type': JSON_TYPE, 'Content-Length': length }
        : { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': length },
    body: text,
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes a handler's answer as is (no framework adds or changes a header). */
export function writeSignOutput(res: ServerResponse, output: SignOutput): void {
  res.writeHead(output.status, output.headers);
  res.end(output.body);
}

function decodeSegment(raw: string): string {
  if (!raw.includes('%')) return raw; // what decodeURIComponent would return, at a fifteenth of the cost
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new DomainError(ErrorCode.ROUTE_NOT_FOUND, 'no route: malformed vault id in path');
  }
}

function withinLimit(body: Buffer, limit: number): Buffer {
  if (body.length > limit) throw tooLarge(limit);
  return body;
}

/** The raw body, refused past `limit` bytes (by Content-Length up front, or while streaming). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (req.readableEnded) {
    // Not the caller's fault: an earlier middleware of the embedding app consumed the raw bytes.
    return Promise.reject(new Error('the sign request body was already read: mount vaultRouter before body parsers such as express.json()'));
  }
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
      // A body of one chunk (a Sign body usually is) is that chunk: Buffer.concat would copy it.
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on('error', (error) => {
      if (!failed) {
        failed = true;
        reject(new DomainError(ErrorCode.MALFORMED_JSON, 'request body could not be read', { cause: error }));
      }
    });
  });
}
