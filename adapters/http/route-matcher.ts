import { VAULT_ROUTES, type ServiceRoute, type VaultRoute } from './routes.js';

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
      /** Undefined: the vault has no route for this method and path (still authenticated first). */
      readonly route: VaultRoute | undefined;
      /** The `:vaultId` segment, still percent-encoded. */
      readonly vaultId: string;
      readonly params: Readonly<Record<string, string>>;
      readonly query: string;
      /** For OPTIONS: the methods the path has (sorted, HEAD with GET; Sign apart, as Express listed them); else none. */
      readonly allowed: readonly string[];
    }
  | { readonly kind: 'service'; readonly pathname: string; readonly route: ServiceRoute; readonly params: Readonly<Record<string, string>> }
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
    return { kind: 'vault', pathname, route: found, vaultId: inVault[1]!, params, query, allowed };
  }
  if (wanted === 'GET') {
    for (const compiled of table.service) {
      const captured = capture(compiled, pathname);
      if (captured !== undefined) return { kind: 'service', pathname, route: compiled.route, params: captured };
    }
  }
  return { kind: 'none', pathname };
}

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
