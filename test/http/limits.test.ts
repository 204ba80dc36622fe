import net from 'node:net';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../adapters/main/config.js';
import { RateLimiter, RateLimitedError } from '../../adapters/http/rate-limits.js';
import { client } from '../support/http-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { SIGNATURE_PARAM as SIG, localSignBody } from '../support/sign-request.js';

const abiOf = (...inputs: object[]) => ({ type: 'function', name: 'f', inputs: [...inputs, SIG] });

async function vaultWithKeys(s: TestServer, keys: number) {
  const vaultId = (await s.createVault({ name: 'limits' })).id;
  const apis = [];
  for (let i = 0; i < keys; i++) apis.push(client(s.url, (await s.createApiKey(vaultId)).apiKey));
  return { base: `/api/v1/vaults/${vaultId}`, apis };
}

describe('rate limit per API key (VAULT_RATE_LIMIT_PER_MINUTE)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { VAULT_RATE_LIMIT_PER_MINUTE: '4' } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('refuses with 429 and Retry-After once the key has used its minute, on Express routes and Sign alike; other keys are unaffected', async () => {
    const { base, apis } = await vaultWithKeys(s, 2);
    const [a, b] = apis as [ReturnType<typeof client>, ReturnType<typeof client>];
    expect((await a.get(`${base}/wallets`)).status).toBe(200);
    expect((await a.post(`${base}/wallets`, { name: 'x' })).status).toBe(200);
    expect((await a.post(`${base}/sign`, { chain: 'nope' })).status).toBe(400);
    expect((await a.get(`${base}/status`)).status).toBe(200);
    for (const refused of [await a.get(`${base}/wallets`), await a.post(`${base}/sign`, { chain: 'nope' })]) {
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ success: false, error: expect.stringMatching(/^rate limit exceeded for this API key; retry after \d+ s$/), code: 'RATE_LIMITED' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(15);
    }
    expect((await b.get(`${base}/wallets`)).status).toBe(200);
    const metrics = (await client(s.url).get('/metrics')).body as string;
    expect(metrics).toMatch(/^wallet_vault_rate_limited_total 2$/m);
    // Unauthenticated requests are refused as before (401), not counted against anyone.
    expect((await client(s.url, 'wv_0000000000000000_nope').get(`${base}/wallets`)).status).toBe(401);
  });

  it('refills at the configured rate', () => {
    let now = 0;
    const limiter = new RateLimiter(60, () => now);
    for (let i = 0; i < 60; i++) limiter.take('k');
    expect(() => limiter.take('k')).toThrow(RateLimitedError);
    try {
      limiter.take('k');
    } catch (e) {
      expect((e as RateLimitedError).retryAfterSeconds).toBe(1);
    }
    now += 1000;
    limiter.take('k');
    expect(() => limiter.take('k')).toThrow(RateLimitedError);
    now += 3_600_000;
    for (let i = 0; i < 60; i++) limiter.take('k');
    expect(() => limiter.take('k')).toThrow(RateLimitedError);
  });

  it('is off by default and refuses a bad value naming the variable', () => {
    expect(loadConfig({}).rateLimitPerMinute).toBeUndefined();
    expect(() => loadConfig({ VAULT_RATE_LIMIT_PER_MINUTE: '0' })).toThrow(/VAULT_RATE_LIMIT_PER_MINUTE: must be between 1/);
    expect(() => loadConfig({ VAULT_RATE_LIMIT_PER_MINUTE: 'lots' })).toThrow(ConfigError);
  });
});

describe('shape bounds on Sign args, header size', () => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let sign: ((extra: object) => ReturnType<ReturnType<typeof client>['post']>) & { path: string; raw: (extra: object) => string };
  beforeAll(async () => {
    s = await startTestServer({ env: { VAULT_ARGS_MAX_DEPTH: '4', VAULT_ARGS_MAX_ARRAY_LENGTH: '5', VAULT_ARGS_MAX_STRING_LENGTH: '100' } });
    const { base, apis } = await vaultWithKeys(s, 1);
    api = apis[0]!;
    const signer = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address;
    const bodyOf = (extra: object) => ({
      ...localSignBody(signer),
      args: [],
      ...extra,
    });
    sign = Object.assign((extra: object) => api.post(`${base}/sign`, bodyOf(extra)), {
      path: `${base}/sign`,
      raw: (extra: object) => JSON.stringify(bodyOf(extra)),
    });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('signs within the bounds', async () => {
    const r = await sign({ abi: abiOf({ name: 'xs', type: 'uint256[][]' }), args: [[['1', '2'], ['3']]] });
    expect(r.status).toBe(200);
  });

  it.each([
    ['nesting too deep', { abi: abiOf({ name: 'x', type: 'uint256[][][][]' }), args: [[[[['1']]]]] }, /^args\[0\]\[0\]\[0\]\[0\]: nested deeper than the limit of 4 levels$/],
    ['an array too long', { abi: abiOf({ name: 'x', type: 'uint256[]' }), args: [['1', '2', '3', '4', '5', '6']] }, /^args\[0\]: array longer than the limit of 5 elements$/],
    ['a string too long', { abi: abiOf({ name: 'x', type: 'string' }), args: ['y'.repeat(101)] }, /^args\[0\]: string of 101 characters is longer than the limit of 100$/],
    ['a deep object', { abi: abiOf({ name: 'x', type: 'uint256' }), args: [{ a: { b: { c: { d: 1 } } } }] }, /^args\[0\]\.a\.b\.c: nested deeper than the limit of 4 levels$/],
    ['a hostile abi', { abi: { type: 'function', name: 'f', inputs: [{ components: [{ components: [{ components: [{ components: [{}] }] }] }] }] }, args: [] }, /^abi\.inputs\[0\](\.components\[0\]){4}: nested deeper than the limit of 11 levels$/],
  ])('refuses %s with a 400 naming the place', async (_label, extra, message) => {
    const r = await sign(extra);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: expect.stringMatching(message), code: 'INVALID_ARGUMENT' });
  });

  // The whole body nests at most 2 × VAULT_ARGS_MAX_DEPTH + 3 levels (11 here), checked before it is parsed.
  it('refuses nesting of any depth without walking it', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const r = await api.raw('POST', sign.path, { raw: sign.raw({ abi: abiOf({ name: 'x', type: 'uint256' }) }).replace('"args":[]', `"args":${deep}`) });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: `args${'[0]'.repeat(10)}: nested deeper than the limit of 11 levels`, code: 'INVALID_ARGUMENT' });
  });

  it('answers headers over the limit with 431 in the envelope', async () => {
    const url = new URL(s.url);
    const answer = await new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, path: '/healthz', headers: { 'x-padding': 'p'.repeat(20_000) } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(431);
    expect(answer.type).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body)).toEqual({ success: false, error: 'request headers are larger than the limit of 16384 bytes', code: 'HEADERS_TOO_LARGE' });
    expect((await api.get('/healthz')).status).toBe(200);
  });

  // A response to HEAD has no body: bytes after the head would be read as the start of the next answer.
  it('answers a HEAD with headers over the limit with 431 and no body', async () => {
    const url = new URL(s.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.end(`HEAD /healthz HTTP/1.1\r\nHost: ${url.host}\r\nX-Padding: ${'p'.repeat(20_000)}\r\n\r\n`);
      });
      let received = '';
      socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(raw).toMatch(/\r\nContent-Type: application\/json/);
    expect(raw.endsWith('\r\n\r\n'), raw).toBe(true);
    expect((await api.get('/healthz')).status).toBe(200);
  });
});
