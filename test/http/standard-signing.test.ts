import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keccak256, parseTransaction, recoverMessageAddress, recoverTransactionAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { createAuthSignature } from '../../src/domain/auth-signature.js';
import { AUDIT_LIST_MAX } from '../../src/application/audit/list-audit-records.use-case.js';
import type { SignPolicyInput } from '../../src/domain/sign-policy.js';
import { describeEachBackend, type Target } from '../support/backends.js';
import { client } from '../support/http-client.js';
import { asJson, permit } from '../support/typed-data-fixtures.js';

/**
 * sign-message, sign-typed-data and sign-transaction over HTTP, on every backend: what a wallet signs is
 * recovered to it by viem (independently of the ethers encoder under test); what the policy does not allow
 * is 403 naming the rule and a `sign.denied` record; a bad body is 400 naming the field.
 */
const CHAIN_ID = 31337;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const OTHER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const CAP = 1000n;
const ALLOW: SignPolicyInput = {
  messages: true,
  txChainIds: [String(CHAIN_ID)],
  txTo: [RECIPIENT],
  txMaxValue: CAP.toString(),
  typedDataContracts: [`${CHAIN_ID}:${TOKEN}`],
};

const eip1559 = (extra: Record<string, unknown> = {}) => ({
  type: 'eip1559',
  chainId: CHAIN_ID,
  nonce: 0,
  to: RECIPIENT,
  value: '1000',
  gas: '21000',
  maxFeePerGas: '0x77359400',
  maxPriorityFeePerGas: '1000000000',
  ...extra,
});
const legacy = { type: 'legacy', chainId: `0x${CHAIN_ID.toString(16)}`, nonce: '0x5', to: RECIPIENT.toLowerCase(), value: '1', gas: 21000, gasPrice: '2000000000' };
const typedData = (verifyingContract = TOKEN, owner = OTHER) =>
  asJson(permit({ name: 'Token', version: '1', chainId: CHAIN_ID, verifyingContract: verifyingContract as Hex }, { owner, spender: RECIPIENT, value: 5n, nonce: 0n, deadline: 2n ** 40n }));

