import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../adapters/http/openapi/examples.js';
import { OpenApiConformance, type Exchange } from '../support/openapi-conformance.js';

const conformance = new OpenApiConformance();
const BASE = 'http://127.0.0.1:1/api/v1/vaults/v1';
const json = (status: number, body: unknown, extra: Record<string, string> = {}): Omit<Exchange, 'method' | 'url'> => ({
  status,
  headers: new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-12345678', ...extra }),
  body: JSON.stringify(body),
});
const ok = (data: unknown) => ({ success: true, data });

describe('the OpenAPI conformance check the HTTP tests run on every answer', () => {
  it('is installed on globalThis.fetch for every test file', () => {
    expect((globalThis.fetch as { conformance?: boolean }).conformance).toBe(true);
  });

  it('accepts documented answers, on both path spellings and any case', () => {
    expect(conformance.check({ method: 'GET', url: `${BASE}/wallets/0xabc`, ...json(200, ok(EXAMPLES.wallet)) })).toEqual([]);
    expect(conformance.check({ method: 'get', url: `${BASE.replace('vaults', 'vault')}/WALLETS/0xabc/`, ...json(404, { success: false, error: 'x', code: 'WALLET_NOT_FOUND' }) })).toEqual([]);
    expect(conformance.check({ method: 'GET', url: `${BASE}/status`, ...json(200, EXAMPLES.status) })).toEqual([]);
  });

  it('refuses an undocumented status, a body off its schema, a wrong media type and a missing X-Request-Id', () => {
    expect(conformance.check({ method: 'GET', url: `${BASE}/status`, ...json(409, { success: false, error: 'x', code: 'CONFLICT' }) })[0]).toMatch(/status 409 is not documented/);
    const { created: _dropped, ...withoutCreated } = EXAMPLES.wallet;
    expect(conformance.check({ method: 'GET', url: `${BASE}/wallets/0xabc`, ...json(200, ok(withoutCreated)) })[0]).toMatch(/must have required property 'created'/);
    expect(conformance.check({ method: 'GET', url: `${BASE}/wallets/0xabc`, ...json(200, ok({ ...EXAMPLES.wallet, keyRef: 'k' })) })[0]).toMatch(/additional properties/);
    expect(conformance.check({ method: 'GET', url: `${BASE}/status`, ...json(200, ok(EXAMPLES.status)) })[0]).toMatch(/does not match/);
    expect(conformance.check({ method: 'GET', url: `${BASE}/status`, ...json(200, EXAMPLES.status, { 'content-type': 'text/html' }) })[0]).toMatch(/content type/);
    const noId = json(200, EXAMPLES.status);
    noId.headers.delete('x-request-id');
    expect(conformance.check({ method: 'GET', url: `${BASE}/status`, ...noId })).toEqual([expect.stringMatching(/X-Request-Id is missing/)]);
  });

  it("refuses an error answer without a code, or with a code that is not one the operation lists for that status", () => {
    const refused = (status: number, body: unknown) => conformance.check({ method: 'GET', url: `${BASE}/wallets/0xabc`, ...json(status, body) });
    expect(refused(404, { success: false, error: 'wallet 0xabc not found in this vault', code: 'WALLET_NOT_FOUND' })).toEqual([]);
    expect(refused(404, { success: false, error: 'wallet 0xabc not found in this vault' })[0]).toMatch(/required property 'code'/);
    // A code of another status (409), and a code of the right status that getWallet never answers.
    expect(refused(404, { success: false, error: 'x', code: 'CONFLICT' })[0]).toMatch(/allowed values/);
    expect(refused(404, { success: false, error: 'x', code: 'SUBMISSION_NOT_FOUND' })[0]).toMatch(/allowed values/);
    expect(refused(404, { success: false, error: 'x', code: 'WALLET_NOT_FOUND', detail: 'y' })[0]).toMatch(/additional properties/);
  });

  it('holds the challenge of a 401 to the document', () => {
    const refused = { success: false, error: 'missing API key', code: 'UNAUTHENTICATED' };
    const at = (challenge?: string) => conformance.check({ method: 'GET', url: `${BASE}/status`, ...json(401, refused, challenge === undefined ? {} : { 'www-authenticate': challenge }) });
    expect(at('Bearer realm="wallet-vault"')).toEqual([]);
    expect(at('Bearer realm="wallet-vault", error="invalid_token"')).toEqual([]);
    expect(at()).toEqual([expect.stringMatching(/required header WWW-Authenticate is missing/)]);
    expect(at('Basic')[0]).toMatch(/header WWW-Authenticate: "Basic" does not match/);
  });

  it('holds the request body of a 200 to the documented request schema (the document is never stricter than the server)', () => {
    const answer = json(200, ok(EXAMPLES.wallet));
    expect(conformance.check({ method: 'POST', url: `${BASE}/wallets`, requestBody: '{"name":"a"}', ...answer })).toEqual([]);
    expect(conformance.check({ method: 'POST', url: `${BASE}/wallets`, requestBody: '{"name":5}', ...answer })[0]).toMatch(/request body/);
  });

  it('expects the shared 405 with Allow for a method a documented path does not serve', () => {
    const wrong = { success: false, error: 'method PATCH is not allowed', code: 'METHOD_NOT_ALLOWED' };
    expect(conformance.check({ method: 'PATCH', url: `${BASE}/wallets`, ...json(405, wrong, { allow: 'GET, HEAD, POST' }) })).toEqual([]);
    expect(conformance.check({ method: 'POST', url: 'http://127.0.0.1:1/healthz', ...json(405, wrong, { allow: 'GET, HEAD' }) })).toEqual([]);
    expect(conformance.check({ method: 'PATCH', url: `${BASE}/wallets`, ...json(405, wrong) })).toEqual([expect.stringMatching(/required header Allow is missing/)]);
    expect(conformance.check({ method: 'PATCH', url: `${BASE}/wallets`, ...json(405, wrong, { allow: 'get,post' }) })[0]).toMatch(/header Allow: "get,post" does not match/);
    expect(conformance.check({ method: 'PATCH', url: `${BASE}/wallets`, ...json(404, { success: false, error: 'no route', code: 'ROUTE_NOT_FOUND' }) })[0]).toMatch(/instead of 405/);
    expect(conformance.check({ method: 'PATCH', url: `${BASE}/wallets`, ...json(405, { ...wrong, code: 'ROUTE_NOT_FOUND' }, { allow: 'GET' }) })[0]).toMatch(
      /code ROUTE_NOT_FOUND instead of METHOD_NOT_ALLOWED/,
    );
  });

  it('expects the unknown-route 404 from any other path of the API, and ignores other servers', () => {
    expect(conformance.check({ method: 'GET', url: `${BASE}/nothing`, ...json(404, { success: false, error: 'no route', code: 'ROUTE_NOT_FOUND' }) })).toEqual([]);
    expect(conformance.check({ method: 'GET', url: `${BASE}/nothing`, ...json(404, { success: false, error: 'no route', code: 'WALLET_NOT_FOUND' }) })[0]).toMatch(
      /code WALLET_NOT_FOUND instead of ROUTE_NOT_FOUND/,
    );
    expect(conformance.check({ method: 'GET', url: `${BASE}/nothing`, ...json(404, { success: false, error: 'no route' }) })[0]).toMatch(/required property 'code'/);
    expect(conformance.check({ method: 'GET', url: `${BASE}/nothing`, ...json(200, {}) })[0]).toMatch(/instead of 404/);
    expect(conformance.check({ method: 'POST', url: 'http://127.0.0.1:1/', ...json(200, { jsonrpc: '2.0' }) })).toEqual([]);
  });
});
