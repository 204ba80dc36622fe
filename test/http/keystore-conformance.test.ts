import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeKms, type FakeKms } from '../support/fake-kms.server.js';
import { startFakeVault, type FakeVault } from '../support/fake-vault.server.js';
import { client, type Reply } from '../support/http-client.js';
import { sample } from '../support/prometheus-sample.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * decisions.md and issue 4 for key stores, through the real service: a store that is down answers 503
 * naming the store on every path that needs it (create, sign, readiness), a failed key creation leaves
 * no wallet behind, and KMS keys carry tags naming their vault and wallet.
 */

const signBody = (signer: string) => localSignBody(signer);

function expect503(r: Reply, store: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.body).toEqual({ success: false, error: expect.stringMatching(new RegExp(`^key store ${store}: `)), code: 'KEYSTORE_UNAVAILABLE' });
}

async function vaultOn(s: TestServer) {
  const vaultId = (await s.createVault({ name: 'ks', account: 'acme' })).id;
  return { vaultId, api: client(s.url, (await s.createApiKey(vaultId)).apiKey), base: `/api/v1/vaults/${vaultId}` };
}

/** With the store failing: create and sign are 503 naming it, /readyz names it and nothing more. */
async function expectStoreDown(s: TestServer, api: ReturnType<typeof client>, base: string, signer: string, store: string, fail: (down: boolean) => void) {
  fail(true);
  try {
    expect503(await api.post(`${base}/wallets`, { name: 'lost' }), store);
    expect503(await api.post(`${base}/sign`, signBody(signer)), store);
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ success: false, error: `key store ${store} unavailable`, code: 'KEYSTORE_UNAVAILABLE' });
  } finally {
    fail(false);
  }
}

/** Wallets the vault shows, by every count it reports. */
async function walletCounts(s: TestServer, api: ReturnType<typeof client>, base: string) {
  return { listed: (await api.get(`${base}/wallets`)).body.data.count as number, status: (await api.get(`${base}/status`)).body.wallets as number };
}

describe('aws-kms through the service (KMS-compatible test server, real SDK client)', () => {
  let kms: FakeKms;
  let s: TestServer;
  beforeAll(async () => {
    kms = await startFakeKms();
    s = await startTestServer({
      env: { VAULT_KEYSTORE: 'aws-kms', VAULT_KMS_ENDPOINT: kms.url, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: kms.accessKeyId, AWS_SECRET_ACCESS_KEY: kms.secretAccessKey },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await kms?.close();
  });

  it('tags each KMS key with the account, vault and wallet it belongs to, and the deployment that made it', async () => {
    const { vaultId, api, base } = await vaultOn(s);
    const before = new Set(kms.keys.keys());
    const wallet = (await api.post(`${base}/wallets`, { name: 'tagged' })).body.data;
    const created = [...kms.keys.values()].filter((k) => !before.has(k.id));
    expect(created).toHaveLength(1);
    expect(created[0]!.tags).toEqual({
      'wallet-vault': 'wallet',
      'wallet-vault:account': 'acme',
      'wallet-vault:vault': vaultId,
      'wallet-vault:wallet': wallet.id,
      'wallet-vault:deployment': s.server.vault.deploymentId,
    });
    expect(s.server.vault.deploymentId).toMatch(/^[0-9a-f]{32}$/);
    expect(created[0]!.description).toContain(wallet.id);
  });

  it('a KMS that fails is 503 naming aws-kms on create, sign and /readyz; a failed create leaves no wallet', async () => {
    const { api, base } = await vaultOn(s);
    const wallet = (await api.post(`${base}/wallets`, { name: 'kept' })).body.data;
    const keysBefore = kms.keys.size;

    await expectStoreDown(s, api, base, wallet.address, 'aws-kms', (down) => void (kms.failNext = down ? 1_000 : 0));
    expect(await walletCounts(s, api, base)).toEqual({ listed: 1, status: 1 });
    expect(kms.keys.size).toBe(keysBefore);
    expect((await api.post(`${base}/sign`, signBody(wallet.address))).status).toBe(200);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
  });

  it('a request KMS throttles or briefly fails is retried by the SDK and counted in wallet_vault_keystore_retries_total', async () => {
    const { api, base } = await vaultOn(s);
    const wallet = (await api.post(`${base}/wallets`, { name: 'retried' })).body.data;
    const retries = async () => {
      const text = await (await fetch(`${s.url}/metrics`)).text();
      return { throttled: sample(text, 'wallet_vault_keystore_retries_total', { store: 'aws-kms', reason: 'throttled' }) ?? 0, unavailable: sample(text, 'wallet_vault_keystore_retries_total', { store: 'aws-kms', reason: 'unavailable' }) ?? 0 };
    };
    const before = await retries();
    // The SDK's three attempts: one throttled, one failed, the third answers.
    kms.throttleNext = 1;
    kms.failNext = 1;
    expect((await api.post(`${base}/sign`, signBody(wallet.address))).status).toBe(200);
    expect(await retries()).toEqual({ throttled: before.throttled + 1, unavailable: before.unavailable + 1 });
    // A request answered at once is no retry.
    expect((await api.post(`${base}/sign`, signBody(wallet.address))).status).toBe(200);
    expect(await retries()).toEqual({ throttled: before.throttled + 1, unavailable: before.unavailable + 1 });
  });

  it('a key created whose public key then cannot be read is disabled and scheduled away; no wallet names it', async () => {
    const { api, base } = await vaultOn(s);
    const before = new Set(kms.keys.keys());
    kms.failing.add('GetPublicKey');
    try {
      expect503(await api.post(`${base}/wallets`, { name: 'half-made' }), 'aws-kms');
    } finally {
      kms.failing.clear();
    }
    expect(await walletCounts(s, api, base)).toEqual({ listed: 0, status: 0 });
    const made = [...kms.keys.values()].filter((k) => !before.has(k.id));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ state: 'PendingDeletion', pendingWindowInDays: 7 });
  });
});

