import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What every log line written while serving one request carries. */
export interface RequestContext {
  readonly requestId: string;
  /** The route pattern that served the request (`/api/v1/vaults/:vaultId/wallets/:address`), for metrics. */
  route?: string;
  /** Asked when the answer is finished, for routers that only know their route then. */
  resolveRoute?: () => string | undefined;
}

const storage = new AsyncLocalStorage<RequestContext>();

// A caller's own id (from a proxy or the client) is kept so one id follows the request across systems;
// anything else is replaced, so a header can never inject text into the logs.
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The caller's `X-Request-Id` when it is a plain token of 8 to 128 characters, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && ACCEPTABLE_ID.test(given) ? given : randomUUID();
}

/** Runs `work` with the request's context, so the logger's mixin finds the id on every line. */
export function runInRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The request being served by the current async flow, if any. */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}
