import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { recoverWithStore } from '../support/recover-with-store.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

describe('restart on the same data directory', () => {
  it('serves the same wallets, and their keys still sign for their addresses', async () => {
    const first = await startTestServer();
    const vaultId = (await first.createVault({ name: 'persist' })).id;
    const { apiKey } = await first.createApiKey(vaultId);
    const api = client(first.url, apiKey);
    const wallets = [];
    for (let i = 0; i < 5; i++) wallets.push((await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: `w${i}` })).body.data);
    await api.delete(`/api/v1/vaults/${vaultId}/wallets/${wallets[0].address}`);
    const before = (await api.get(`/api/v1/vaults/${vaultId}/wallets`)).body.data;
    await first.stop({ keepData: true });

    const second = await startTestServer({ dataDir: first.dataDir });
    try {
      const after = (await client(second.url, apiKey).get(`/api/v1/vaults/${vaultId}/wallets`)).body.data;
      expect(after).toEqual(before);
      for (const w of wallets) expect(await recoverWithStore(second, vaultId, w.address)).toBe(w.address);
    } finally {
      await second.stop();
      await rm(first.dataDir, { recursive: true, force: true });
    }
  });
});