describe('vault-transit through the service (Vault-compatible test server, node-vault)', () => {
  let transit: FakeVault;
  let s: TestServer;
  beforeAll(async () => {
    transit = await startFakeVault();
    s = await startTestServer({ env: { VAULT_KEYSTORE: 'vault-transit', VAULT_ADDR: transit.url, VAULT_TRANSIT_ALLOW_HTTP: 'true', VAULT_TOKEN: transit.token, VAULT_TRANSIT_KEY: 'wallet-vault' } });
  });
  afterAll(async () => {
    await s?.stop();
    await transit?.close();
  });

  it('a Transit that fails is 503 naming vault-transit on create, sign and /readyz; a failed create leaves no wallet', async () => {
    const { api, base } = await vaultOn(s);
    const wallet = (await api.post(`${base}/wallets`, { name: 'kept' })).body.data;
    await expectStoreDown(s, api, base, wallet.address, 'vault-transit', (down) => void (transit.failNext = down ? 1_000 : 0));
    expect(await walletCounts(s, api, base)).toEqual({ listed: 1, status: 1 });
    expect((await api.post(`${base}/sign`, signBody(wallet.address))).status).toBe(200);
  });
});

describe('local through the service', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('a key directory that cannot be written is 503 naming local, not a 500; no wallet is left behind', async () => {
    const { api, base } = await vaultOn(s);
    const wallet = (await api.post(`${base}/wallets`, { name: 'kept' })).body.data;
    const keysDir = path.join(s.dataDir, 'keys');
    // Stands for a full or read-only disk: the directory is gone and a file holds its name.
    const moved = `${keysDir}.moved`;
    await rename(keysDir, moved);
    await writeFile(keysDir, 'not a directory');
    try {
      expect503(await api.post(`${base}/wallets`, { name: 'lost' }), 'local');
      // Signing keeps working from the unwrapped-key cache or fails as 503, never 500.
      const signed = await api.post(`${base}/sign`, signBody(wallet.address));
      expect([200, 503]).toContain(signed.status);
    } finally {
      await rm(keysDir, { force: true });
      await rename(moved, keysDir);
    }
    expect(await walletCounts(s, api, base)).toEqual({ listed: 1, status: 1 });
    expect((await api.post(`${base}/wallets`, { name: 'after' })).status).toBe(200);
  });
});
