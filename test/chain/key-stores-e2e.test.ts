import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Contract } from 'ethers';
import express from 'express';
import { OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultRouter } from '../../adapters/main/vault-router.js';
import { GcpKmsKeyStore } from '../../adapters/keystore/gcp-kms/gcp-kms.key-store.js';
import { createVault } from '../../adapters/main/create-vault.js';
import { sqlitePersistence } from '../../adapters/persistence/sqlite/index.js';
import { loadConfig } from '../../adapters/main/config.js';
import { EXPIRY_TTL_MS } from '../../src/domain/wallet.js';
import type { KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import { KEY_STORE_REGISTRY, WALLET_REPOSITORY } from '../../adapters/main/tokens.js';
import type { WalletRepository } from '../../src/ports/wallet-repository.port.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { AzureKeyVaultKeyStore } from '../../adapters/keystore/azure-key-vault/azure-key-vault.key-store.js';
import { startFakeAzureKeyVault, type FakeAzureKeyVault } from '../support/fake-azure-key-vault.server.js';
import { startFakeGcpKms, type FakeGcpKms } from '../support/fake-gcp-kms.server.js';
import { startFakeKms, type FakeKms } from '../support/fake-kms.server.js';
import { MovableClock } from '../support/movable-clock.js';
import { inMemoryPersistence } from '../support/in-memory.persistence.js';
import { startFakeVault, type FakeVault } from '../support/fake-vault.server.js';
import { createSoftHsmToken } from '../support/softhsm.js';
import { client } from '../support/http-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const UNIQ = `0x${'3c'.repeat(32)}`;
const MINT = (loadArtifact('SignableTarget').abi as { name?: string }[]).find((i) => i.name === 'mint');
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('every key store serves the whole API: signatures accepted on anvil', () => {
  let anvil: Anvil;
  let kms: FakeKms;
  let gcp: FakeGcpKms;
  let transit: FakeVault;
  let azure: FakeAzureKeyVault;
  let dataDir: string | undefined;
  const servers: TestServer[] = [];
  const kmsEnv = () => ({
    VAULT_KMS_ENDPOINT: kms.url,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: kms.accessKeyId,
    AWS_SECRET_ACCESS_KEY: kms.secretAccessKey,
  });

  beforeAll(async () => {
    [anvil, kms, gcp, transit, azure] = await Promise.all([startAnvil(), startFakeKms(), startFakeGcpKms(), startFakeVault(), startFakeAzureKeyVault()]);
  });
  afterAll(async () => {
    for (const s of servers) await s.stop().catch(() => undefined);
    await kms?.close();
    await gcp?.close();
    await transit?.close();
    await azure?.close();
    await anvil?.stop();
  });

  async function signAndSend(s: { readonly url: string }, vaultId: string, apiKey: string, signer: string): Promise<number | null | undefined> {
    const target = await deploy(anvil, 'SignableTarget', [signer, UNIQ]);
    const sender = await anvil.account(1).getAddress();
    const r = await client(s.url, apiKey).post(`/api/v1/vaults/${vaultId}/sign`, {
      chain: 'local',
      contract: target.target,
      sender,
      uniq: UNIQ,
      signer,
      abi: MINT,
      args: [TO, 1],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const tx = await (target.connect(anvil.account(1)) as Contract).getFunction('mint')(...r.body.data.args);
    return (await tx.wait())?.status;
  }

  it('aws-kms: keys created in KMS sign calls the contract accepts; deletion schedules the KMS key', async () => {
    const s = await startTestServer({ env: { VAULT_KEYSTORE: 'aws-kms', ...kmsEnv() } });
    servers.push(s);
    const vaultId = (await s.createVault({ name: 'kms' })).id;
    const { apiKey } = await s.createApiKey(vaultId);
    const api = client(s.url, apiKey);
    const before = kms.keys.size;
    const wallet = (await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'in kms' })).body.data;
    expect(kms.keys.size).toBe(before + 1);
    const record = await s.server.container.get<WalletRepository>(WALLET_REPOSITORY).findWallet(vaultId, wallet.address, new Date());
    expect(record?.keyStore).toBe('aws-kms');
    expect(await signAndSend(s, vaultId, apiKey, wallet.address)).toBe(1);

    // Expiring: nothing is scheduled (a key pending deletion could not sign). Deleted: disabled and scheduled.
    await api.delete(`/api/v1/vaults/${vaultId}/wallets/${wallet.address}`);
    await s.server.purgeNow();
    expect(kms.keys.get(record!.keyRef)?.state).toBe('Enabled');
    s.clock.advance(EXPIRY_TTL_MS);
    await s.server.purgeNow();
    expect(kms.keys.get(record!.keyRef)).toMatchObject({ state: 'PendingDeletion', pendingWindowInDays: 7 });
  });

  it('azure-key-vault: keys created in Key Vault (P-256K, ES256K) sign calls the contract accepts, through createVault({ keyStores })', async () => {
    const store = new AzureKeyVaultKeyStore({ vaultUrl: azure.url, credential: azure.credential, disableChallengeResourceVerification: true, allowInsecureConnection: true });
    const clock = new MovableClock();
    const vault = await createVault({ persistence: inMemoryPersistence(), keyStores: [store], jobs: false, clock });
    const app = express().use(vaultRouter(vault));
    const http = app.listen(0, '127.0.0.1');
    await new Promise((r) => http.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const vaultId = (await vault.manageVaults.create({ name: 'azure' })).id;
      const { apiKey } = await vault.manageVaults.createApiKey(vaultId);
      const before = azure.keys.size;
      const wallet = (await client(url, apiKey).post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'in key vault' })).body.data;
      expect(azure.keys.size).toBe(before + 1);
      const record = await vault.container.get<WalletRepository>(WALLET_REPOSITORY).findWallet(vaultId, wallet.address, new Date());
      expect(record).toMatchObject({ keyStore: 'azure-key-vault', keyRef: expect.stringMatching(/^wallet-vault-[0-9a-f-]+\/[0-9a-f]+$/) });
      // The key carries the deployment of this vault, so its orphan sweep would list it and no other deployment's would.
      const tags = azure.keys.get(record!.keyRef.split('/')[0]!)!.versions[0]!.tags;
      expect(tags).toMatchObject({ 'wallet-vault-vault': vaultId, 'wallet-vault-deployment': vault.deploymentId });
      azure.calls.length = 0;
      expect(await signAndSend({ url }, vaultId, apiKey, wallet.address)).toBe(1);
      // One call per sign: the key was read when it signed the wallet's binding at its creation, and kept.
      expect(azure.calls).toEqual(['sign']);

      // Expiring: the key stays enabled (unexpire must keep working), and the sweep leaves a key a wallet names.
      const stored = azure.keys.get(record!.keyRef.split('/')[0]!)!;
      await client(url, apiKey).delete(`/api/v1/vaults/${vaultId}/wallets/${wallet.address}`);
      await vault.runJobsOnce();
      expect(stored.deletedDate).toBeUndefined();
      expect(stored.versions[0]!.enabled).toBe(true);
      // Deleted 30 days later: disabled, then soft-deleted (recoverable until Azure purges it), never purged by us.
      clock.advance(EXPIRY_TTL_MS);
      await vault.runJobsOnce();
      expect(stored.versions[0]!.enabled).toBe(false);
      expect(stored.deletedDate).toBeDefined();
    } finally {
      await new Promise((r) => http.close(r));
      await vault.close();
    }
  });

  it('gcp-kms: keys created in Cloud KMS (the REST stand-in) sign calls the contract accepts; deletion disables and schedules the version', async () => {
    // Built directly: a vault of the library over SQLite, its routes in an Express app, the store authenticated by a token of the application's.
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-gcp-e2e-'));
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: gcp.token, expiry_date: Date.now() + 3_600_000 });
    const clock = new MovableClock();
    const vault = await createVault({
      persistence: await sqlitePersistence({ path: path.join(dir, 'vault.db') }),
      keyStores: [new GcpKmsKeyStore({ keyRing: gcp.keyRing, endpoint: gcp.url, authClient: auth })],
      clock,
      jobs: false,
    });
    const app = express().use(vaultRouter(vault)).listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => app.once('listening', resolve));
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
      const vaultId = (await vault.manageVaults.create({ name: 'gcp' })).id;
      const { apiKey } = await vault.manageVaults.createApiKey(vaultId);
      const api = client(url, apiKey);
      const wallet = (await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'in gcp' })).body.data;
      const record = await vault.container.get<WalletRepository>(WALLET_REPOSITORY).findWallet(vaultId, wallet.address, new Date());
      expect(record).toMatchObject({ keyStore: 'gcp-kms', keyRef: expect.stringMatching(/^projects\/.+\/cryptoKeyVersions\/1$/) });
      // The key carries this deployment's label: the orphan sweep of this vault lists it.
      expect(gcp.keys.get(record!.keyRef.replace(/\/cryptoKeyVersions\/1$/, ''))?.labels['wallet_vault_deployment']).toMatch(/^[a-z0-9_-]+$/);
      gcp.calls.length = 0;
      expect(await signAndSend({ url }, vaultId, apiKey, wallet.address)).toBe(1);
      expect(gcp.calls).toEqual(['AsymmetricSign']);

      // Expiring: nothing is scheduled (a disabled version could not sign). Deleted: disabled, then scheduled.
      await api.delete(`/api/v1/vaults/${vaultId}/wallets/${wallet.address}`);
      await vault.runJobsOnce();
      expect(gcp.version(record!.keyRef)?.state).toBe('ENABLED');
      clock.advance(EXPIRY_TTL_MS);
      await vault.runJobsOnce();
      expect(gcp.version(record!.keyRef)?.state).toBe('DESTROY_SCHEDULED');
    } finally {
      await new Promise((resolve) => app.close(resolve));
      await vault.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('vault-transit: keys wrapped by Transit sign calls the contract accepts; the record holds only ciphertext', async () => {
    const s = await startTestServer({
      env: { VAULT_KEYSTORE: 'vault-transit', VAULT_ADDR: transit.url, VAULT_TRANSIT_ALLOW_HTTP: 'true', VAULT_TOKEN: transit.token, VAULT_TRANSIT_KEY: 'wallet-vault' },
    });
    servers.push(s);
    const vaultId = (await s.createVault({ name: 'transit' })).id;
    const { apiKey } = await s.createApiKey(vaultId);
    const wallet = (await client(s.url, apiKey).post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'in transit' })).body.data;
    const record = await s.server.container.get<WalletRepository>(WALLET_REPOSITORY).findWallet(vaultId, wallet.address, new Date());
    expect(record).toMatchObject({ keyStore: 'vault-transit', keyRef: expect.stringMatching(/^0x[0-9a-f]{40}:vault:v1:/) });
    transit.calls.length = 0;
    expect(await signAndSend(s, vaultId, apiKey, wallet.address)).toBe(1);
    expect(transit.calls).toEqual(['decrypt']);
  });

  it('pkcs11: keys generated on a SoftHSM2 token sign calls the contract accepts; deletion destroys the objects', async () => {
    const token = createSoftHsmToken('e2e');
    const s = await startTestServer({
      env: { VAULT_KEYSTORE: 'pkcs11', VAULT_PKCS11_MODULE: token.modulePath, VAULT_PKCS11_TOKEN: token.tokenLabel, VAULT_PKCS11_PIN: token.pin },
    });
    servers.push(s);
    const vaultId = (await s.createVault({ name: 'hsm' })).id;
    const { apiKey } = await s.createApiKey(vaultId);
    const api = client(s.url, apiKey);
    const wallet = (await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'in hsm' })).body.data;
    const record = await s.server.container.get<WalletRepository>(WALLET_REPOSITORY).findWallet(vaultId, wallet.address, new Date());
    expect(record?.keyStore).toBe('pkcs11');
    expect(await signAndSend(s, vaultId, apiKey, wallet.address)).toBe(1);
    await api.delete(`/api/v1/vaults/${vaultId}/wallets/${wallet.address}`);
    s.clock.advance(EXPIRY_TTL_MS);
    await s.server.purgeNow();
    const stores = s.server.container.get<KeyStoreRegistry>(KEY_STORE_REGISTRY);
    expect(await stores.get('pkcs11').listKeyRefs!(new Date(Date.now() + 60_000))).not.toContain(record!.keyRef);
  });

  it('an http:// VAULT_ADDR stops the start unless VAULT_TRANSIT_ALLOW_HTTP=true: the token and unwrapped keys would travel in clear', async () => {
    const env = { VAULT_KEYSTORE: 'vault-transit', VAULT_ADDR: transit.url, VAULT_TOKEN: transit.token, VAULT_TRANSIT_KEY: 'wallet-vault' };
    expect(transit.url).toMatch(/^http:\/\//);
    await expect(startTestServer({ env })).rejects.toThrow(/VAULT_ADDR: http:\/\/ would send the Vault token .* set VAULT_TRANSIT_ALLOW_HTTP=true/);
    await expect(startTestServer({ env: { ...env, VAULT_TRANSIT_ALLOW_HTTP: 'false' } })).rejects.toThrow(/VAULT_ADDR: http:\/\//);
    await expect(startTestServer({ env: { ...env, VAULT_TRANSIT_ALLOW_HTTP: 'yes' } })).rejects.toThrow(/VAULT_TRANSIT_ALLOW_HTTP: must be true or false/);
    expect(loadConfig({ ...env, VAULT_ADDR: 'https://vault.internal:8200' }).keyStoreSettings.get('vault-transit')).toMatchObject({ address: 'https://vault.internal:8200' });
    const allowed = await startTestServer({ env: { ...env, VAULT_TRANSIT_ALLOW_HTTP: 'true' } });
    await allowed.stop();
  });

  it('a missing Transit token stops the start naming the variable', async () => {
    await expect(startTestServer({ env: { VAULT_KEYSTORE: 'vault-transit', VAULT_ADDR: transit.url, VAULT_TRANSIT_ALLOW_HTTP: 'true', VAULT_TRANSIT_KEY: 'wallet-vault' } })).rejects.toThrow(
      /VAULT_TOKEN: required for the vault-transit key store/,
    );
    await expect(
      startTestServer({ env: { VAULT_KEYSTORE: 'vault-transit', VAULT_ADDR: transit.url, VAULT_TRANSIT_ALLOW_HTTP: 'true', VAULT_TOKEN: 'hvs.wrong', VAULT_TRANSIT_KEY: 'wallet-vault' } }),
    ).rejects.toThrow(/key store vault-transit: .*HTTP 403/);
  });

  it('changing VAULT_KEYSTORE affects new wallets only; the old store keeps serving its wallets', async () => {
    const first = await startTestServer();
    const vaultId = (await first.createVault({ name: 'mixed' })).id;
    const { apiKey } = await first.createApiKey(vaultId);
    const local = (await client(first.url, apiKey).post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'local' })).body.data.address;
    dataDir = first.dataDir;
    await first.stop({ keepData: true });

    const second = await startTestServer({ dataDir, env: { VAULT_KEYSTORE: 'aws-kms', ...kmsEnv() } });
    servers.push(second);
    const inKms = (await client(second.url, apiKey).post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'kms' })).body.data.address;
    const repo = second.server.container.get<WalletRepository>(WALLET_REPOSITORY);
    expect((await repo.findWallet(vaultId, local, new Date()))?.keyStore).toBe('local');
    expect((await repo.findWallet(vaultId, inKms, new Date()))?.keyStore).toBe('aws-kms');
    expect(await signAndSend(second, vaultId, apiKey, local)).toBe(1);
    expect(await signAndSend(second, vaultId, apiKey, inKms)).toBe(1);
  });

  it('a key store that is down is 503 naming it, and the server keeps serving', async () => {
    const s = await startTestServer({ env: { VAULT_KEYSTORE: 'aws-kms', ...kmsEnv() } });
    servers.push(s);
    const vaultId = (await s.createVault({ name: 'down' })).id;
    const api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
    kms.failNext = 3;
    const r = await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'x' });
    expect(r.status).toBe(503);
    expect(r.body.error).toMatch(/^key store aws-kms: /);
    kms.failNext = 0;
    expect((await api.get(`/api/v1/vaults/${vaultId}/wallets`)).body.data.count).toBe(0);
    expect((await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'y' })).status).toBe(200);
  });

  it('bad KMS credentials stop the start with the store named', async () => {
    await expect(startTestServer({ env: { VAULT_KEYSTORE: 'aws-kms', ...kmsEnv(), AWS_ACCESS_KEY_ID: 'AKIDWRONG0000000000' } })).rejects.toThrow(
      /key store aws-kms: ListKeys failed/,
    );
  });
});
