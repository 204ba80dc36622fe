import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// By package name, as an application imports it.
import { createVault, type Vault } from 'wallet-vault';
import { vaultRouter, webhookKeysHandler, WEBHOOK_KEYS_PATH } from 'wallet-vault/express';
import { localFileKeyStore } from 'wallet-vault/keystores/local-file';
import { sqlitePersistence } from 'wallet-vault/persistence/sqlite';

/**
 * An embedding application gets the standalone server's series (issue 39, item 5): createVault({ metrics:
 * true }) and vaultRouter(vault, { metrics: true }), so the shipped alert rules work for it; and the
 * webhook keys can be served at the app's root, outside the auth the app puts in front of the router.
 */
describe('metrics and public keys of an embedded vault', () => {
  let dir: string;
  let vault: Vault;
  let app: import('node:http').Server;
  let url: string;
  const APP_TOKEN = 'app-secret';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-embedded-metrics-'));
    vault = await createVault({
      persistence: await sqlitePersistence({ path: path.join(dir, 'vault.db') }),
      keyStores: [localFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKeyHex: 'cd'.repeat(32) })],
      version: 'embedded-test',
      jobs: false,
      metrics: true,
    });
    const host = express();
    // The public keys before the app's own authentication, as receivers fetch them without credentials.
    host.get(WEBHOOK_KEYS_PATH, webhookKeysHandler(vault));
    host.use((req, res, next) => (req.headers['x-app-token'] === APP_TOKEN ? next() : res.status(401).json({ error: 'app auth' })));
    host.use('/vault', vaultRouter(vault, { metrics: true }));
    app = host.listen(0, '127.0.0.1');
    await new Promise((resolve) => app.once('listening', resolve));
    url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => app?.close(resolve));
    await vault?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const call = (route: string, init: RequestInit = {}) => fetch(`${url}${route}`, { ...init, headers: { 'x-app-token': APP_TOKEN, ...init.headers } });

  it('counts requests by route pattern and times the key store, in the series the standalone server exposes', async () => {
    const { id } = await vault.manageVaults.create({ name: 'embedded' });
    const { apiKey } = await vault.manageVaults.createApiKey(id);
    const created = await call(`/vault/api/v1/vaults/${id}/wallets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'w' }),
    });
    expect(created.status).toBe(200);
    await vault.runJobsOnce();
    const scraped = await call('/vault/metrics');
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(text).toContain('wallet_vault_http_requests_total{method="POST",route="/api/v1/vaults/:vaultId/wallets",status="200"} 1');
    expect(text).toMatch(/wallet_vault_key_store_operation_duration_seconds_count\{key_store="local",operation="create",outcome="ok"\} 1/);
    expect(text).toContain('wallet_vault_info{version="embedded-test"} 1');
    expect(text).toMatch(/wallet_vault_purge_runs_total\{outcome="\w+"\} [1-9]/);
  });

  it('has every series the shipped alert rules ask for', async () => {
    const rules = readFileSync(path.join(import.meta.dirname, '../../docs/prometheus/wallet-vault.rules.yml'), 'utf8');
    const asked = new Set([...rules.matchAll(/\b(wallet_vault_[a-z_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, '')));
    expect(asked.size).toBeGreaterThan(5);
    const text = await (await call('/vault/metrics')).text();
    const exposed = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    expect([...asked].filter((name) => !exposed.has(name))).toEqual([]);
  });

  it("serves the webhook keys at the app's root without the app's authentication, and metrics: true needs the vault's metrics", async () => {
    const keys = await fetch(`${url}${WEBHOOK_KEYS_PATH}`);
    expect(keys.status).toBe(200);
    expect(keys.headers.get('cache-control')).toBe('public, max-age=300');
    expect(((await keys.json()) as { keys: { kty: string }[] }).keys[0]!.kty).toBe('OKP');
    const plain = await createVault({ persistence: await sqlitePersistence({ path: path.join(dir, 'plain.db') }), jobs: false });
    try {
      expect(() => vaultRouter(plain, { metrics: true })).toThrow(/metrics: true needs a vault made with createVault\(\{ metrics: true \}\)/);
    } finally {
      await plain.close();
    }
  });
});
