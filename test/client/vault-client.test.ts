import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { VaultClient, VaultError, type VaultErrorCode } from '../../client/index.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const SECRET = 'client-test-secret-0123456789abcdef';

/** A fetch that records what each attempt sent and lets a test answer some attempts itself. */
type Answer = Response | Error | undefined;
function recordingFetch(answer: (attempt: number, url: string, init: RequestInit) => Answer | Promise<Answer> = () => undefined) {
  const sent: { url: string; headers: Record<string, string>; body: string | undefined }[] = [];
  const fn = vi.fn(async (url: string | URL | Request, init: RequestInit = {}) => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    sent.push({ url: String(url), headers, body: init.body === undefined ? undefined : new TextDecoder().decode(init.body as Uint8Array) });
    const own = await answer(sent.length, String(url), init);
    if (own instanceof Error) throw own;
    return own ?? globalThis.fetch(url, init);
  });
  return { fetch: fn as unknown as typeof fetch, sent };
}

const unavailable = () =>
  new Response(JSON.stringify({ success: false, error: 'key store local did not answer', code: 'KEYSTORE_UNAVAILABLE' }), { status: 503, headers: { 'content-type': 'application/json', 'x-request-id': 'from-the-server' } });

for (const secured of [false, true]) {
  describe(`VaultClient against the real server (${secured ? 'with' : 'without'} VAULT_AUTH_SECRET_KEY)`, () => {
    let s: TestServer;
    let vaultId: string;
    let apiKey: string;
    let vault: VaultClient;
    const options = () => ({ baseUrl: s.url, vaultId, apiKey, ...(secured ? { authSecret: SECRET } : {}), retryDelayMs: 0 });

    beforeAll(async () => {
      s = await startTestServer({ env: secured ? { VAULT_AUTH_SECRET_KEY: SECRET } : {} });
      vaultId = (await s.createVault({ name: 'client' })).id;
      apiKey = (await s.createApiKey(vaultId)).apiKey;
      vault = new VaultClient(options());
    });
    afterAll(() => s?.stop());

    it('runs every operation with typed results', async () => {
      const created = await vault.createWallet('first');
      expect(created).toMatchObject({ name: 'first', vault: vaultId, address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
      expect(await vault.getWallet(created.address.toLowerCase())).toEqual(created);
      const renamed = await vault.renameWallet(created.address, 'renamed');
      expect(renamed.name).toBe('renamed');
      const expiring = await vault.expireWallet(created.address);
      expect(expiring.expires).toEqual(expect.any(String));
      expect((await vault.unexpireWallet(created.address)).expires).toBeUndefined();

      const signed = await vault.sign(localSignBody(created.address) as Parameters<VaultClient['sign']>[0]);
      expect(signed.submissionHash).toMatch(/^0x[0-9a-f]{64}$/);
      // Integers as the ABI types them (uint256: bigint), as viem's writeContract takes them; the rest as sent.
      expect(signed.args).toEqual(['0x70997970c51812dc3a010c7d01b50e0d17dc79c8', 1000n, { nonce: expect.any(String), r: expect.any(String), s: expect.any(String), v: expect.any(Number) }]);
      const transactionHash = `0x${'ab'.repeat(32)}`;
      expect(await vault.submit(signed.submissionHash, transactionHash)).toMatchObject({ submissionHash: signed.submissionHash, wallet: created.address, transactionHash });
      expect((await vault.getSubmission(signed.submissionHash)).transactionHash).toBe(transactionHash);

      expect(await vault.status()).toMatchObject({ online: true, wallets: 1, vaultKeys: 1, version: 'test' });
      expect(await vault.listWallets()).toEqual({ count: 1, page: [expect.objectContaining({ address: created.address })] });
    });

    it('iterates over every wallet, page by page', async () => {
      const names = ['a', 'b', 'c', 'd', 'e'];
      for (const name of names) await vault.createWallet(name);
      const { fetch, sent } = recordingFetch();
      const seen: string[] = [];
      for await (const w of new VaultClient({ ...options(), fetch }).wallets({ pageSize: 2 })) seen.push(w.name);
      expect(seen.slice(-5)).toEqual(names);
      expect(seen).toHaveLength((await vault.listWallets({ count: 0 })).count);
      expect(sent.map((r) => new URL(r.url).search)).toEqual(['?offset=0&count=2', '?offset=2&count=2', '?offset=4&count=2']);
    });

    it('throws VaultError with the status, the code, the message and the request id', async () => {
      const error = await vault.getWallet(`0x${'12'.repeat(20)}`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VaultError);
      expect(error).toMatchObject({
        status: 404,
        code: 'WALLET_NOT_FOUND',
        reason: 'http',
        message: expect.stringMatching(/not found|not in this vault/),
        requestId: expect.stringMatching(/^vc-/),
      });
      const refused = await new VaultClient({ ...options(), apiKey: 'wv_not-a-key' }).status().catch((e: unknown) => e);
      expect(refused).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
      const bad = await vault.submit('nope', 'nope').catch((e: unknown) => e);
      expect(bad).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT', message: 'submissionHash: must be 0x-prefixed 32-byte hex' });
      const missing = await vault.getSubmission(`0x${'34'.repeat(32)}`).catch((e: unknown) => e);
      // Typed: a program branches on the code, and the compiler knows every value it can take.
      const code: VaultErrorCode | undefined = (missing as VaultError).code;
      expect(code).toBe('SUBMISSION_NOT_FOUND');
    });

    it('retries a sign answered 503, with a new X-Vault-Auth-Signature (and request id) for each attempt', async () => {
      const signer = (await vault.createWallet('retry signer')).address;
      const { fetch, sent } = recordingFetch((n) => (n === 1 ? unavailable() : undefined));
      const result = await new VaultClient({ ...options(), fetch }).sign(localSignBody(signer) as Parameters<VaultClient['sign']>[0]);
      expect(result.submissionHash).toMatch(/^0x/);
      expect(sent).toHaveLength(2);
      expect(sent[0]!.body).toBe(sent[1]!.body);
      expect(sent[0]!.headers['x-request-id']).not.toBe(sent[1]!.headers['x-request-id']);
      if (secured) expect(sent[0]!.headers['x-vault-auth-signature']).not.toBe(sent[1]!.headers['x-vault-auth-signature']);
      else expect(sent[0]!.headers['x-vault-auth-signature']).toBeUndefined();
    });

    it('never retries a sign whose answer was lost (it may have carried a valid signature)', async () => {
      const { fetch, sent } = recordingFetch(() => new TypeError('fetch failed'));
      const error = await new VaultClient({ ...options(), fetch }).sign(localSignBody(`0x${'12'.repeat(20)}`) as Parameters<VaultClient['sign']>[0]).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 0, reason: 'network' });
      expect(sent).toHaveLength(1);
    });

    it('retries a create only with an Idempotency-Key, and gets the one wallet it made', async () => {
      // The first attempt reaches the server, which creates the wallet; its answer is lost on the way back.
      const { fetch, sent } = recordingFetch(async (n, url, init) => {
        if (n > 1) return undefined;
        expect((await globalThis.fetch(url, init)).status).toBe(200);
        return new TypeError('fetch failed: the answer was lost');
      });
      const before = (await vault.listWallets({ count: 0 })).count;
      const key = `create-${secured}`;
      const wallet = await new VaultClient({ ...options(), fetch }).createWallet('idempotent', { idempotencyKey: key });
      expect(sent).toHaveLength(2);
      expect(sent.every((r) => r.headers['idempotency-key'] === key)).toBe(true);
      expect((await vault.listWallets({ count: 0 })).count).toBe(before + 1);
      expect(await vault.getWallet(wallet.address)).toEqual(wallet);

      const once = recordingFetch(() => new TypeError('fetch failed'));
      await expect(new VaultClient({ ...options(), fetch: once.fetch }).createWallet('no key')).rejects.toMatchObject({ status: 0 });
      expect(once.sent).toHaveLength(1);
    });
  });
}

