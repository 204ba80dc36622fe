import { readdir, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import path from 'node:path';
import { AbiCoder, getAddress, keccak256, recoverAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_BY_CODE } from '../../adapters/http/error-status.js';
import { createHttpPipeline } from '../../adapters/http/pipeline.js';
import type { HttpDeps } from '../../adapters/http/http-deps.js';
import type { ErrorCode } from '../../src/domain/errors.js';
import { freePort } from '../support/cli.js';
import { client, type Reply } from '../support/http-client.js';
import { LOCAL_CONTRACT, LOCAL_SENDER, LOCAL_UNIQ, MINT_ABI, MINT_TO, localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { ALL_ROLES } from '../../src/domain/api-key-access.js';

/**
 * decisions.md, checked case by case over HTTP against the real service: the cases the feature tests
 * cover only on some routes are checked here on every route, on both the canonical path and the
 * singular `vault` alias, and through the sign fast path as well as Express.
 */

const [TO, CONTRACT, SENDER, UNIQ] = [MINT_TO, LOCAL_CONTRACT, LOCAL_SENDER, LOCAL_UNIQ];
const MINT = MINT_ABI;
const coder = AbiCoder.defaultAbiCoder();

/**
 * The error envelope exactly: `success` and `error` as the interface defines them, then the stable `code`
 * (decisions.md), in that order; the code is one that maps to this status. JSON content type.
 */
function expectErrorEnvelope(r: Reply, status: number, message?: RegExp): void {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body).toEqual({ success: false, error: message ? expect.stringMatching(message) : expect.any(String), code: expect.any(String) });
  expect(Object.keys(r.body)).toEqual(['success', 'error', 'code']);
  expect(STATUS_BY_CODE[r.body.code as ErrorCode], `code ${r.body.code}`).toBe(status);
}

/** A request whose body is streamed with chunked encoding (no Content-Length the server could check first). */
async function chunkedPost(url: string, apiKey: string, bytes: number): Promise<{ status: number; body: unknown }> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(Buffer.from('{"name":"'));
      if (sent >= bytes) {
        controller.enqueue(Buffer.from('"}'));
        controller.close();
        return;
      }
      controller.enqueue(chunk);
      sent += chunk.length;
    },
  });
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) };
}

