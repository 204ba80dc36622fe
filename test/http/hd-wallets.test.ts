import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sealKey, seedRefOf } from '../../adapters/keystore/local-file/key-file.js';
import { readMasterKeyFile } from '../../adapters/keystore/local-file/master-key.js';
import { client } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/*
 * HD wallets of the local store, through the real server: `"derivation": "hd"` derives the vault's next
 * index from its BIP-39 seed. The seed of the first vault is the published BIP-39 vector of 32 zero bytes
 * of entropy ("abandon" × 23, "art"; no passphrase), placed in the key directory as the vault would keep it
 * (wrapped under the master key): its Ethereum addresses at m/44'/60'/0'/0/0 and /1 are the published ones
 * (ethers' HDNodeWallet gives the same). The index survives a restart and is never reused.
 */
const VECTOR_ADDRESSES = ['0xF278cF59F82eDcf871d630F28EcC8056f25C1cdb', '0xf785bD075874b8423D3583728a981399f31e95aA'];

const dialects: { name: string; available: boolean }[] = [
  { name: 'SQLite', available: true },
  { name: 'PostgreSQL', available: POSTGRES_AVAILABLE },
];

describe.each(dialects)('HD wallets on $name', ({ name, available }) => {
  let dataDir: string | undefined;
  let db: TestDatabase | undefined;
  let s: TestServer | undefined;
  afterAll(async () => {
    await s?.stop({ keepData: true });
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it.skipIf(!available)('derives the published addresses of the BIP-39 vector at recorded paths, never reusing an index', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-hd-'));
    if (name === 'PostgreSQL') db = await createTestDatabase();
    const env: Record<string, string> = db ? { VAULT_DATABASE_URL: db.url, VAULT_DATABASE_POOL_SIZE: '2' } : {};
    s = await startTestServer({ dataDir, env });
    const vaultId = (await s.createVault({ name: 'hd' })).id;
    const apiKey = (await s.createApiKey(vaultId)).apiKey;
    const base = `/api/v1/vaults/${vaultId}`;
    const api = () => client(s!.url, apiKey);
    const masterKey = (await readMasterKeyFile(path.join(dataDir, 'master.key')))!;
    const seedFile = path.join(dataDir, 'keys', `${seedRefOf(vaultId)}.key`);
    await writeFile(seedFile, sealKey(masterKey, seedRefOf(vaultId), Buffer.alloc(32)), { mode: 0o600 });

    const first = await api().post(`${base}/wallets`, { name: 'hd-0', derivation: 'hd' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ address: VECTOR_ADDRESSES[0], derivationPath: "m/44'/60'/0'/0/0" });
    const second = await api().post(`${base}/wallets`, { name: 'hd-1', derivation: 'hd' });
    expect(second.body.data).toMatchObject({ address: VECTOR_ADDRESSES[1], derivationPath: "m/44'/60'/0'/0/1" });
    const plain = await api().post(`${base}/wallets`, { name: 'plain' });
    expect(plain.body.data.derivationPath).toBeUndefined();
    expect((await api().get(`${base}/wallets/${VECTOR_ADDRESSES[0]}`)).body.data.derivationPath).toBe("m/44'/60'/0'/0/0");

    // A derived wallet signs as any other.
    await s.server.vault.managePolicies.set(vaultId, { messages: true });
    expect((await api().post(`${base}/sign`, localSignBody(VECTOR_ADDRESSES[1]!))).status).toBe(200);

    const bad = await api().post(`${base}/wallets`, { name: 'x', derivation: 'bip32' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^derivation: must be "hd"/);

    // The index is the database's, durable: after a restart the next one is 2 (the 3rd address), not 0 again.
    await s.stop({ keepData: true });
    s = await startTestServer({ dataDir, env });
    const third = await api().post(`${base}/wallets`, { name: 'hd-2', derivation: 'hd' });
    expect(third.body.data.derivationPath).toBe("m/44'/60'/0'/0/2");
    expect(VECTOR_ADDRESSES).not.toContain(third.body.data.address);

    // A vault without a seed gets one generated at its first derived wallet, wrapped, 0600; its own index 0.
    const otherVault = (await s.createVault({ name: 'hd-other' })).id;
    const otherKey = (await s.createApiKey(otherVault)).apiKey;
    const other = await client(s.url, otherKey).post(`/api/v1/vaults/${otherVault}/wallets`, { name: 'fresh', derivation: 'hd' });
    expect(other.body.data.derivationPath).toBe("m/44'/60'/0'/0/0");
    expect(VECTOR_ADDRESSES).not.toContain(other.body.data.address);
    const otherSeed = path.join(dataDir, 'keys', `${seedRefOf(otherVault)}.key`);
    expect((await stat(otherSeed)).mode & 0o777).toBe(0o600);
    expect((await readdir(path.join(dataDir, 'keys'))).filter((f) => f.startsWith('hd-seed-')).length).toBe(2);

    // Recorded with its path; never the seed.
    const trail = await s.server.vault.listAuditRecords.execute({ limit: 1000 });
    const created = trail.filter((r) => r.action === 'wallet.created' && r.details.derivationPath !== undefined);
    expect(created.map((r) => r.details.derivationPath)).toEqual(["m/44'/60'/0'/0/0", "m/44'/60'/0'/0/1", "m/44'/60'/0'/0/2", "m/44'/60'/0'/0/0"]);
    expect(JSON.stringify(trail)).not.toContain((await readFile(otherSeed)).toString('hex').slice(-64));
  });
});
