import { VAULT_ROUTES, type ServiceRoute, type VaultRoute } from './routes.js';

/*
 * Finds the route of a request as Express did (case-insensitive literals, one optional trailing slash,
 * parameters of one non-empty segment), by comparing segments: no regular expression per route, and
 * Sign, the hot path, is the first route compared.
 */

type Segment = { readonly literal: string } | { readonly param: string };

interface Compiled<R> {
  readonly route: R;
  readonly segments: readonly Segment[];
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

const compile = (path: string): Segment[] =>
  path
    .split('/')
    .slice(1)
    .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s.toLowerCase() }));

export function routeTable(service: readonly ServiceRoute[]): RouteTable {
  return {
    vault: VAULT_ROUTES.map((route) => ({ route, segments: compile(route.path) })),
    service: service.map((route) => ({ route, segments: compile(route.path) })),
  };
}

/** The route for `method` and `url` (path and query below the mount). */
export function matchRoute(table: RouteTable, method: string, url: string): RouteMatch {
  const { pathname, query } = splitUrl(url);
  const segments = pathname.split('/');
  // A GET route answers HEAD, as Express's did.
  const wanted = method === 'HEAD' ? 'GET' : method;
  if (
    segments.length >= 5 &&
    segments[0] === '' &&
    segments[4] !== '' &&
    same(segments[1]!, 'api') &&
    same(segments[2]!, 'v1') &&
    (same(segments[3]!, 'vaults') || same(segments[3]!, 'vault'))
  ) {
    const rest = withoutTrailingSlash(segments.slice(5));
    let found: VaultRoute | undefined;
    let params: Readonly<Record<string, string>> = NO_PARAMS;
    for (const compiled of table.vault) {
      if (compiled.route.method !== wanted) continue;
      const captured = capture(compiled.segments, rest);
      if (captured === undefined) continue;
      found = compiled.route;
      params = captured;
      break;
    }
    const allowed = method === 'OPTIONS' ? allowedMethods(table, rest) : NONE;
    return { kind: 'vault', pathname, route: found, vaultId: segments[4]!, params, query, allowed };
  }
  if (wanted === 'GET' && segments[0] === '') {
    const rest = withoutTrailingSlash(segments.slice(1));
    for (const compiled of table.service) {
      const captured = capture(compiled.segments, rest);
      if (captured !== undefined) return { kind: 'service', pathname, route: compiled.route, params: captured };
    }
  }
  return { kind: 'none', pathname };
}

/** The methods of the vault routes at this path, as Express's automatic OPTIONS answer listed them. */
function allowedMethods(table: RouteTable, rest: readonly string[]): string[] {
  const methods = new Set<string>();
  for (const compiled of table.vault) {
    // Sign was a route of the app around the vault's router, whose OPTIONS answer never listed it.
    if (compiled.route.path === '/sign' || capture(compiled.segments, rest) === undefined) continue;
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

const same = (segment: string, literal: string) => segment.length === literal.length && segment.toLowerCase() === literal;

function withoutTrailingSlash(rest: string[]): string[] {
  if (rest.length > 0 && rest[rest.length - 1] === '') rest.pop();
  return rest;
}

/** The parameters when `rest` has the route's shape, else undefined. */
function capture(pattern: readonly Segment[], rest: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== rest.length) return undefined;
  let params: Record<string, string> | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const segment = rest[i]!;
    if ('literal' in p) {
      if (!same(segment, p.literal)) return undefined;
    } else {
      if (segment === '') return undefined;
      (params ??= {})[p.param] = segment;
    }
  }
  return params ?? NO_PARAMS;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