describe('decisions.md over HTTP: authentication, routes, bodies, envelope', () => {
  let s: TestServer;
  let a: { id: string; key: string };
  let b: { id: string; key: string };
  let api: ReturnType<typeof client>;
  let wallet: { address: string };
  let signed: { submissionHash: string };

  beforeAll(async () => {
    s = await startTestServer();
    const va = await s.createVault({ name: 'a' });
    a = { id: va.id, key: (await s.createApiKey(va.id)).apiKey };
    const vb = await s.createVault({ name: 'b' });
    b = { id: vb.id, key: (await s.createApiKey(vb.id)).apiKey };
    api = client(s.url, a.key);
    wallet = (await api.post(`/api/v1/vaults/${a.id}/wallets`, { name: 'signer' })).body.data;
    signed = (await api.post(`/api/v1/vaults/${a.id}/sign`, signBody(wallet.address))).body.data;
  });
  afterAll(async () => {
    await s?.stop();
  });

  const signBody = localSignBody;

  /** Every endpoint of a vault, as method, path below the vault, and a valid body. */
  const endpoints = (): [string, string, unknown][] => [
    ['GET', '/wallets', undefined],
    ['POST', '/wallets', { name: 'x' }],
    ['GET', `/wallets/${wallet.address}`, undefined],
    ['PUT', `/wallets/${wallet.address}`, { name: 'y' }],
    ['DELETE', `/wallets/${wallet.address}`, undefined],
    ['POST', `/wallets/${wallet.address}`, undefined],
    ['GET', '/status', undefined],
    ['POST', '/sign', signBody(wallet.address)],
    ['POST', '/submissions', { submissionHash: signed.submissionHash, transactionHash: `0x${'1'.repeat(64)}` }],
    ['GET', `/submissions/${signed.submissionHash}`, undefined],
  ];

  it('answers 401 in the envelope, on every endpoint and both path spellings, for each case decisions.md lists', async () => {
    const wellFormedUnknown = `wv_${'0'.repeat(16)}_${'A'.repeat(43)}`;
    const cases: [string, string, Record<string, string>][] = [
      ['missing', a.id, {}],
      ['empty', a.id, { authorization: '' }],
      ['scheme only', a.id, { authorization: 'Bearer' }],
      ['another scheme', a.id, { authorization: `Basic ${a.key}` }],
      ['a malformed key', a.id, { authorization: 'Bearer not-a-key' }],
      ['an unknown key', a.id, { authorization: `Bearer ${wellFormedUnknown}` }],
      ["another vault's key", a.id, { authorization: `Bearer ${b.key}` }],
      ['an unknown vault', 'no-such-vault', { authorization: `Bearer ${a.key}` }],
    ];
    const before = (await api.get(`/api/v1/vaults/${a.id}/wallets`)).body.data.count;
    const anonymous = client(s.url);
    for (const [label, vaultId, headers] of cases) {
      for (const segment of ['vaults', 'vault']) {
        for (const [method, sub, body] of endpoints()) {
          const r = await anonymous.raw(method, `/api/v1/${segment}/${vaultId}${sub}`, { body, headers });
          expect(r.status, `${label}: ${method} /${segment}/…${sub}`).toBe(401);
          expectErrorEnvelope(r, 401);
          // RFC 6750: invalid_token only where a Bearer token was presented and refused.
          expect(r.headers.get('www-authenticate'), label).toBe(/^Bearer \S/.test(headers.authorization ?? '') ? 'Bearer realm="wallet-vault", error="invalid_token"' : 'Bearer realm="wallet-vault"');
          expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        }
      }
    }
    // Nothing a refused request carried was acted on.
    const after = await api.get(`/api/v1/vaults/${a.id}/wallets/${wallet.address}`);
    expect(after.body.data).toMatchObject({ name: 'signer' });
    expect(after.body.data.expires).toBeUndefined();
    expect((await api.get(`/api/v1/vaults/${a.id}/wallets`)).body.data.count).toBe(before);
    expect((await api.get(`/api/v1/vaults/${a.id}/submissions/${signed.submissionHash}`)).body.data.transactionHash).toBeNull();
  });

  it('serves every endpoint on the singular `vault` alias exactly as on `vaults`', async () => {
    const alias = client(s.url, a.key);
    const w = (await alias.post(`/api/v1/vault/${a.id}/wallets`, { name: 'alias' })).body.data;
    expect((await alias.get(`/api/v1/vault/${a.id}/wallets`)).body.data.page).toContainEqual(w);
    expect((await alias.put(`/api/v1/vault/${a.id}/wallets/${w.address}`, { name: 'renamed' })).body.data.name).toBe('renamed');
    expect((await alias.delete(`/api/v1/vault/${a.id}/wallets/${w.address}`)).body.data.expires).toEqual(expect.any(String));
    const back = await alias.post(`/api/v1/vault/${a.id}/wallets/${w.address}`);
    expect(back.status).toBe(200);
    expect(back.body.data.expires).toBeUndefined();
    const status = await alias.get(`/api/v1/vault/${a.id}/status`);
    const canonical = await alias.get(`/api/v1/vaults/${a.id}/status`);
    expect(Object.keys(status.body).sort()).toEqual(['online', 'timestamp', 'vaultKeys', 'version', 'wallets']);
    expect({ ...status.body, timestamp: 0 }).toEqual({ ...canonical.body, timestamp: 0 });
    const sig = (await alias.post(`/api/v1/vault/${a.id}/sign`, signBody(wallet.address))).body.data;
    const tx = `0x${'4'.repeat(64)}`;
    expect((await alias.post(`/api/v1/vault/${a.id}/submissions`, { submissionHash: sig.submissionHash, transactionHash: tx })).body.data.transactionHash).toBe(tx);
    expect((await alias.get(`/api/v1/vault/${a.id}/submissions/${sig.submissionHash}`)).body.data.transactionHash).toBe(tx);
  });

  it('answers 404 in the envelope for unknown routes, also inside a vault with a valid key', async () => {
    for (const [method, p] of [
      ['GET', '/'],
      ['GET', '/api/v1'],
      ['GET', `/api/v1/vaults/${a.id}`],
      ['GET', `/api/v1/vaults/${a.id}/nothing`],
      ['GET', `/api/v1/vaults/${a.id}/wallets/${wallet.address}/extra`],
      ['POST', '/nothing'],
    ] as const) {
      const r = await api.raw(method, p);
      expectErrorEnvelope(r, 404, /^no route /);
      expect(r.body.code).toBe('ROUTE_NOT_FOUND');
    }
  });

  it('answers 405 with Allow in the envelope for a known path asked with another method, with a valid key or none', async () => {
    for (const caller of [api, client(s.url)]) {
      for (const [method, p, allow] of [
        ['PATCH', `/api/v1/vaults/${a.id}/wallets`, 'GET, HEAD, POST'],
        ['GET', `/api/v1/vaults/${a.id}/sign`, 'POST'],
        ['PUT', `/api/v1/vault/${a.id}/status`, 'GET, HEAD'],
        ['POST', '/healthz', 'GET, HEAD'],
        ['POST', '/metrics', 'GET, HEAD'],
        ['DELETE', '/openapi.json', 'GET, HEAD'],
        ['POST', '/docs', 'GET, HEAD'],
        ['PUT', '/.well-known/wallet-vault-webhook-keys', 'GET, HEAD'],
      ] as const) {
        const r = await caller.raw(method, p);
        expectErrorEnvelope(r, 405, new RegExp(`^method ${method} is not allowed on `));
        expect(r.body.code, `${method} ${p}`).toBe('METHOD_NOT_ALLOWED');
        expect(r.headers.get('allow'), `${method} ${p}`).toBe(allow);
      }
    }
  });

  it('answers 400 naming the problem for a body that is not JSON, on every route that takes a body', async () => {
    for (const [method, sub] of [
      ['POST', '/wallets'],
      ['PUT', `/wallets/${wallet.address}`],
      ['POST', '/sign'],
      ['POST', '/submissions'],
    ] as const) {
      for (const raw of ['{"name":', 'not json', '']) {
        const r = await api.raw(method, `/api/v1/vaults/${a.id}${sub}`, { raw });
        expectErrorEnvelope(r, 400, raw === '' ? /body is required/ : /not valid JSON/);
      }
    }
  });

  it('answers 413 above 1 MiB on every route that takes a body, declared or streamed, and keeps serving', async () => {
    const big = 'x'.repeat(1024 * 1024);
    for (const [method, sub, body] of [
      ['POST', '/wallets', { name: big }],
      ['PUT', `/wallets/${wallet.address}`, { name: big }],
      ['POST', '/sign', signBody(wallet.address, { pad: big })],
      ['POST', '/submissions', { submissionHash: signed.submissionHash, transactionHash: big }],
    ] as const) {
      expectErrorEnvelope(await api.raw(method, `/api/v1/vaults/${a.id}${sub}`, { body }), 413, /larger than the limit of 1048576 bytes/);
    }
    for (const sub of ['/wallets', '/sign']) {
      const r = await chunkedPost(`${s.url}/api/v1/vaults/${a.id}${sub}`, a.key, 1024 * 1024 + 1);
      expect(r.status, sub).toBe(413);
      expect(r.body).toEqual({ success: false, error: expect.stringMatching(/larger than the limit/), code: 'PAYLOAD_TOO_LARGE' });
    }
    // Just under the limit is accepted as a body (and then refused only for its content).
    const under = await api.post(`/api/v1/vaults/${a.id}/wallets`, { name: 'x'.repeat(1024 * 1024 - 20) });
    expectErrorEnvelope(under, 400, /^name: must be at most 200 characters/);
    expect((await api.get(`/api/v1/vaults/${a.id}/wallets/${wallet.address}`)).status).toBe(200);
  });

  it('shows EIP-55 addresses in every response, whatever case the request used', async () => {
    const created = (await api.post(`/api/v1/vaults/${a.id}/wallets`, { name: 'case' })).body.data;
    const lower = created.address.toLowerCase();
    const responses = [
      created,
      (await api.get(`/api/v1/vaults/${a.id}/wallets/${lower}`)).body.data,
      (await api.put(`/api/v1/vaults/${a.id}/wallets/${lower}`, { name: 'case2' })).body.data,
      (await api.delete(`/api/v1/vaults/${a.id}/wallets/${lower}`)).body.data,
      (await api.post(`/api/v1/vaults/${a.id}/wallets/${lower}`)).body.data,
      ...(await api.get(`/api/v1/vaults/${a.id}/wallets?count=1000`)).body.data.page,
    ];
    for (const w of responses) expect(w.address).toBe(getAddress(w.address.toLowerCase()));
    const sig = (await api.post(`/api/v1/vaults/${a.id}/sign`, signBody(lower))).body.data;
    const record = (await api.get(`/api/v1/vaults/${a.id}/submissions/${sig.submissionHash}`)).body.data;
    expect(record).toMatchObject({ wallet: created.address, contract: getAddress(CONTRACT), sender: getAddress(SENDER) });
    // The returned args echo the supplied values unchanged (lower case stays lower case).
    expect(sig.args[0]).toBe(TO);
  });

  it('refuses a string argument that is not well-formed Unicode, since encoders disagree on its bytes', async () => {
    const abi = { type: 'function', name: 'memo', inputs: [{ name: 'text', type: 'string' }, MINT.inputs[2]] };
    expectErrorEnvelope(await api.post(`/api/v1/vaults/${a.id}/sign`, signBody(wallet.address, { abi, args: ['a\ud800'] })), 400, /^args\[0\] \(string\): is not well-formed Unicode/);
    expect((await api.post(`/api/v1/vaults/${a.id}/sign`, signBody(wallet.address, { abi, args: ['héllo 😀'] }))).status).toBe(200);
  });

  it('signs with a fresh nonce each call: the structure, the digest and the submissionHash exactly as decisions.md defines them', async () => {
    const body = signBody(wallet.address);
    const first = await api.post(`/api/v1/vaults/${a.id}/sign`, body);
    const second = await api.post(`/api/v1/vaults/${a.id}/sign`, body);
    for (const r of [first, second]) {
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(['data', 'success']);
      expect(Object.keys(r.body.data).sort()).toEqual(['args', 'submissionHash']);
      const sig = r.body.data.args[2];
      expect(Object.keys(sig)).toEqual(['nonce', 'r', 's', 'v']);
      expect(sig).toEqual({
        nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        r: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        s: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        v: expect.any(Number),
      });
      expect([27, 28]).toContain(sig.v);
      expect(BigInt(sig.s) <= 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n).toBe(true);
      const selector = keccak256(Buffer.from('mint(address,uint256,(bytes32,bytes32,bytes32,uint8))')).slice(0, 10);
      const message = coder.encode(['bytes4', 'address', 'uint256'], [selector, TO, 1000n]);
      const digest = keccak256(coder.encode(['bytes32', 'bytes32', 'address', 'bytes'], [UNIQ, sig.nonce, SENDER, message]));
      expect(recoverAddress(digest, { r: sig.r, s: sig.s, v: sig.v })).toBe(wallet.address);
      expect(r.body.data.submissionHash).toBe(keccak256(coder.encode(['bytes32', 'bytes32', 'bytes32', 'uint8'], [sig.nonce, sig.r, sig.s, sig.v])));
    }
    expect(first.body.data.args[2].nonce).not.toBe(second.body.data.args[2].nonce);
    expect(first.body.data.submissionHash).not.toBe(second.body.data.submissionHash);
  });

  it('keeps submissions per vault and checks their fields', async () => {
    const apiB = client(s.url, b.key);
    const tx = `0x${'5'.repeat(64)}`;
    expectErrorEnvelope(await apiB.get(`/api/v1/vaults/${b.id}/submissions/${signed.submissionHash}`), 404, /not found in this vault/);
    expectErrorEnvelope(await apiB.post(`/api/v1/vaults/${b.id}/submissions`, { submissionHash: signed.submissionHash, transactionHash: tx }), 404);
    expectErrorEnvelope(await api.post(`/api/v1/vaults/${a.id}/submissions`, { transactionHash: tx }), 400, /^submissionHash: /);
    expectErrorEnvelope(await api.post(`/api/v1/vaults/${a.id}/submissions`, { submissionHash: signed.submissionHash }), 400, /^transactionHash: /);
    expectErrorEnvelope(await api.post(`/api/v1/vaults/${a.id}/submissions`, { submissionHash: '0x12', transactionHash: tx }), 400, /^submissionHash: /);
    expectErrorEnvelope(await api.post(`/api/v1/vaults/${a.id}/submissions`, [1]), 400, /^body: /);
    expectErrorEnvelope(await api.get(`/api/v1/vaults/${a.id}/submissions/0x12`), 400, /^submissionHash: /);
  });

  it('counts wallet names in characters, not UTF-16 code units, and refuses what could not be stored as sent', async () => {
    const emoji = '😀'.repeat(200);
    const ok = await api.post(`/api/v1/vaults/${a.id}/wallets`, { name: emoji });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.name).toBe(emoji);
    expectErrorEnvelope(await api.post(`/api/v1/vaults/${a.id}/wallets`, { name: `${emoji}x` }), 400, /^name: must be at most 200 characters \(got 201\)/);
    // A lone surrogate (valid JSON escape, invalid Unicode) would be stored as U+FFFD and read back changed.
    expectErrorEnvelope(await api.post(`/api/v1/vaults/${a.id}/wallets`, { name: 'a\ud800b' }), 400, /^name: must be well-formed Unicode/);
    expectErrorEnvelope(await api.put(`/api/v1/vaults/${a.id}/wallets/${wallet.address}`, { name: '\udc00' }), 400, /^name: must be well-formed Unicode/);
  });

  it('writes every file of the data directory 0600 and every directory 0700', async () => {
    const modes: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        const mode = (await stat(full)).mode & 0o777;
        modes.push(`${entry.isDirectory() ? 'dir' : 'file'} ${path.relative(s.dataDir, full)} ${mode.toString(8)}`);
        if (entry.isDirectory()) await walk(full);
      }
    };
    await walk(s.dataDir);
    expect(modes.length).toBeGreaterThan(3);
    for (const line of modes) expect(line).toMatch(/^(file .* 600|dir .* 700)$/);
    expect(modes).toContainEqual(expect.stringMatching(/^file .*\.key 600$/));
    expect(modes).toContainEqual(expect.stringMatching(/^file .*-wal 600$/));
  });
});

