import { VAULT_ROUTES, type VaultRoute } from './routes.js';
import type { ServiceRoute } from './service-routes.js';

/*
 * Finds the route of a request as Express did (case-insensitive literals, one optional trailing slash,
 * parameters of one non-empty segment). One regular expression per route, compiled once; Sign, the hot
 * path, is the first route tried, and a match allocates no more than the expressions' results.
 */

interface Compiled<R> {
  readonly route: R;
  /** Anchored, case-insensitive, one optional trailing slash; a capture group per parameter. */
  readonly pattern: RegExp;
  readonly params: readonly string[];
}

export interface RouteTable {
  readonly vault: readonly Compiled<VaultRoute>[];
  readonly service: readonly Compiled<ServiceRoute>[];
}

export type RouteMatch =
  | {
      readonly kind: 'vault';
      readonly pathname: string;
      /**
       * Undefined: no route of the vault has this path (still authenticated first, then 404), or OPTIONS on
       * a path Express listed methods for. A known path with another method is `kind: 'method'`.
       */
      readonly route: VaultRoute | undefined;
      /** The `:vaultId` segment, still percent-encoded. */
      readonly vaultId: string;
      readonly params: Readonly<Record<string, string>>;
      readonly query: string;
      /** For OPTIONS: the methods the path has (sorted, HEAD with GET; Sign apart, as Express listed them); else none. */
      readonly allowed: readonly string[];
    }
  | { readonly kind: 'service'; readonly pathname: string; readonly route: ServiceRoute; readonly params: Readonly<Record<string, string>>; readonly query: string }
  /**
   * A known path (a vault route's or a service route's) asked with a method it does not serve: 405, before
   * any authentication. `allow`: the methods it serves, sorted, HEAD with GET (the matcher answers HEAD with
   * the GET route). OPTIONS on a vault path Express listed methods for is not this: it is answered as before.
   */
  | { readonly kind: 'method'; readonly pathname: string; readonly inVault: boolean; readonly allow: readonly string[] }
  | { readonly kind: 'none'; readonly pathname: string };

function compile<R extends { readonly path: string }>(route: R): Compiled<R> {
  const params: string[] = [];
  const source = route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_m, name: string) => {
    params.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}/?$`, 'i'), params };
}

/** `/api/v1/vaults/:vaultId` or `/api/v1/vault/:vaultId`, and what follows it (empty, or from a `/`). */
const VAULT_PREFIX = /^\/api\/v1\/vaults?\/([^/]+)(.*)$/i;

export function routeTable(service: readonly ServiceRoute[]): RouteTable {
  return { vault: VAULT_ROUTES.map(compile), service: service.map(compile) };
}

/** The route for `method` and `url` (path and query below the mount). */
export function matchRoute(table: RouteTable, method: string, url: string): RouteMatch {
  const { pathname, query } = splitUrl(url);
  // A GET route answers HEAD, as Express's did.
  const wanted = method === 'HEAD' ? 'GET' : method;
  const inVault = VAULT_PREFIX.exec(pathname);
  if (inVault !== null) {
    const rest = inVault[2]!;
    let found: VaultRoute | undefined;
    let params: Readonly<Record<string, string>> = NO_PARAMS;
    for (const compiled of table.vault) {
      if (compiled.route.method !== wanted) continue;
      const captured = capture(compiled, rest);
      if (captured === undefined) continue;
      found = compiled.route;
      params = captured;
      break;
    }
    const allowed = method === 'OPTIONS' ? allowedMethods(table, rest) : NONE;
    if (found === undefined && (method !== 'OPTIONS' || allowed.length === 0)) {
      // Only when no route answers: the hot path never gets here.
      const allow = servedMethods(table, rest);
      if (allow.length > 0) return { kind: 'method', pathname, inVault: true, allow };
    }
    return { kind: 'vault', pathname, route: found, vaultId: inVault[1]!, params, query, allowed };
  }
  let allow: Set<string> | undefined;
  for (const compiled of table.service) {
    const captured = capture(compiled, pathname);
    if (captured === undefined) continue;
    // A service route is a GET (and so HEAD) route unless it names its method (the console's API).
    const method = compiled.route.method ?? 'GET';
    if (method === wanted) return { kind: 'service', pathname, route: compiled.route, params: captured, query };
    allow ??= new Set();
    allow.add(method);
    if (method === 'GET') allow.add('HEAD');
  }
  if (allow !== undefined) return { kind: 'method', pathname, inVault: false, allow: allow.size === 2 && allow.has('GET') ? GET_HEAD : [...allow].sort() };
  return { kind: 'none', pathname };
}

/** The methods the vault routes at this path serve (Sign included), sorted, HEAD with GET: a 405's `Allow`. */
function servedMethods(table: RouteTable, rest: string): string[] {
  const methods = new Set<string>();
  for (const compiled of table.vault) {
    if (capture(compiled, rest) === undefined) continue;
    methods.add(compiled.route.method);
    if (compiled.route.method === 'GET') methods.add('HEAD');
  }
  return [...methods].sort();
}

const GET_HEAD: readonly string[] = Object.freeze(['GET', 'HEAD']);

/** The methods of the vault routes at this path, as Express's automatic OPTIONS answer listed them. */
function allowedMethods(table: RouteTable, rest: string): string[] {
  const methods = new Set<string>();
  for (const compiled of table.vault) {
    // Sign was a route of the app around the vault's router, whose OPTIONS answer never listed it.
    if (compiled.route.path === '/sign' || capture(compiled, rest) === undefined) continue;
    methods.add(compiled.route.method);
    if (compiled.route.method === 'GET') methods.add('HEAD');
  }
  return [...methods].sort();
}

const NONE: readonly string[] = Object.freeze([]);

function splitUrl(url: string): { pathname: string; query: string } {
  let target = url;
  if (!target.startsWith('/')) {
    // The absolute form (`GET http://host/path`): its path, as Express read it.
    try {
      const parsed = new URL(target);
      target = `${parsed.pathname}${parsed.search}`;
    } catch {
      return { pathname: url, query: '' };
    }
  }
  const q = target.indexOf('?');
  return q === -1 ? { pathname: target, query: '' } : { pathname: target.slice(0, q), query: target.slice(q + 1) };
}

/** The parameters (still percent-encoded) when `path` has the route's shape, else undefined. */
function capture(compiled: Compiled<unknown>, path: string): Readonly<Record<string, string>> | undefined {
  if (compiled.params.length === 0) return compiled.pattern.test(path) ? NO_PARAMS : undefined;
  const match = compiled.pattern.exec(path);
  if (match === null) return undefined;
  const params: Record<string, string> = {};
  compiled.params.forEach((name, i) => (params[name] = match[i + 1]!));
  return params;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
