import { createAuthSignature } from './auth-signature.js';
import { isVaultErrorCode } from './error-codes.js';
import type { Approval } from './types.js';
import { VaultError } from './vault-error.js';

/*
 * One call of the HTTP API with its retries, the Bearer credential it carries and the envelope it reads:
 * what VaultClient (an API key of one vault) and AdminClient (an operator's credential) share.
 */

export interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Whether a failure with this status (0: no answer) may be retried. */
  readonly retryOn?: (status: number) => boolean;
  /** Sign: a fresh X-Vault-Auth-Signature for every attempt. */
  readonly signed?: boolean;
  /** The one answer without the `{success, data}` envelope. */
  readonly bare?: boolean;
  /** Sign: what a 202 (held for approval) answers, from its `data` (absent: a 202 is as any success). */
  readonly accepted?: (data: { approval: Approval }, requestId: string) => unknown;
}


/** Where and how calls go: the base every path is below, the Bearer credential, the client's options. */
export interface Transport {
  readonly base: string;
  readonly bearer: string;
  readonly authSecret?: string | undefined;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly fetch: typeof globalThis.fetch;
}

export async function sendCall<T>(t: Transport, call: Call): Promise<T> {
  // The exact bytes sent are the bytes X-Vault-Auth-Signature covers.
  const body = call.body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(call.body, bigintAsDecimal));
  for (let attempt = 0; ; attempt++) {
    try {
      return await attemptOnce<T>(t, call, body);
    } catch (error) {
      const retryable = error instanceof VaultError && call.retryOn?.(error.status) === true;
      if (!retryable || attempt >= t.retries) throw error;
      if (t.retryDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, t.retryDelayMs * 2 ** attempt));
    }
  }
}

async function attemptOnce<T>(t: Transport, call: Call, body: Uint8Array<ArrayBuffer> | undefined): Promise<T> {
  const requestId = newRequestId();
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${t.bearer}`,
    'x-request-id': requestId,
    ...call.headers,
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (call.signed && t.authSecret !== undefined) {
    headers['x-vault-auth-signature'] = await createAuthSignature(body ?? new Uint8Array(0), t.authSecret);
  }
  const signal = AbortSignal.timeout(t.timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await t.fetch(`${t.base}${call.path}`, { method: call.method, headers, ...(body === undefined ? {} : { body }), signal });
    text = await response.text();
  } catch (error) {
    const timedOut = signal.aborted;
    throw new VaultError(
      timedOut ? `${call.method} ${call.path}: no answer within ${t.timeoutMs} ms` : `${call.method} ${call.path}: ${describe(error)}`,
      { status: 0, requestId, reason: timedOut ? 'timeout' : 'network', cause: error },
    );
  }
  const answeredId = response.headers.get('x-request-id') ?? requestId;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VaultError(`${call.method} ${call.path}: answer ${response.status} is not JSON`, { status: response.status, requestId: answeredId, reason: 'http' });
  }
  const envelope = parsed as { success?: unknown; data?: unknown; error?: unknown; code?: unknown };
  if (!response.ok) {
    const message = typeof envelope?.error === 'string' ? envelope.error : `HTTP ${response.status}`;
    const code = isVaultErrorCode(envelope?.code) ? envelope.code : undefined;
    throw new VaultError(message, { status: response.status, code, requestId: answeredId, reason: 'http' });
  }
  if (call.bare) return parsed as T;
  if (envelope?.success !== true) {
    throw new VaultError(`${call.method} ${call.path}: answer without the success envelope`, { status: response.status, requestId: answeredId, reason: 'http' });
  }
  if (response.status === 202 && call.accepted !== undefined) return call.accepted(envelope.data as { approval: Approval }, answeredId) as T;
  return envelope.data as T;
}

/** The base URL without the slashes it ends with, read from the end once (`/\/+$/` retries every slash of a run). */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 0x2f) end--;
  return url.slice(0, end);
}

/** JSON has no bigint: quantities go as decimal strings, which the server reads as viem writes them. */
function bigintAsDecimal(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

function newRequestId(): string {
  return `vc-${globalThis.crypto.randomUUID()}`;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  return String(error);
}
