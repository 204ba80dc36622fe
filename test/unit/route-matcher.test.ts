import fc from 'fast-check';
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { queryParameters } from '../../adapters/http/query-string.js';
import { matchRoute, routeTable } from '../../adapters/http/route-matcher.js';
import type { ServiceRoute } from '../../adapters/http/service-routes.js';

const service: ServiceRoute[] = ['/healthz', '/docs', '/docs/assets/:name'].map((path) => ({ path, answer: async () => undefined }));
const table = routeTable(service);
const V = '/api/v1/vaults/v-1';

/** The route a request reaches, as `kind label params`, for comparing many at once. */
function reached(method: string, url: string): string {
  const m = matchRoute(table, method, url);
  if (m.kind === 'none') return 'none';
  if (m.kind === 'service') return `service ${m.route.path} ${JSON.stringify(m.params)}`;
  if (m.kind === 'method') return `405 ${m.inVault ? 'vault' : 'service'} ${m.allow.join(', ')}`;
  return `vault ${m.vaultId} ${m.route?.label ?? 'no route'} ${JSON.stringify(m.params)}`;
}

describe('the route matcher finds routes as Express 5 did', () => {
  it('matches literals in any case, one trailing slash, the singular alias, and keeps the query apart', () => {
    expect(reached('POST', `${V}/sign`)).toBe('vault v-1 /api/v1/vaults/:vaultId/sign {}');
    expect(reached('POST', `/API/V1/Vault/v-1/SIGN/?x=1`)).toBe('vault v-1 /api/v1/vaults/:vaultId/sign {}');
    expect(reached('GET', `${V}/wallets/0xAbC?count=2`)).toBe('vault v-1 /api/v1/vaults/:vaultId/wallets/:address {"address":"0xAbC"}');
    expect(matchRoute(table, 'GET', `${V}/wallets?count=2&offset=1`)).toMatchObject({ query: 'count=2&offset=1', pathname: `${V}/wallets` });
    expect(reached('GET', '/DOCS/')).toBe('service /docs {}');
    expect(reached('GET', '/docs/assets/init.js')).toBe('service /docs/assets/:name {"name":"init.js"}');
  });

  it('answers HEAD with the GET route, and no other method with it', () => {
    expect(reached('HEAD', `${V}/status`)).toBe('vault v-1 /api/v1/vaults/:vaultId/status {}');
    expect(reached('HEAD', '/healthz')).toBe('service /healthz {}');
    expect(reached('POST', '/healthz')).toBe('405 service GET, HEAD');
    expect(reached('PATCH', `${V}/wallets`)).toBe('405 vault GET, HEAD, POST');
  });

  it('finds a known path asked with another method (405), with the methods it serves: sorted, HEAD with GET, Sign too', () => {
    expect(reached('GET', `${V}/sign`)).toBe('405 vault POST');
    expect(reached('HEAD', `${V}/sign`)).toBe('405 vault POST');
    expect(reached('OPTIONS', `${V}/sign`)).toBe('405 vault POST');
    expect(reached('PATCH', `/API/V1/Vault/v-1/wallets/0xAbC/`)).toBe('405 vault DELETE, GET, HEAD, POST, PUT');
    expect(reached('PUT', `${V}/status`)).toBe('405 vault GET, HEAD');
    expect(reached('GET', `${V}/approvals/a-1/approve`)).toBe('405 vault POST');
    expect(reached('DELETE', '/docs/assets/init.js')).toBe('405 service GET, HEAD');
    expect(reached('OPTIONS', '/healthz')).toBe('405 service GET, HEAD');
    // Unknown paths stay unknown, whatever the method.
    expect(reached('PATCH', `${V}/nothing`)).toBe('vault v-1 no route {}');
    expect(reached('POST', '/nothing')).toBe('none');
    expect(reached('POST', '/healthz/x')).toBe('none');
  });

  it('puts every path under a vault in the vault (authenticated before any 404), and nothing else', () => {
    for (const path of [V, `${V}/`, `${V}/nothing`, `${V}/status//`, `${V}/wallets/a/b`]) expect(reached('GET', path)).toBe('vault v-1 no route {}');
    for (const path of ['/api/v1/vaults//wallets', '/api/v1/vaults', '/api/v2/vaults/v/status', '//api/v1/vaults/v/status', '/', '*', '/healthz//']) {
      expect(reached('GET', path), path).toBe('none');
    }
  });

  it('lists the methods of a path for OPTIONS, sorted, HEAD with GET, Sign apart (405 there)', () => {
    expect(matchRoute(table, 'OPTIONS', `${V}/wallets/0x1`)).toMatchObject({ route: undefined, allowed: ['DELETE', 'GET', 'HEAD', 'POST', 'PUT'] });
    expect(matchRoute(table, 'OPTIONS', `${V}/wallets`)).toMatchObject({ allowed: ['GET', 'HEAD', 'POST'] });
    expect(matchRoute(table, 'OPTIONS', `${V}/sign`)).toMatchObject({ kind: 'method', allow: ['POST'] });
    expect(matchRoute(table, 'GET', `${V}/wallets`)).toMatchObject({ allowed: [] });
  });

  it('hands over path segments still percent-encoded (the pipeline decodes them)', () => {
    expect(reached('GET', '/api/v1/vaults/a%2Fb/wallets/%E0%A4%A')).toBe('vault a%2Fb /api/v1/vaults/:vaultId/wallets/:address {"address":"%E0%A4%A"}');
  });
});

