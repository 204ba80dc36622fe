import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS } from '../../src/application/shared/idempotency.js';
import { client } from '../support/http-client.js';
import { describeEachBackend, type Target } from '../support/backends.js';

describeEachBackend('Idempotency-Key on Create Wallet', (backend) => {
  let s: Target;
  let api: ReturnType<typeof client>;
  let base: string;

  const keyFiles = async () => (await readdir(s.keysDir)).filter((f) => f.endsWith('.key')).length;
  const walletCount = async () => (await api.get(`${base}/wallets?count=0`)).body.data.count as number;
  const create = (key: string | undefined, body: unknown) =>
    api.post(`${base}/wallets`, body, key === undefined ? {} : { 'idempotency-key': key });

  beforeAll(async () => {
    s = await backend.start();
    ({ api, base } = await s.vaultWithKey('idem'));
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a retry with the same key and body returns the first answer and creates nothing', async () => {
    const before = await walletCount();
    const first = await create('order-1', { name: 'treasury' });
    expect(first.status).toBe(200);
    const retry = await create('order-1', { name: 'treasury' });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    // The same JSON value in another key order and spacing is the same body.
    const respaced = await api.raw('POST', `${base}/wallets`, { raw: '{ "name" : "treasury" }', headers: { 'idempotency-key': 'order-1' } });
    expect(respaced.body).toEqual(first.body);
    expect(await walletCount()).toBe(before + 1);
    // The first answer is kept as it was, even after the wallet changed.
    await api.put(`${base}/wallets/${first.body.data.address}`, { name: 'renamed' });
    expect((await create('order-1', { name: 'treasury' })).body).toEqual(first.body);
  });

  it('the same key with another body is 409; without a key every create makes a wallet', async () => {
    await create('order-2', { name: 'a' });
    const other = await create('order-2', { name: 'b' });
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ success: false, error: expect.stringMatching(/^Idempotency-Key: already used with a different request body/), code: 'IDEMPOTENCY_CONFLICT' });
    const before = await walletCount();
    const [a, b] = [await create(undefined, { name: 'plain' }), await create(undefined, { name: 'plain' })];
    expect(a.body.data.address).not.toBe(b.body.data.address);
    expect(await walletCount()).toBe(before + 2);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
  ])('a key that is %s is 400 naming the header, and creates nothing', async (_label, key) => {
    const before = await walletCount();
    const r = await create(key, { name: 'x' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: expect.stringMatching(/^Idempotency-Key: must be 1 to 255 characters/), code: 'INVALID_ARGUMENT' });
    expect(await walletCount()).toBe(before);
  });

  it('accepts a 255-character key; a bad body with a key is still 400 and is not remembered', async () => {
    const long = 'k'.repeat(255);
    expect((await create(long, { name: 42 })).status).toBe(400);
    expect((await create(long, { name: 'long' })).status).toBe(200);
  });

  it('keys are per vault', async () => {
    const { vaultId: otherVault, api: otherApi } = await s.vaultWithKey('other');
    const mine = await create('shared', { name: 'x' });
    const theirs = await otherApi.post(`/api/v1/vaults/${otherVault}/wallets`, { name: 'x' }, { 'idempotency-key': 'shared' });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.vault).toBe(otherVault);
    expect(theirs.body.data.address).not.toBe(mine.body.data.address);
  });

  it('concurrent requests with one key make one wallet, give identical answers, and leave one key file', async () => {
    const wallets = await walletCount();
    const files = await keyFiles();
    const answers = await Promise.all(Array.from({ length: 8 }, () => create('race', { name: 'raced' })));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body).toEqual(answers[0]!.body);
    }
    expect(await walletCount()).toBe(wallets + 1);
    expect(await keyFiles()).toBe(files + 1);
  });

  it('is remembered for 24 hours exactly: from that instant the key makes a new wallet', async () => {
    s.clock.freeze();
    const first = await create('daily', { name: 'day' });
    s.clock.advance(IDEMPOTENCY_TTL_MS - 1);
    expect((await create('daily', { name: 'day' })).body).toEqual(first.body);
    expect((await create('daily', { name: 'other' })).status).toBe(409);
    s.clock.advance(1);
    const next = await create('daily', { name: 'day' });
    expect(next.status).toBe(200);
    expect(next.body.data.id).not.toBe(first.body.data.id);
    // The new answer is now the one remembered.
    expect((await create('daily', { name: 'day' })).body).toEqual(next.body);
  });
});