describeEachBackend('standard signing over HTTP', (backend) => {
  let t: Target;
  let api: ReturnType<typeof client>;
  let base: string;
  let vaultId: string;
  let wallet: string;
  const at = (operation: string, address = wallet) => `${base}/wallets/${address}/${operation}`;
  const records = async (action: string) => (await t.vault.listAuditRecords.execute({ vaultId, limit: AUDIT_LIST_MAX })).filter((r) => r.action === action);
  const lastDenied = async () => (await records('sign.denied')).at(-1)!;

  beforeAll(async () => {
    t = await backend.start();
    ({ api, base, vaultId } = await t.vaultWithKey('standard'));
    wallet = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('signs nothing without a policy: each payload is 403 naming the rule, and recorded as sign.denied', async () => {
    const none = 'policy: this vault has no policy document, and without one only Sign calls are signed (wallet-vault policies apply)';
    const cases: Array<[string, unknown, string, string]> = [
      ['sign-message', { message: 'hello' }, 'message', none],
      ['sign-typed-data', typedData(), 'typed-data', none],
      ['sign-transaction', eip1559(), 'transaction', none],
    ];
    for (const [operation, body, payload, rule] of cases) {
      const r = await api.post(at(operation), body);
      expect(r.status, operation).toBe(403);
      expect(r.body).toEqual({ success: false, error: rule, code: 'POLICY_DENIED' });
      const denied = await lastDenied();
      expect(denied.subject).toBe(wallet);
      expect(denied.details).toMatchObject({ payload, rule: r.body.error, wallet });
    }
  });

  describe('under a policy that allows them', () => {
    beforeAll(async () => {
      await t.vault.managePolicies.set(vaultId, ALLOW);
    });

    it('signs a text message and raw bytes; viem recovers the wallet; each is recorded with its digest', async () => {
      const text = await api.post(at('sign-message', wallet.toLowerCase()), { message: 'Sign in to example.org' });
      expect(text.status).toBe(200);
      expect(text.body.data.signature).toMatch(/^0x[0-9a-f]{130}$/);
      expect(await recoverMessageAddress({ message: 'Sign in to example.org', signature: text.body.data.signature })).toBe(wallet);
      const raw = await api.post(at('sign-message'), { message: { raw: '0xdeadbeef' } });
      expect(raw.status).toBe(200);
      expect(await recoverMessageAddress({ message: { raw: '0xdeadbeef' }, signature: raw.body.data.signature })).toBe(wallet);
      expect((await records('sign.message')).at(-1)!.details).toMatchObject({ wallet, digest: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    });

    it('signs typed data of an allowed domain; viem recovers the wallet', async () => {
      const body = typedData(TOKEN, wallet);
      const r = await api.post(at('sign-typed-data'), body);
      expect(r.status).toBe(200);
      expect(await recoverTypedDataAddress({ ...body, signature: r.body.data.signature })).toBe(wallet);
      expect((await records('sign.typed-data')).at(-1)!.details).toMatchObject({ wallet, chainId: String(CHAIN_ID), verifyingContract: TOKEN, primaryType: 'Permit' });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['eip1559', eip1559(), 'eip1559'],
      ['legacy (hex quantities)', legacy, 'legacy'],
      ['eip2930', { type: 'eip2930', chainId: String(CHAIN_ID), nonce: 1, to: RECIPIENT, gas: 30000, gasPrice: '1', accessList: [{ address: TOKEN, storageKeys: [`0x${'00'.repeat(32)}`] }] }, 'eip2930'],
    ])('signs an %s transaction: serialised as sent, its hash, the wallet recovered', async (_label, tx, type) => {
      const r = await api.post(at('sign-transaction'), tx);
      expect(r.status).toBe(200);
      const { serialized, hash } = r.body.data as { serialized: Hex; hash: Hex };
      expect(hash).toBe(keccak256(serialized));
      const parsed = parseTransaction(serialized);
      expect(parsed.type).toBe(type);
      expect(parsed.chainId).toBe(CHAIN_ID);
      expect(parsed.to?.toLowerCase()).toBe(String(tx.to).toLowerCase());
      expect(parsed.value ?? 0n).toBe(BigInt((tx.value as string | undefined) ?? 0));
      expect(await recoverTransactionAddress({ serializedTransaction: serialized as never })).toBe(wallet);
      expect((await records('sign.transaction')).at(-1)!.details).toMatchObject({ wallet, hash, type, chainId: String(CHAIN_ID) });
    });

    const noTx = "policy: no rule of this vault's policy allows this transaction";
    it.each<[string, string, unknown, string]>([
      ['a recipient not allowed', 'sign-transaction', eip1559({ to: OTHER }), `${noTx} (rule transactions: recipient ${OTHER} is not in its contracts)`],
      ['a value over the cap', 'sign-transaction', eip1559({ value: (CAP + 1n).toString() }), `${noTx} (rule transactions: value 1001 wei is over its maxValue 1000)`],
      // Chain id 1 is known to the deployment by its name.
      ['a chain id not allowed', 'sign-transaction', eip1559({ chainId: 1 }), `${noTx} (rule transactions: chain ethereum is not in its chains)`],
      // No rule allows a creation: the first transaction rule names a recipient, which a creation has not.
      ['a contract creation', 'sign-transaction', eip1559({ to: null, data: '0x6000' }), `${noTx} (rule transactions: the request has no recipient)`],
      ['a foreign typed-data domain', 'sign-typed-data', typedData(OTHER), `policy: no rule of this vault's policy allows this typed-data (rule typed-data-1: verifying contract ${OTHER} is not in its contracts)`],
    ])('refuses %s: 403 naming the rule, recorded as sign.denied', async (_label, operation, body, rule) => {
      const before = (await records('sign.denied')).length;
      const r = await api.post(at(operation), body);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ success: false, error: rule, code: 'POLICY_DENIED' });
      const denied = await records('sign.denied');
      expect(denied).toHaveLength(before + 1);
      expect(denied.at(-1)!.details).toMatchObject({ rule: r.body.error, wallet });
    });

    it.each<[string, string, string, RegExp]>([
      ['a non-object body', 'sign-message', '[1]', /^body: must be a JSON object$/],
      ['no message', 'sign-message', '{}', /^message: is required/],
      ['a message of the wrong type', 'sign-message', '{"message": 5}', /^message: must be a string or \{"raw": "0x…"\}$/],
      ['odd raw hex', 'sign-message', '{"message": {"raw": "0xabc"}}', /^message\.raw: /],
      ['an extra field', 'sign-message', '{"message": "x", "to": "y"}', /^to: is not a field of a sign-message body/],
      ['a null body', 'sign-typed-data', 'null', /^body: must be a JSON object$/],
      ['no primaryType', 'sign-typed-data', JSON.stringify({ ...typedData(), primaryType: undefined }), /^primaryType: /],
      ['a bad domain contract', 'sign-typed-data', JSON.stringify({ ...typedData(), domain: { chainId: 1, verifyingContract: '0x12' } }), /^domain\.verifyingContract: /],
      ['no chainId', 'sign-transaction', JSON.stringify(eip1559({ chainId: undefined })), /^chainId: is required$/],
      ['a negative value', 'sign-transaction', JSON.stringify(eip1559({ value: '-1' })), /^value: /],
      ['a blob transaction', 'sign-transaction', JSON.stringify(eip1559({ type: 'eip4844' })), /^type: /],
      ['an unknown field', 'sign-transaction', JSON.stringify(eip1559({ blobs: [] })), /^blobs: is not a field/],
      ['a from that is not the wallet', 'sign-transaction', JSON.stringify(eip1559({ from: OTHER })), /^from: /],
    ])('%s is 400 naming the field', async (_label, operation, raw, message) => {
      const r = await api.raw('POST', at(operation), { raw });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ success: false, error: expect.stringMatching(message), code: 'INVALID_ARGUMENT' });
    });

    it('keeps the rules of every route: 401 without a key, 413 over the body limit, 400 for a form body', async () => {
      expect((await client(t.url).post(at('sign-message'), { message: 'x' })).status).toBe(401);
      const big = await api.post(at('sign-message'), { message: 'x'.repeat(1024 * 1024) });
      expect(big.status).toBe(413);
      expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
      const form = await api.raw('POST', at('sign-message'), { raw: 'message=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(form.status).toBe(400);
      expect((await api.raw('POST', at('sign-message'), { raw: '{"message":' })).body.code).toBe('MALFORMED_JSON');
    });

    it('refuses X-Vault-Auth-Signature when the server has no secret, as Sign does', async () => {
      const raw = JSON.stringify({ message: 'x' });
      const header = createAuthSignature(Buffer.from(raw), 'a-secret-of-at-least-32-characters!!', new Date());
      const r = await api.raw('POST', at('sign-message'), { raw, headers: { 'x-vault-auth-signature': header } });
      expect(r.status).toBe(401);
      expect(r.body.error).toMatch(/must not be sent/);
    });

    // Last: it moves the target's clock a month on.
    it('an unknown wallet, a wallet of another vault and a wallet past its expiry are 404', async () => {
      const other = await t.vaultWithKey('elsewhere');
      const foreign = (await other.api.post(`${other.base}/wallets`, { name: 'theirs' })).body.data.address;
      const doomed = (await api.post(`${base}/wallets`, { name: 'doomed' })).body.data.address;
      for (const address of [OTHER, foreign]) {
        const r = await api.post(at('sign-message', address), { message: 'x' });
        expect(r.status, address).toBe(404);
        expect(r.body.code).toBe('WALLET_NOT_FOUND');
      }
      const expires = Date.parse((await api.delete(`${base}/wallets/${doomed}`)).body.data.expires);
      expect((await api.post(at('sign-message', doomed), { message: 'x' })).status).toBe(200);
      t.clock.freeze();
      t.clock.advance(expires - t.clock.now().getTime());
      for (const [operation, body] of [['sign-message', { message: 'x' }], ['sign-typed-data', typedData()], ['sign-transaction', eip1559()]] as const) {
        const r = await api.post(at(operation, doomed), body);
        expect(r.status, operation).toBe(404);
        expect(r.body.code).toBe('WALLET_NOT_FOUND');
      }
    });
  });
});

describeEachBackend('standard signing with an auth signature secret', (backend) => {
  const SECRET = 'test-secret-that-is-definitely-longer-than-32';
  let t: Target;
  let api: ReturnType<typeof client>;
  let base: string;
  let wallet: string;

  beforeAll(async () => {
    t = await backend.start({ authSecret: SECRET });
    let vaultId: string;
    ({ api, base, vaultId } = await t.vaultWithKey('signed'));
    wallet = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address;
    await t.vault.managePolicies.set(vaultId, ALLOW);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('needs X-Vault-Auth-Signature over the exact bytes, as Sign does: 401 without it, refused when replayed', async () => {
    for (const [operation, body] of [['sign-message', { message: 'x' }], ['sign-typed-data', typedData()], ['sign-transaction', eip1559()]] as const) {
      const url = `${base}/wallets/${wallet}/${operation}`;
      const raw = JSON.stringify(body, null, 1);
      const missing = await api.raw('POST', url, { raw });
      expect(missing.status, operation).toBe(401);
      expect(missing.body.error).toBe('X-Vault-Auth-Signature header is required');
      const header = createAuthSignature(Buffer.from(raw), SECRET, new Date());
      expect((await api.raw('POST', url, { raw, headers: { 'x-vault-auth-signature': header } })).status, operation).toBe(200);
      const replay = await api.raw('POST', url, { raw, headers: { 'x-vault-auth-signature': header } });
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatch(/replay/);
      // The header covers the bytes: the same JSON written otherwise is not what was signed.
      const other = createAuthSignature(Buffer.from(raw), SECRET, new Date());
      expect((await api.raw('POST', url, { raw: JSON.stringify(body), headers: { 'x-vault-auth-signature': other } })).status).toBe(401);
    }
  });
});