describe('query parameters read as Express extended parser (qs) gave them', () => {
  /** What the list schema sees of a name: absent, the one string, or anything else ("must be given once"). */
  const shape = (value: unknown) => (value === undefined ? 'absent' : typeof value === 'string' ? `string ${value}` : 'not once');
  const key = fc.oneof(
    fc.constantFrom('offset', 'count', 'offset[]', 'count[a]', '[offset]', 'offset[', 'of%66set', 'count[0][1]', '__proto__', 'a[offset]', 'x', '[offset', '[offset][x]', 'offset%5B%5D', 'offset]'),
    fc.tuple(fc.constantFrom('offset', 'count', ''), fc.stringMatching(/^[[\]a]{0,4}$/)).map(([n, b]) => `${n}${b}`),
  );
  const value = fc.oneof(fc.constantFrom('', '1', '%', '%41', 'a+b', '=', '1,2'), fc.string({ maxLength: 6 }).map(encodeURIComponent));
  const pair = fc.oneof(fc.tuple(key, value).map(([k, v]) => `${k}=${v}`), key, fc.constant(''));

  // One spelling of each key per query: qs merges a name set by two spellings (`offset=1&[offset]=2`)
  // by rules of its own, which nothing here copies (both are refused, in other words).
  const spelling = (p: string) => decodeURIComponent(p.split('=')[0]!.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
  const oneSpellingPerName = (pairs: string[]) => {
    const seen = new Map<string, string>();
    for (const p of pairs) {
      const key = spelling(p);
      const name = key.replace(/^\[([^\]]*)\]/, '$1').split('[')[0]!;
      if ((seen.get(name) ?? key) !== key) return false;
      seen.set(name, key);
    }
    return true;
  };
  it('agrees with qs on every name the routes read', () => {
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 6 }).filter(oneSpellingPerName), (pairs) => {
        const query = pairs.join('&');
        const theirs = qs.parse(query, { allowPrototypes: true }) as Record<string, unknown>;
        const ours = queryParameters(query, ['offset', 'count']);
        for (const name of ['offset', 'count']) expect(shape(ours[name]), query).toBe(shape(Object.hasOwn(theirs, name) ? theirs[name] : undefined));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads only the first 1 000 parameters, as qs does', () => {
    const query = `${'x=1&'.repeat(1000)}offset=5`;
    expect(queryParameters(query, ['offset'])).toEqual({});
    expect((qs.parse(query) as Record<string, unknown>).offset).toBeUndefined();
  });
});
