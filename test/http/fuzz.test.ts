import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_BY_CODE } from '../../adapters/http/error-status.js';
import type { ErrorCode } from '../../src/domain/errors.js';
import { client } from '../support/http-client.js';
import { readLocalPrivateKey, TEST_MASTER_KEY } from '../support/local-key.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Random and malformed requests to every endpoint of the real app (composition root, SQLite, local keys,
 * Express and the sign fast path): never a 500, every error in the envelope, never a key in an answer,
 * and the server still answers afterwards. Runs are bounded so the suite stays fast; a failure prints
 * the seed and the shrunk request that reproduces it.
 */

/** The 43-character secret of `wv_<16 hex id>_<secret>` (base64url, so it may itself contain `_`). */
const secretPart = (apiKey: string) => apiKey.slice('wv_'.length + 16 + 1);

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function send(url: string, r: RawRequest): Promise<{ status: number; type: string | undefined; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    // With Content-Length, as clients send JSON. (A chunked body the server answers before reading makes
    // node close the connection after the answer, so a keep-alive client's next request on it fails.)
    const headers = r.body === undefined ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) };
    const req = http.request({ host: u.hostname, port: u.port, method: r.method, path: r.path, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], text }));
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

// Printable ASCII: what an HTTP client can put in a header value at all.
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 });
// Path segments: anything, percent-encoded, plus raw fragments that are malformed encodings.
const segment = fc.oneof(
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '.', '%00', '%2F', '%252F', '0x', 'null', '-1', ''),
);
const queryValue = fc.oneof(fc.string({ maxLength: 20 }).map(encodeURIComponent), fc.constantFrom('-1', '1e3', '1001', '0', '999999999999999999999', '%', '1.5', ''));
const queryKey = fc.oneof(fc.constantFrom('offset', 'count', 'offset[]', 'count[a]', 'offset[__proto__]', '__proto__', 'constructor'), fc.string({ maxLength: 10 }).map(encodeURIComponent));
// Deep and wide query strings: the extended parser (qs) must stay within its own depth, key and array
// limits. Kept under the 16 KiB head limit (beyond it, the 431 of limits.test.ts).
const hostileQuery = fc.oneof(
  fc.integer({ min: 1, max: 4_000 }).map((d) => `?offset${'[a]'.repeat(d)}=1`),
  fc.integer({ min: 1, max: 1_200 }).map((n) => `?${Array.from({ length: n }, (_, i) => `k${i}=${i}`).join('&')}`),
  fc.integer({ min: 1, max: 1_000 }).map((n) => `?${Array.from({ length: n }, (_, i) => `count[${i}]=1`).join('&')}`),
  fc.integer({ min: 1, max: 1_000 }).map((n) => `?offset=${'9'.repeat(n)}&count[]=${'['.repeat(n)}`),
);
const query = fc.oneof(
  fc.constant(''),
  hostileQuery,
  fc.array(fc.tuple(queryKey, queryValue), { maxLength: 4 }).map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
  fc.constantFrom('?', '?&&', '?offset', '?count=1&count=2', '?%', '?a[b][c][d][e][f][g]=1'),
);

