import { readFile, rm, stat } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMasterKeyFile } from '../../adapters/keystore/local-file/master-key.js';
import { splitMasterKey } from '../../adapters/keystore/local-file/master-key-shares.js';
import { client } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/*
 * Issue 50, "Sealed start": the real server (SQLite, local store, HTTP) started with VAULT_SEAL=shamir
 * over a data directory whose master.key was split and deleted. Signs are 503 VAULT_SEALED until M
 * shares of the split are submitted; bad shares are refused naming `share` and recorded; the seal drops
 * the key again. The unseal timeout is driven through the clock port.
 */
const OPERATOR_TOKEN = 'operator-token-of-the-seal-test';

describe('a sealed start (VAULT_SEAL=shamir)', () => {
  let dataDir: string;
  let s: TestServer;
  let shares: string[];
  let otherSplit: string[];
  let base: string;
  let apiKey: string;
  let signer: string;
  let logged = '';
  const sys = () => client(s.url);
  const sign = () => client(s.url, apiKey).post(`${base}/sign`, localSignBody(signer));
  const unseal = (share: unknown) => sys().post('/api/v1/sys/unseal', { share });
  const records = async () => (await s.server.vault.listAuditRecords.execute({ limit: 1000 })).filter((r) => r.action.startsWith('seal.'));

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-seal-'));
    // An unsealed start first: the vault, its key and a wallet under the master key that is then split.
    const first = await startTestServer({ dataDir });
    const vaultId = (await first.createVault({ name: 'sealed' })).id;
    apiKey = (await first.createApiKey(vaultId)).apiKey;
    base = `/api/v1/vaults/${vaultId}`;
    signer = (await client(first.url, apiKey).post(`${base}/wallets`, { name: 'signer' })).body.data.address as string;
    await first.stop({ keepData: true });
    const key = (await readMasterKeyFile(path.join(dataDir, 'master.key')))!;
    shares = await splitMasterKey(key, 3, 2);
    // Another split of another key: its shares combine, but into a key that wrapped none of these files.
    otherSplit = await splitMasterKey(Buffer.alloc(32, 7), 3, 2);
    await rm(path.join(dataDir, 'master.key'));
    s = await startTestServer({ dataDir, env: { VAULT_SEAL: 'shamir', VAULT_METRICS_TOKEN: OPERATOR_TOKEN, LOG_LEVEL: 'debug' } });
    // A policy is a write that needs no key: set while sealed, it lets the standard routes reach the key store.
    await s.server.vault.managePolicies.set(vaultId, { messages: true });
    // Every log line of the sealed server, to check no share text reaches them.
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      logged += String(chunk);
      return write(chunk, ...rest);
    }) as typeof process.stdout.write;
  });

  afterAll(async () => {
    await s?.stop({ keepData: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts sealed: /readyz says so, every sign and wallet creation is 503 VAULT_SEALED, reads work', async () => {
    expect((await sys().get('/api/v1/sys/seal-status')).body).toEqual({ sealed: true, threshold: null, progress: 0 });
    const ready = await sys().get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ code: 'VAULT_SEALED', error: 'sealed' });
    const refused = await sign();
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('VAULT_SEALED');
    expect(refused.body.error).toMatch(/VAULT_SEAL=shamir/);
    const api = client(s.url, apiKey);
    expect((await api.post(`${base}/wallets`, { name: 'another' })).body.code).toBe('VAULT_SEALED');
    const message = await api.post(`${base}/wallets/${signer}/sign-message`, { message: 'hello' });
    expect([message.status, message.body.code]).toEqual([503, 'VAULT_SEALED']);
    // A read that needs no key.
    const wallets = await api.get(`${base}/wallets`);
    expect(wallets.status).toBe(200);
    expect(JSON.stringify(wallets.body)).toContain(signer);
  });

  it('refuses a malformed, a corrupted, a repeated and another split’s share, naming `share`, each recorded without the share', async () => {
    const before = (await records()).length;
    const malformed = await unseal('not a share');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^share: is not a share file/);
    const json = JSON.parse(shares[0]!) as Record<string, unknown>;
    const flipped = String(json.share).startsWith('A') ? `B${String(json.share).slice(1)}` : `A${String(json.share).slice(1)}`;
    const corrupted = await unseal(JSON.stringify({ ...json, share: flipped }));
    expect(corrupted.status).toBe(400);
    expect(corrupted.body.error).toMatch(/^share: is corrupted/);
    expect((await unseal(shares[0])).body).toEqual({ sealed: true, threshold: 2, progress: 1 });
    const repeated = await unseal(shares[0]);
    expect(repeated.status).toBe(409);
    expect(repeated.body.error).toMatch(/^share: share 1 of this split was already submitted/);
    const other = await unseal(otherSplit[1]);
    expect(other.status).toBe(409);
    expect(other.body.error).toMatch(/^share: of another split/);
    // M-1 shares sign nothing.
    expect((await sign()).body.code).toBe('VAULT_SEALED');
    const trail = (await records()).slice(before);
    expect(trail.map((r) => [r.action, r.details.reason ?? null])).toEqual([
      ['seal.share-refused', 'malformed'],
      ['seal.share-refused', 'malformed'],
      ['seal.share-accepted', null],
      ['seal.share-refused', 'repeated'],
      ['seal.share-refused', 'other-split'],
    ]);
    const shareTexts = [...shares, ...otherSplit].map((t) => String((JSON.parse(t) as { share: string }).share));
    for (const text of shareTexts) {
      expect(JSON.stringify(trail)).not.toContain(text);
      expect(JSON.stringify([malformed.body, corrupted.body, repeated.body, other.body])).not.toContain(text);
    }
  });

  it('forgets the shares submitted once VAULT_UNSEAL_TIMEOUT_SECONDS has passed (the clock port)', async () => {
    expect((await sys().get('/api/v1/sys/seal-status')).body.progress).toBe(1);
    s.clock.advance(600_000);
    expect((await sys().get('/api/v1/sys/seal-status')).body).toMatchObject({ sealed: true, progress: 0 });
  });

  it('a whole split of another key unseals nothing', async () => {
    expect((await unseal(otherSplit[0])).body.progress).toBe(1);
    const wrong = await unseal(otherSplit[2]);
    expect(wrong.status).toBe(409);
    expect(wrong.body.error).toMatch(/^share: master key mismatch: the shares submitted reconstruct a key that did not wrap/);
    expect((await sys().get('/api/v1/sys/seal-status')).body).toMatchObject({ sealed: true, progress: 0 });
    expect((await sign()).body.code).toBe('VAULT_SEALED');
  });

  it('M shares unseal: the vault signs; the seal (operator token) drops the key again', async () => {
    expect((await unseal(shares[2])).body).toEqual({ sealed: true, threshold: 2, progress: 1 });
    expect((await unseal(JSON.parse(shares[1]!))).body).toEqual({ sealed: false, threshold: 2, progress: 0 });
    expect((await sys().get('/readyz')).status).toBe(200);
    const signed = await sign();
    expect(signed.status).toBe(200);
    expect((await client(s.url, apiKey).post(`${base}/wallets/${signer}/sign-message`, { message: 'hello' })).status).toBe(200);
    // A late custodian's share changes nothing.
    expect((await unseal(shares[0])).body.sealed).toBe(false);

    const anonymous = await sys().post('/api/v1/sys/seal');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('UNAUTHENTICATED');
    expect((await sign()).status).toBe(200);
    const sealed = await sys().post('/api/v1/sys/seal', undefined, { authorization: `Bearer ${OPERATOR_TOKEN}` });
    expect(sealed.body).toEqual({ sealed: true, threshold: 2, progress: 0 });
    expect((await sign()).body.code).toBe('VAULT_SEALED');
    expect((await records()).slice(-2).map((r) => r.action)).toEqual(['seal.unsealed', 'seal.sealed']);
    for (const text of shares) expect(logged).not.toContain(String((JSON.parse(text) as { share: string }).share));
  });

  it('bounds an unseal body and refuses other fields', async () => {
    expect((await sys().post('/api/v1/sys/unseal', { share: 'x'.repeat(10_000) })).status).toBe(413);
    const extra = await sys().post('/api/v1/sys/unseal', { share: shares[0], key: 'x' });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatch(/^key: is not a field/);
  });

  it('refuses to start sealed beside a master.key, or with VAULT_MASTER_KEY', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-seal-'));
    try {
      const plain = await startTestServer({ dataDir: dir });
      await plain.stop({ keepData: true });
      await expect(startTestServer({ dataDir: dir, env: { VAULT_SEAL: 'shamir' } })).rejects.toThrow(/VAULT_SEAL=shamir, but .*master\.key exists/);
      await expect(startTestServer({ dataDir: dir, env: { VAULT_SEAL: 'shamir', VAULT_MASTER_KEY: 'ab'.repeat(32) } })).rejects.toThrow(/VAULT_MASTER_KEY: not with VAULT_SEAL=shamir/);
      expect((await stat(path.join(dir, 'master.key'))).isFile()).toBe(true);
      expect((await readFile(path.join(dir, 'master.key'), 'utf8')).length).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('two sealed instances on one PostgreSQL database', () => {
  let db: TestDatabase;
  const servers: TestServer[] = [];
  let dataDir: string;
  afterAll(async () => {
    for (const server of servers) await server.stop({ keepData: true });
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('each instance unseals on its own: M shares to one leave the other sealed', async () => {
    db = await createTestDatabase();
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-seal-pg-'));
    const env = { VAULT_DATABASE_URL: db.url, VAULT_DATABASE_POOL_SIZE: '2' };
    const first = await startTestServer({ dataDir, env });
    const vaultId = (await first.createVault({ name: 'pg-sealed' })).id;
    const apiKey = (await first.createApiKey(vaultId)).apiKey;
    const base = `/api/v1/vaults/${vaultId}`;
    const signer = (await client(first.url, apiKey).post(`${base}/wallets`, { name: 'signer' })).body.data.address as string;
    await first.stop({ keepData: true });
    const shares = await splitMasterKey((await readMasterKeyFile(path.join(dataDir, 'master.key')))!, 3, 2);
    await rm(path.join(dataDir, 'master.key'));
    for (let i = 0; i < 2; i++) servers.push(await startTestServer({ dataDir, env: { ...env, VAULT_SEAL: 'shamir' } }));
    const [a, b] = servers as [TestServer, TestServer];
    const signAt = (s: TestServer) => client(s.url, apiKey).post(`${base}/sign`, localSignBody(signer));
    await client(a.url).post('/api/v1/sys/unseal', { share: shares[0] });
    expect((await client(a.url).post('/api/v1/sys/unseal', { share: shares[1] })).body.sealed).toBe(false);
    expect((await signAt(a)).status).toBe(200);
    expect((await signAt(b)).body.code).toBe('VAULT_SEALED');
    expect((await client(b.url).get('/api/v1/sys/seal-status')).body).toEqual({ sealed: true, threshold: null, progress: 0 });
  });
});
