import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonRpcChainReader } from '../../adapters/chain/json-rpc.chain-reader.js';
import { AwsKmsKeyStore } from '../../adapters/keystore/aws-kms/aws-kms.key-store.js';
import { VaultTransitKeyStore } from '../../adapters/keystore/vault-transit/vault-transit.key-store.js';
import { readinessOf } from '../../adapters/main/readiness.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { startFakeVault } from '../support/fake-vault.server.js';
import { client } from '../support/http-client.js';
import { startSilentServer, type SilentServer } from '../support/silent-server.js';
import { startTestServer } from '../support/test-server.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SIGNATURE_PARAM as SIG } from '../support/sign-request.js';
import { SqlWalletRepository } from '../../adapters/persistence/sql/sql.wallet-repository.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';

const MINT_TO = { type: 'function', name: 'mint', inputs: [{ name: 'to', type: 'address' }, SIG] };

/** Resolves with how long `work` took to settle, and its rejection. */
async function timed(work: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = Date.now();
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { ms: Date.now() - started, error };
}

describe('a dependency that never answers is an error naming it, never a hang', () => {
  let silent: SilentServer;
  beforeAll(async () => {
    silent = await startSilentServer();
  });
  afterAll(async () => {
    await silent?.close();
  });

  it('chain RPC: Sign answers 502 naming the chain within the outbound timeout', async () => {
    const s = await startTestServer({ env: { VAULT_RPC_URL_SEPOLIA: silent.url, VAULT_OUTBOUND_TIMEOUT_MS: '400' } });
    try {
      const vaultId = (await s.createVault({ name: 'rpc' })).id;
      const api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
      const before = silent.connections();
      const started = Date.now();
      const r = await api.post(`/api/v1/vaults/${vaultId}/sign`, {
        chain: 'sepolia',
        contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        sender: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
        abi: MINT_TO,
        args: ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8'],
      });
      expect(silent.connections()).toBeGreaterThan(before);
      expect(r.status).toBe(502);
      expect(r.body).toEqual({ success: false, error: 'chain sepolia: RPC did not answer eth_chainId within 400 ms', code: 'CHAIN_UNAVAILABLE' });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await s.stop();
    }
  });

  it('chain RPC reader on its own', async () => {
    const reader = new JsonRpcChainReader({ rpcUrls: { ethereum: silent.url }, timeoutMs: 300 });
    const { ms, error } = await timed(reader.readSignable('ethereum', '0x5fbdb2315678afecb367f032d93f642f64180aa3'));
    expect(error).toMatchObject({ code: ErrorCode.CHAIN_UNAVAILABLE, message: 'chain ethereum: RPC did not answer eth_chainId within 300 ms' });
    expect(ms).toBeLessThan(3000);
    await reader.close();
  });

  it('Vault Transit: node-vault gives up after the request timeout', async () => {
    const store = new VaultTransitKeyStore({ address: silent.url, token: 'hvs.test', keyName: 'k', requestTimeoutMs: 300 });
    const { ms, error } = await timed(store.sign(`0x${'1'.repeat(40)}:vault:v1:AAAA`, new Uint8Array(32)));
    expect(error).toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE, message: expect.stringMatching(/^key store vault-transit: decrypt failed/) });
    expect(ms).toBeLessThan(3000);
  });

  it('AWS KMS: every attempt is bounded by the request timeout', async () => {
    const store = new AwsKmsKeyStore({
      region: 'eu-west-1',
      endpoint: silent.url,
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
      requestTimeoutMs: 300,
    });
    const { ms, error } = await timed(store.ping());
    expect(error).toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE, message: expect.stringMatching(/^key store aws-kms: /) });
    expect(ms).toBeLessThan(8000); // three attempts of 300 ms plus the SDK's back-off
    await store.close();
  });
});

const METRICS_TOKEN = 'operator-token-for-the-probes';

describe('/readyz names the dependency that does not answer', () => {
  it('503 naming the key store when Vault goes away, 200 again when it is back', async () => {
    const vault = await startFakeVault();
    const s = await startTestServer({
      env: { VAULT_ADDR: vault.url, VAULT_TRANSIT_ALLOW_HTTP: 'true', VAULT_TOKEN: vault.token, VAULT_TRANSIT_KEY: 'wallet-vault', VAULT_METRICS_TOKEN: METRICS_TOKEN },
    });
    try {
      expect((await client(s.url).get('/readyz')).status).toBe(200);
      vault.failNext = 1000;
      const r = await client(s.url).get('/readyz');
      expect(r.status).toBe(503);
      // Anyone may ask /readyz: it names the store, not its address, mount or key.
      expect(r.body).toEqual({ success: false, error: 'key store vault-transit unavailable', code: 'KEYSTORE_UNAVAILABLE' });
      const detailed = await client(s.url).get('/readyz', { authorization: `Bearer ${METRICS_TOKEN}` });
      expect(detailed.body).toEqual({
        success: false,
        error: expect.stringMatching(/^key store vault-transit: transit key "wallet-vault" at mount "transit" is not readable \(HTTP 500/),
        code: 'KEYSTORE_UNAVAILABLE',
      });
      expect((await client(s.url).get('/healthz')).status).toBe(200); // alive, just not ready
      vault.failNext = 0;
      expect((await client(s.url).get('/readyz')).status).toBe(200);
    } finally {
      await s.stop();
      await vault.close();
    }
  });

  it('names the database when it fails, and a hung dependency within the bound', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-ready-'));
    try {
      const db = openSqliteDatabase({ path: path.join(dir, 'vault.db') });
      const repository = new SqlWalletRepository(sqliteSql(db));
      const database = { name: 'database', code: ErrorCode.DATABASE_UNAVAILABLE, ping: () => repository.ping() };
      const hung = { name: 'key store stuck', code: ErrorCode.KEYSTORE_UNAVAILABLE, ping: () => new Promise<void>(() => undefined) };
      await expect(readinessOf([database], 300)()).resolves.toBeUndefined();
      db.close();
      const { ms, error } = await timed(readinessOf([database, hung], 300)());
      expect(error).toMatchObject({
        code: ErrorCode.DATABASE_UNAVAILABLE,
        message: 'database unavailable; key store stuck unavailable',
        details: 'database: failed; key store stuck: did not answer within 300 ms',
      });
      expect(ms).toBeLessThan(2000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