const jsonish = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 60 }),
  fc.constantFrom('', '{', '[', 'null', '{"name":', '{"name":"\\ud800"}', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
  fc.integer({ min: 1, max: 3000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
  deepOrWide(),
  deepOrWide().map((v) => `{"name":"n","extra":${v}}`),
);

/**
 * Deep and wide JSON up to the body limit (1 MiB): nesting of arrays and objects far past any limit,
 * arrays of hundreds of thousands of elements, objects of tens of thousands of keys, long strings.
 */
function deepOrWide(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.integer({ min: 30, max: 400_000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
    fc.integer({ min: 30, max: 150_000 }).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
    fc.integer({ min: 30, max: 100_000 }).map((d) => `${'[{"k":'.repeat(d)}0${'}]'.repeat(d)}`),
    fc.integer({ min: 1, max: 500_000 }).map((n) => `[${'0,'.repeat(n)}0]`),
    fc.integer({ min: 1, max: 60_000 }).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`),
    fc.integer({ min: 1, max: 1_000_000 }).map((n) => JSON.stringify('x'.repeat(n))),
    // deep but unbalanced: the nesting check leaves it to JSON.parse, which refuses it
    fc.integer({ min: 1, max: 300_000 }).map((d) => `${'['.repeat(d)}${'}'.repeat(d)}`),
  );
}

describe('fuzzing every endpoint through the real app', () => {
  let s: TestServer;
  let apiKey: string;
  let otherKey: string;
  let vaultId: string;
  let otherVault: string;
  let addresses: string[];
  let privateKeys: string[];
  let secrets: string[];

  beforeAll(async () => {
    s = await startTestServer({ env: { VAULT_MASTER_KEY: TEST_MASTER_KEY } });
    vaultId = (await s.createVault({ name: 'fuzz' })).id;
    otherVault = (await s.createVault({ name: 'other' })).id;
    apiKey = (await s.createApiKey(vaultId)).apiKey;
    otherKey = (await s.createApiKey(otherVault)).apiKey;
    const api = client(s.url, apiKey);
    addresses = [];
    for (const name of ['a', 'b']) addresses.push((await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name })).body.data.address);
    privateKeys = await Promise.all(addresses.map((a) => readLocalPrivateKey(s.dataDir, TEST_MASTER_KEY, a)));
    secrets = [apiKey, secretPart(apiKey), otherKey, secretPart(otherKey), TEST_MASTER_KEY, ...privateKeys].map((x) => x.toLowerCase());
  });
  afterAll(async () => {
    agent.destroy();
    await s?.stop();
  });

  /** Every answer: below 500, errors in the envelope, no secret anywhere in it. */
  async function check(r: RawRequest): Promise<void> {
    const answer = await send(s.url, r);
    const where = `${r.method} ${r.path} -> ${answer.status} ${answer.text.slice(0, 300)}`;
    expect(answer.status, where).toBeLessThan(500);
    if (answer.status >= 400 && r.method !== 'HEAD') {
      expect(answer.type, where).toMatch(/^application\/json/);
      const body = JSON.parse(answer.text) as Record<string, unknown>;
      expect(Object.keys(body), where).toEqual(['success', 'error', 'code']);
      expect(body.success, where).toBe(false);
      expect(typeof body.error, where).toBe('string');
      // The code is one that maps to the status (raw requests bypass the fetch conformance check).
      expect(STATUS_BY_CODE[body.code as ErrorCode], where).toBe(answer.status);
    }
    const lower = answer.text.toLowerCase();
    for (const secret of secrets) expect(lower.includes(secret), `${where}: a secret in the answer`).toBe(false);
  }

  const authorization = () =>
    fc.oneof(
      fc.constant(`Bearer ${apiKey}`),
      fc.constant(`Bearer ${otherKey}`),
      fc.constant(undefined),
      headerText.map((t) => `Bearer ${t}`),
      headerText,
      fc.constant(`bearer ${apiKey}`),
      fc.constant(`Bearer ${apiKey.slice(0, -1)}`),
      fc.constant(`Basic ${apiKey}`),
    );
  const contentType = fc.oneof(
    fc.constant('application/json'),
    fc.constant(undefined),
    fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/problem+json', 'multipart/form-data; boundary=x', ''),
    headerText,
  );
  const extraHeaders = fc.dictionary(
    fc.constantFrom('x-vault-auth-signature', 'idempotency-key', 'x-request-id', 'accept', 'content-encoding', 'transfer-encoding-x', 'x-forwarded-for'),
    headerText,
    { maxKeys: 3 },
  );

  const request = () =>
    fc
      .record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
        prefix: fc.constantFrom('/api/v1/vaults', '/api/v1/vault', '/api/v2/vaults', '/api/v1/VAULTS', ''),
        vault: fc.oneof(fc.constant('$vault'), fc.constant('$other'), segment),
        tail: fc.oneof(
          fc.constantFrom('/wallets', '/wallets/', '/status', '/sign', '/sign/', '/submissions', '/healthz', '/readyz', '/metrics', ''),
          fc.tuple(fc.constantFrom('/wallets/', '/submissions/'), fc.oneof(fc.constantFrom('$address', '$ADDRESS'), segment)).map(([a, b]) => a + b),
          fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
        ),
        query,
        authorization: authorization(),
        contentType,
        extra: extraHeaders,
        body: fc.option(jsonish, { nil: undefined }),
      })
      .map((g): RawRequest => {
        const vault = g.vault === '$vault' ? vaultId : g.vault === '$other' ? otherVault : g.vault;
        const tail = g.tail.replace('$address', addresses[0]!).replace('$ADDRESS', addresses[1]!.toUpperCase().replace('0X', '0x'));
        const path = (g.prefix ? `${g.prefix}/${vault}${tail}` : tail || '/') + g.query;
        const headers: Record<string, string> = { ...g.extra };
        if (g.authorization !== undefined) headers.authorization = g.authorization;
        if (g.contentType !== undefined) headers['content-type'] = g.contentType;
        return { method: g.method, path, headers, body: g.method === 'GET' || g.method === 'HEAD' ? undefined : g.body };
      });

  it('random requests to every route', async () => {
    await fc.assert(fc.asyncProperty(request(), check), { numRuns: 600 });
    expect((await client(s.url).get('/healthz')).status).toBe(200);
  });

  it('sign bodies: a valid request with any field replaced by anything', async () => {
    const valid = () => ({
      chain: 'local',
      contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      sender: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      uniq: `0x${'ab'.repeat(32)}`,
      signer: addresses[0],
      abi: {
        type: 'function',
        name: 'mint',
        inputs: [
          { name: 'to', type: 'address' },
          { name: 'amounts', type: 'uint256[2]' },
          { name: 'data', type: 'tuple', components: [{ name: 'memo', type: 'string' }, { name: 'blob', type: 'bytes' }, { name: 'flag', type: 'bool' }] },
          { name: 'sig', type: 'tuple', components: [{ name: 'nonce', type: 'bytes32' }, { name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' }, { name: 'v', type: 'uint8' }] },
        ],
      },
      args: ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8', ['1', 2], { memo: 'm', blob: '0x00', flag: true }],
    });
    const anything = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(undefined, '', '0x', -1, 1e308, '1e3', 2 ** 53, '-0x1', [], {}));
    const field = fc.constantFrom('chain', 'contract', 'sender', 'uniq', 'signer', 'abi', 'args', 'abi.inputs', 'abi.name', 'abi.type', 'args.0', 'args.1', 'args.1.0', 'args.2', 'args.2.memo', 'args.2.blob', 'abi.inputs.1.type', 'abi.inputs.2.components', 'abi.inputs.3.components.3.type');
    const mutation = fc.array(fc.tuple(field, anything), { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(mutation, async (changes) => {
        const body: any = valid();
        for (const [at, value] of changes) {
          const keys = at.split('.');
          let target = body;
          for (const k of keys.slice(0, -1)) target = target !== null && typeof target === 'object' ? target[k] : undefined;
          // A copy: the same generated object placed twice must not make the body cyclic.
          if (target !== null && typeof target === 'object') target[keys.at(-1)!] = value === undefined ? undefined : structuredClone(value);
        }
        await check({
          method: 'POST',
          path: `/api/v1/vaults/${vaultId}/sign`,
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      }),
      { numRuns: 400 },
    );
    expect((await client(s.url).get('/healthz')).status).toBe(200);
  });

  it('every route with a body: a field of a valid body replaced by deep or wide JSON (issue 14)', async () => {
    const signBody = {
      chain: 'local',
      contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      sender: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      uniq: `0x${'ab'.repeat(32)}`,
      signer: '$signer',
      abi: { type: 'function', name: 'f', inputs: [{ name: 'xs', type: 'uint256[]' }, { name: 't', type: 'tuple', components: [{ name: 'a', type: 'bool' }] }, { name: 'sig', type: 'tuple', components: [{ name: 'nonce', type: 'bytes32' }, { name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' }, { name: 'v', type: 'uint8' }] }] },
      args: [['1'], { a: true }],
    };
    const routes: { method: string; tail: string; body: object; fields: string[]; headers: Record<string, string> }[] = [
      { method: 'POST', tail: '/wallets', body: { name: 'w' }, fields: ['name', 'extra'], headers: {} },
      { method: 'POST', tail: '/wallets', body: { name: 'w' }, fields: ['name', 'extra'], headers: { 'idempotency-key': 'fuzz' } },
      { method: 'PUT', tail: '/wallets/$address', body: { name: 'w' }, fields: ['name', 'extra'], headers: {} },
      { method: 'POST', tail: '/submissions', body: { submissionHash: `0x${'00'.repeat(32)}`, transactionHash: `0x${'00'.repeat(32)}` }, fields: ['submissionHash', 'transactionHash', 'extra'], headers: {} },
      { method: 'POST', tail: '/sign', body: signBody, fields: ['contract', 'abi', 'args', 'uniq', 'extra', 'abi.inputs', 'abi.inputs.0.type', 'args.0', 'args.1'], headers: {} },
    ];
    const placeholder = '"__HOLE__"';
    const withHole = (body: object, field: string) => {
      const copy: any = structuredClone(body);
      const keys = field.split('.');
      let target = copy;
      for (const k of keys.slice(0, -1)) target = target[k];
      target[keys.at(-1)!] = '__HOLE__';
      return JSON.stringify(copy).replace('"$signer"', JSON.stringify(addresses[0]));
    };
    const damage = fc
      .integer({ min: 0, max: routes.length - 1 })
      .chain((r) => fc.tuple(fc.constant(routes[r]!), fc.constantFrom(...routes[r]!.fields), deepOrWide()));
    await fc.assert(
      fc.asyncProperty(damage, async ([route, field, value]) => {
        await check({
          method: route.method,
          path: `/api/v1/vaults/${vaultId}${route.tail.replace('$address', addresses[1]!)}`,
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...route.headers },
          body: withHole(route.body, field).replace(placeholder, value),
        });
      }),
      { numRuns: 150 },
    );
    expect((await client(s.url).get('/healthz')).status).toBe(200);
  });
});
