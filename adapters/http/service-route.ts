import type { IncomingHttpHeaders } from 'node:http';
import type { Reply } from './routes.js';

/*
 * What a route outside the vaults is (service-routes.ts, seal-routes.ts, console-routes.ts): apart from the
 * tables, so that a table of its own (the seal's) is not tied in a circle to the one that mounts it.
 */

/** A route outside the vaults, at the root of where the app is served; no API key. */
export interface ServiceRoute {
  readonly path: string;
  /** GET (and so HEAD) when absent. */
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** `json`: the body read within the vault's limit and parsed within its bounds (none sent: undefined); absent: no body read. */
  readonly body?: 'json';
  /** A tighter bound than the vault's body limit for this route's body (an anonymous route's cost). */
  readonly bodyLimitBytes?: number;
  /** Counted under the per-address limit before anything else (a route anyone may call that costs a write). */
  readonly limited?: boolean;
  /**
   * Writes audit records: with VAULT_AUDIT_REQUIRE_SINK, refused (503 AUDIT_SINK_UNAVAILABLE) before its body
   * is read while no audit sink accepts records, as a vault write is.
   */
  readonly audited?: boolean;
  /** Headers on every answer of the route, errors included. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly answer: (request: ServiceRequest) => Promise<Reply | undefined>;
}

export interface ServiceRequest {
  readonly params: Readonly<Record<string, string>>;
  /** The query string without `?` ('' when none). */
  readonly query: string;
  /** The path as asked (below the mount). */
  readonly pathname: string;
  readonly headers: IncomingHttpHeaders;
  /** The client's address: the connection's peer, or the client trusted proxies name (VAULT_TRUSTED_PROXIES). */
  readonly client: string;
  /** The parsed JSON body of a `body: 'json'` route (undefined when none was sent). */
  readonly body: unknown;
  readonly authorization: string | undefined;
  /** Where the app is mounted ('' at the root), for links. */
  readonly base: string;
  readonly requestId: string;
  /** Call before refusing a Bearer token that was presented: the 401's challenge then says `invalid_token`. */
  readonly refusedToken: () => void;
  /** Call once a named operator authenticated: the request's log line names it (`operator`). */
  readonly operatorAuthenticated?: (name: string) => void;
}