describe('decisions.md over HTTP: dependencies that fail', () => {
  it('a chain RPC that does not answer is 502 naming the chain', async () => {
    const s = await startTestServer({ env: { VAULT_RPC_URL_FUJI: `http://127.0.0.1:${await freePort()}` } });
    try {
      const vaultId = (await s.createVault({ name: 'rpc' })).id;
      const api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
      const r = await api.post(`/api/v1/vaults/${vaultId}/sign`, { chain: 'fuji', contract: CONTRACT, sender: SENDER, abi: MINT, args: [TO, 1] });
      expectErrorEnvelope(r, 502, /^chain fuji: /);
    } finally {
      await s.stop();
    }
  });
});

describe('the error handler: an unexpected error is a 500 that says only "internal error" and the request id', () => {
  let server: http.Server;
  let url: string;
  const logged: { o: object; m?: string }[] = [];

  beforeAll(async () => {
    const boom = async (): Promise<never> => {
      const error = new TypeError('cannot read secret-detail of undefined');
      throw error;
    };
    const deps: HttpDeps = {
      authenticate: { execute: async (_h, vaultId) => ({ apiKeyId: 'k', vaultId, roles: ALL_ROLES }) },
      authorize: { execute: async () => undefined },
      createWallet: { execute: boom },
      listWallets: { execute: boom },
      getWallet: { execute: boom },
      renameWallet: { execute: boom },
      expireWallet: { execute: boom },
      unexpireWallet: { execute: boom },
      getVaultStatus: { execute: boom },
      signCall: { executeBody: boom },
      signMessage: { execute: boom },
      signTypedData: { execute: boom },
      signTransaction: { execute: boom },
      signAuthorization: { execute: boom },
      evaluatePolicy: { execute: boom },
      jsonRpc: { defaultChain: () => undefined, answerBudget: () => ({ remaining: 0 }), execute: boom },
      verifyAuthSignature: { execute: async () => undefined },
      recordSubmission: { execute: boom },
      getSubmission: { execute: boom },
      manageOperators: { authenticate: boom, authorize: boom, beginSignIn: boom, completeSignIn: boom, signInPublicUrl: () => 'http://127.0.0.1' },
      manageVaults: { create: boom, list: boom, listApiKeys: boom, createApiKey: boom, revokeApiKey: boom, rotateApiKey: boom, setApiKeyRoles: boom },
      managePolicies: { export: boom, apply: boom },
      manageWebhooks: { add: boom, list: boom, remove: boom, replay: boom },
      consoleInvites: { invite: boom, list: boom },
      listApprovals: { execute: boom },
      getApproval: { execute: boom, shownPolicy: boom, keyLabels: boom },
      voteOnApproval: { execute: boom },
      governance: { show: boom, list: boom, get: boom, vote: boom, freeze: boom, set: boom, unfreeze: boom },
      // Readiness failing otherwise than by a dependency down (a ReadinessFailure, 503) is just as unexpected.
      readiness: boom,
      logger: {
        info: () => undefined,
        warn: (o, m) => void logged.push({ o, m }),
        error: (o, m) => void logged.push({ o, m }),
      },
      bodyLimitBytes: 1024 * 1024,
    };
    const pipeline = createHttpPipeline(deps, { health: true, apiDocs: { ui: true } });
    server = http.createServer((req, res) => void pipeline.handle(req, res, { url: req.url ?? '/', base: '' }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it.each([
    ['GET', '/api/v1/vaults/v/wallets', undefined],
    ['POST', '/api/v1/vaults/v/wallets', { name: 'x' }],
    ['GET', `/api/v1/vaults/v/status`, undefined],
    // A body Sign's schema accepts: the failure is the use case's own.
    ['POST', '/api/v1/vaults/v/sign', { chain: 'local', contract: CONTRACT, sender: SENDER, abi: MINT, args: [] }],
    ['GET', '/readyz', undefined],
  ] as const)('%s %s', async (method, p, body) => {
    logged.length = 0;
    const r = await client(url, 'any').raw(method, p, { body });
    const requestId = r.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expectErrorEnvelope(r, 500);
    expect(r.body.error).toBe(`internal error (request id ${requestId})`);
    // The detail goes to the log, with the same request id, and never to the client.
    expect(JSON.stringify(r.body)).not.toMatch(/secret-detail|TypeError|\bat\b/);
    expect(logged).toEqual([{ o: expect.objectContaining({ requestId, err: expect.objectContaining({ message: expect.stringMatching(/secret-detail/) }) }), m: 'unexpected error' }]);
  });
});

describe('decisions.md over HTTP: X-Vault-Auth-Signature is authentication, checked before the body is read as JSON', () => {
  const SECRET = 'conformance-secret-of-at-least-32-characters';
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let base: string;
  beforeAll(async () => {
    s = await startTestServer({ env: { VAULT_AUTH_SECRET_KEY: SECRET } });
    const vaultId = (await s.createVault({ name: 'auth-sig' })).id;
    api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    base = `/api/v1/vaults/${vaultId}`;
  });
  afterAll(async () => {
    await s?.stop();
  });

  it.each([
    ['malformed JSON', '{"chain":', {}],
    ['an empty body', '', {}],
    ['a form body', 'a=1', { 'content-type': 'application/x-www-form-urlencoded' }],
  ])('without the header, %s is 401, not 400', async (_label, raw, headers) => {
    const r = await api.raw('POST', `${base}/sign`, { raw, headers });
    expectErrorEnvelope(r, 401, /X-Vault-Auth-Signature header is required/);
    // The API key passed: the challenge names no error of the Bearer token.
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="wallet-vault"');
    const forged = await api.raw('POST', `${base}/sign`, { raw, headers: { ...headers, 'x-vault-auth-signature': 'x.y.z' } });
    expectErrorEnvelope(forged, 401, /malformed/);
    expect(forged.headers.get('www-authenticate')).toBe('Bearer realm="wallet-vault"');
  });

  it('with a valid header over malformed JSON, the body is then refused with 400', async () => {
    const { createAuthSignature } = await import('../../src/domain/auth-signature.js');
    const raw = '{"chain":';
    const r = await api.raw('POST', `${base}/sign`, { raw, headers: { 'x-vault-auth-signature': createAuthSignature(Buffer.from(raw), SECRET, new Date()) } });
    expectErrorEnvelope(r, 400, /not valid JSON/);
  });
});
