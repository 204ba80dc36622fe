import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPIRY_TTL_MS } from '../../src/domain/wallet.js';
import { client } from '../support/http-client.js';
import { describeEachBackend, type Target } from '../support/backends.js';

describeEachBackend('expiry through HTTP, with a clock the test moves', (backend) => {
  let s: Target;
  let api: ReturnType<typeof client>;
  let base: string;

  beforeAll(async () => {
    s = await backend.start();
    ({ api, base } = await s.vaultWithKey('expiry'));
  });
  afterAll(async () => {
    await s?.close();
  });

  it('is gone for every endpoint at the expiry instant, then purged from the key store', async () => {
    const keep = (await api.post(`${base}/wallets`, { name: 'keep' })).body.data;
    const doomed = (await api.post(`${base}/wallets`, { name: 'doomed' })).body.data;
    const keyFile = path.join(s.keysDir, `${doomed.address.toLowerCase()}.key`);
    expect(existsSync(keyFile)).toBe(true);

    const expires = Date.parse((await api.delete(`${base}/wallets/${doomed.address}`)).body.data.expires);
    s.clock.freeze();
    s.clock.advance(expires - s.clock.now().getTime() - 1);
    expect((await api.get(`${base}/wallets/${doomed.address}`)).status).toBe(200);
    expect((await api.get(`${base}/wallets`)).body.data.count).toBe(2);

    s.clock.advance(1);
    for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE'], ['POST']] as const) {
      const r = await api.raw(method, `${base}/wallets/${doomed.address}`, body ? { body } : {});
      expect(r.status, method).toBe(404);
    }
    const list = (await api.get(`${base}/wallets`)).body.data;
    expect(list.count).toBe(1);
    expect(list.page.map((w: { address: string }) => w.address)).toEqual([keep.address]);
    expect((await api.get(`${base}/status`)).body.wallets).toBe(1);

    // Invisible already; the key material goes with the next purge run.
    expect(existsSync(keyFile)).toBe(true);
    await s.purgeNow();
    expect(existsSync(keyFile)).toBe(false);
    expect(existsSync(path.join(s.keysDir, `${keep.address.toLowerCase()}.key`))).toBe(true);
    expect((await api.get(`${base}/wallets/${keep.address}`)).status).toBe(200);
  });

  it('unexpire before the instant cancels the deletion', async () => {
    const w = (await api.post(`${base}/wallets`, { name: 'saved' })).body.data;
    await api.delete(`${base}/wallets/${w.address}`);
    s.clock.advance(EXPIRY_TTL_MS - 1000);
    expect((await api.post(`${base}/wallets/${w.address}`)).status).toBe(200);
    s.clock.advance(2000);
    await s.purgeNow();
    const r = await api.get(`${base}/wallets/${w.address}`);
    expect(r.status).toBe(200);
    expect(r.body.data.expires).toBeUndefined();
  });
});
