import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthSignature } from '../../src/domain/auth-signature.js';
import { client } from '../support/http-client.js';
import { describeEachBackend, type Backend, type TargetOptions } from '../support/backends.js';

const SECRET = 'test-secret-that-is-definitely-longer-than-32';
const SIG = { name: 'sig', type: 'tuple', components: ['nonce', 'r', 's'].map((n) => ({ name: n, type: 'bytes32' })).concat({ name: 'v', type: 'uint8' }) };
const MINT = { type: 'function', name: 'mint', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }, SIG] };
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

async function setup(backend: Backend, options: TargetOptions = {}) {
  const target = await backend.start(options);
  const { api, base } = await target.vaultWithKey('sign');
  const signer = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address as string;
  const body = (extra: Record<string, unknown> = {}) => ({
    chain: 'local',
    contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
    sender: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
    uniq: `0x${'ab'.repeat(32)}`,
    signer,
    abi: MINT,
    args: [TO, '1000'],
    ...extra,
  });
  return { target, api, base, signer, body };
}

describeEachBackend('Sign over HTTP', (backend) => {
  describe('bad input is a 4xx naming the problem, never a 500', () => {
    let t: Awaited<ReturnType<typeof setup>>;
    beforeAll(async () => {
      t = await setup(backend);
    });
    afterAll(async () => {
      await t?.target.close();
    });

    it.each([
      ['no chain', { chain: undefined }, /^chain: is required \(one of /],
      // A field Sign does not have would bind nothing: a client that believes it does must hear so.
      ['an unknown field', { chainId: 5 }, /^chainId: is not a field of Sign \(chain, contract, sender, uniq, signer, abi, args, simulate\)/],
      ['an unknown chain', { chain: 'solana' }, /^chain: must be one of/],
      ['a bad contract', { contract: '0x12' }, /^contract: "0x12" is not a 0x-prefixed 20-byte hex address/],
      ['no contract', { contract: undefined }, /^contract: is required$/],
      ['no sender', { sender: undefined }, /^sender: is required$/],
      ['a bad sender checksum', { sender: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293Bc' }, /^sender: .*checksum/],
      ['no abi', { abi: undefined }, /^abi: is required/],
      ['the whole ABI array', { abi: [MINT] }, /not the whole ABI array/],
      ['an event item', { abi: { ...MINT, type: 'event' } }, /^abi.type/],
      ['no signature parameter', { abi: { ...MINT, inputs: MINT.inputs.slice(0, 2) } }, /no signature parameter/],
      ['no args', { args: undefined }, /^args: is required/],
      ['too few args', { args: [TO] }, /^args: expected 2 arguments/],
      ['an out-of-range value', { args: [TO, '-1'] }, /^args\[1\] \(uint256\): "-1" is out of range/],
      ['a non-integer', { args: [TO, 'abc'] }, /^args\[1\] \(uint256\): "abc" is not an integer/],
      ['a bad uniq', { uniq: '0x1234' }, /^uniq: /],
      ['no uniq on local', { uniq: undefined }, /^uniq: is required for chain local/],
      ['no signer on local', { signer: undefined }, /^signer: is required for chain local/],
    ])('%s', async (_label, extra, message) => {
      const r = await t.api.post(`${t.base}/sign`, t.body(extra));
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ success: false, error: expect.stringMatching(message), code: 'INVALID_ARGUMENT' });
    });

    it('the fast path keeps the rules of every route: 413, content type, singular alias, request id, auth first', async () => {
      const big = await t.api.post(`${t.base}/sign`, t.body({ pad: 'x'.repeat(1024 * 1024) }));
      expect(big.status).toBe(413);
      expect(big.body.error).toMatch(/larger than the limit/);
      const form = await t.api.raw('POST', `${t.base}/sign`, { raw: 'a=1', headers: { 'content-type': 'text/plain' } });
      expect(form.status).toBe(400);
      expect(form.body.error).toMatch(/Content-Type/);
      const alias = await t.api.post(t.base.replace('/vaults/', '/vault/') + '/sign', t.body());
      expect(alias.status).toBe(200);
      expect(alias.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(alias.headers.get('content-type')).toMatch(/^application\/json/);
      const noKey = await client(t.target.url).post(`${t.base}/sign`, t.body());
      expect(noKey.status).toBe(401);
      const otherVault = await t.api.post('/api/v1/vaults/other/sign', t.body());
      expect(otherVault.status).toBe(401);
      // The vault id is percent-decoded, as Express decodes it (only a segment with a `%` needs decoding).
      const id = t.base.split('/').pop()!;
      const encoded = `%${id.charCodeAt(0).toString(16)}${id.slice(1)}`;
      expect((await t.api.post(`/api/v1/vaults/${encoded}/sign`, t.body())).status).toBe(200);
    });

    it('a signer that is not a wallet of this vault is 404', async () => {
      const r = await t.api.post(`${t.base}/sign`, t.body({ signer: TO }));
      expect(r.status).toBe(404);
    });

    it('non-object bodies and odd JSON are 400, and the server keeps signing', async () => {
      for (const raw of ['[]', '"x"', '42', 'null', '{"chain":', '{"abi":{"__proto__":{"x":1}}}']) {
        const r = await t.api.raw('POST', `${t.base}/sign`, { raw });
        expect(r.status, raw).toBe(400);
      }
      expect((await t.api.post(`${t.base}/sign`, t.body())).status).toBe(200);
    });

    it('refuses X-Vault-Auth-Signature when no secret is configured', async () => {
      const raw = JSON.stringify(t.body());
      const r = await t.api.raw('POST', `${t.base}/sign`, { raw, headers: { 'x-vault-auth-signature': createAuthSignature(Buffer.from(raw), SECRET, new Date()) } });
      expect(r.status).toBe(401);
      expect(r.body.error).toMatch(/must not be sent/);
    });
  });

  // A target of its own: the secret is the vault's (VAULT_AUTH_SECRET_KEY, createVault's authSecret).
  describe('with an auth signature secret', () => {
    let t: Awaited<ReturnType<typeof setup>>;
    beforeAll(async () => {
      t = await setup(backend, { authSecret: SECRET });
    });
    afterAll(async () => {
      await t?.target.close();
    });

    const send = (raw: string, header?: string) =>
      t.api.raw('POST', `${t.base}/sign`, { raw, headers: header === undefined ? {} : { 'x-vault-auth-signature': header } });

    it('signs with a valid header over the exact body bytes, and refuses its replay', async () => {
      const raw = JSON.stringify(t.body(), null, 2); // whitespace matters: the hash covers the bytes as sent
      const header = createAuthSignature(Buffer.from(raw), SECRET, new Date());
      expect((await send(raw, header)).status).toBe(200);
      const replay = await send(raw, header);
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatch(/already used/);
    });

    it('refuses a missing, forged, stale or mismatched header with 401', async () => {
      const raw = JSON.stringify(t.body());
      expect((await send(raw)).body.error).toMatch(/required/);
      expect((await send(raw, createAuthSignature(Buffer.from(raw), `${SECRET}!`, new Date()))).status).toBe(401);
      expect((await send(raw, createAuthSignature(Buffer.from(raw), SECRET, new Date(Date.now() - 180_000)))).body.error).toMatch(/stale/);
      expect((await send(raw, createAuthSignature(Buffer.from(`${raw} `), SECRET, new Date()))).body.error).toMatch(/does not match/);
      expect((await send(raw, 'not-a-signature')).status).toBe(401);
    });

    it('checks the API key before the auth signature', async () => {
      const raw = JSON.stringify(t.body());
      const r = await client(t.target.url, 'wv_0000000000000000_' + 'A'.repeat(43)).raw('POST', `${t.base}/sign`, {
        raw,
        headers: { 'x-vault-auth-signature': createAuthSignature(Buffer.from(raw), SECRET, new Date()) },
      });
      expect(r.status).toBe(401);
      expect(r.body.error).toMatch(/API key/);
    });
  });
});