describe('VaultClient refuses bad use before any request', () => {
  const fetch = vi.fn();
  const base = { baseUrl: 'http://127.0.0.1:9', vaultId: 'v', apiKey: 'k', fetch: fetch as unknown as typeof globalThis.fetch };

  it('names what is wrong', () => {
    expect(() => new VaultClient({ ...base, baseUrl: undefined as unknown as string })).toThrow('VaultClient: baseUrl is required');
    expect(() => new VaultClient({ ...base, baseUrl: 'vault.local' })).toThrow(/not an absolute URL/);
    expect(() => new VaultClient({ ...base, authSecret: 'short' })).toThrow('VaultClient: authSecret must be at least 32 characters');
    const client = new VaultClient(base);
    expect(() => client.createWallet(42 as unknown as string)).toThrow('wallet name must be a string (got number)');
    expect(() => client.renameWallet('0xabc', null as unknown as string)).toThrow('wallet name must be a string (got null)');
    expect(() => client.listWallets({ count: -1 })).toThrow(/count must be a non-negative integer/);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('gives up after timeoutMs with a VaultError (status 0, reason timeout)', async () => {
    // A server that never answers: the only way out is the client's own AbortSignal.
    const hanging = (_url: unknown, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
    const client = new VaultClient({ ...base, timeoutMs: 50, fetch: hanging as typeof globalThis.fetch });
    await expect(client.status()).rejects.toMatchObject({ name: 'VaultError', status: 0, reason: 'timeout', message: 'GET /status: no answer within 50 ms' });
  });
});
