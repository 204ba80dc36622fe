import { rm } from 'node:fs/promises';
import type { Contract } from 'ethers';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { cliJson, runCli, spawnServer, type ChildServer, migrateStore } from '../support/cli.js';
import { startFakeKms, type FakeKms } from '../support/fake-kms.server.js';
import { client } from '../support/http-client.js';
import { sharedInstanceEnv } from '../support/shared-instances.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';

const UNIQ = `0x${'5e'.repeat(32)}`;
const MINT = (loadArtifact('SignableTarget').abi as { name?: string }[]).find((i) => i.name === 'mint');
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/**
 * Two compiled servers (`wallet-vault serve`, each its own process and data directory) on one fresh
 * PostgreSQL database, with keys in one shared store (AWS KMS, through the tests' KMS-compatible server).
 */
describe.skipIf(!POSTGRES_AVAILABLE)('two instances on one PostgreSQL database', () => {
  let db: TestDatabase;
  let sql: pg.Client;
  let kms: FakeKms;
  let anvil: Anvil;
  const dirs: string[] = [];
  const children: ChildServer[] = [];

  beforeAll(async () => {
    [db, kms, anvil] = await Promise.all([createTestDatabase(), startFakeKms(), startAnvil()]);
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    for (const c of children) await c.kill('SIGTERM').catch(() => undefined);
    await sql?.end();
    await db?.drop();
    await kms?.close();
    await anvil?.stop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  const instanceEnv = async () => ({ ...(await sharedInstanceEnv(db.url, kms, dirs)), VAULT_PURGE_INTERVAL_SECONDS: '1' });
  const count = (operation: string) => kms.calls.filter((c) => c === operation).length;
  /** Moves the expiry of the vault's expiring wallets into the past, as 30 days passing would. */
  const let30DaysPass = (vaultId: string) =>
    sql.query("UPDATE wallets SET expires = now() - interval '1 second' WHERE vault_id = $1 AND expires IS NOT NULL", [vaultId]);
  const expiringLeft = async (vaultId: string) =>
    (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM wallets WHERE vault_id = $1 AND expires IS NOT NULL', [vaultId])).rows[0]!.n;

  it('create on A, sign on B (accepted on anvil), expire on A seen on B, purge once across both, SIGKILL A and B serves on', async () => {
    const cliEnv = await instanceEnv();
    // The operator commands work on the database, while no server runs and while servers run.
    await migrateStore(cliEnv);
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'shared'], cliEnv);
    const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], cliEnv);
    const a = await spawnServer(await instanceEnv());
    children.push(a);
    const b = await spawnServer(await instanceEnv());
    children.push(b);
    const apiA = client(a.url, apiKey);
    const apiB = client(b.url, apiKey);
    const base = `/api/v1/vaults/${vault.id}`;

    const created = await apiA.post(`${base}/wallets`, { name: 'made on A' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const wallet = created.body.data;
    expect((await apiB.get(`${base}/wallets/${wallet.address}`)).body.data).toEqual(wallet);

    const target = await deploy(anvil, 'SignableTarget', [wallet.address, UNIQ]);
    const sender = await anvil.account(1).getAddress();
    const signed = await apiB.post(`${base}/sign`, { chain: 'local', contract: target.target, sender, uniq: UNIQ, signer: wallet.address, abi: MINT, args: [TO, 7] });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const tx = await (target.connect(anvil.account(1)) as Contract).getFunction('mint')(...signed.body.data.args);
    expect((await tx.wait())?.status).toBe(1);
    // The signature B issued is on record for A too.
    expect((await apiA.get(`${base}/submissions/${signed.body.data.submissionHash}`)).status).toBe(200);

    const expired = await apiA.delete(`${base}/wallets/${wallet.address}`);
    expect(expired.status).toBe(200);
    expect(expired.body.data.expires).not.toBeNull();
    expect((await apiB.get(`${base}/wallets/${wallet.address}`)).body.data.expires).toBe(expired.body.data.expires);

    // Both instances run the purge every second. KMS answers slowly, so a run outlasts the interval and
    // the two instances' runs overlap: each key is still destroyed exactly once between them.
    const more = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? apiA : apiB).post(`${base}/wallets`, { name: `doomed ${i}` })));
    for (const [i, r] of more.entries()) expect((await (i % 2 ? apiB : apiA).delete(`${base}/wallets/${r.body.data.address}`)).status).toBe(200);
    expect(count('ScheduleKeyDeletion')).toBe(0);
    kms.latencyMs = 150;
    await let30DaysPass(vault.id);
    await expect.poll(() => expiringLeft(vault.id), { timeout: 20_000 }).toBe(0);
    kms.latencyMs = 0;
    await new Promise((r) => setTimeout(r, 2500)); // two more runs on each instance: nothing more may be destroyed
    expect(count('DisableKey')).toBe(9);
    expect(count('ScheduleKeyDeletion')).toBe(9);
    for (const r of [created, ...more]) expect((await apiB.get(`${base}/wallets/${r.body.data.address}`)).status).toBe(404);

    // A dies without warning (perhaps holding the purge lock: its session ends with it). B serves on.
    expect(await a.kill('SIGKILL')).toBeNull();
    const afterKill = await apiB.post(`${base}/wallets`, { name: 'made on B after A died' });
    expect(afterKill.status).toBe(200);
    const target2 = await deploy(anvil, 'SignableTarget', [afterKill.body.data.address, UNIQ]);
    const signed2 = await apiB.post(`${base}/sign`, { chain: 'local', contract: target2.target, sender, uniq: UNIQ, signer: afterKill.body.data.address, abi: MINT, args: [TO, 1] });
    expect(signed2.status).toBe(200);
    const tx2 = await (target2.connect(anvil.account(1)) as Contract).getFunction('mint')(...signed2.body.data.args);
    expect((await tx2.wait())?.status).toBe(1);
    expect((await apiB.delete(`${base}/wallets/${afterKill.body.data.address}`)).status).toBe(200);
    await let30DaysPass(vault.id);
    await expect.poll(() => expiringLeft(vault.id), { timeout: 15_000 }).toBe(0);
    expect(count('ScheduleKeyDeletion')).toBe(10);

    // Operator commands against the database while B runs: a revoked key is refused by B at once.
    const second = await cliJson<{ apiKey: string; id: string }>(['api-keys', 'create', '--vault', vault.id], cliEnv);
    expect((await client(b.url, second.apiKey).get(`${base}/wallets`)).status).toBe(200);
    expect((await runCli(['api-keys', 'revoke', '--id', second.id], cliEnv)).code).toBe(0);
    expect((await client(b.url, second.apiKey).get(`${base}/wallets`)).status).toBe(401);
    const listed = await cliJson<{ id: string; revoked: string | null }[]>(['api-keys', 'list', '--vault', vault.id], cliEnv);
    expect(listed.map((k) => k.revoked === null)).toEqual([true, false]);

    // Everything both instances and the CLI recorded forms one intact audit chain.
    const verified = await cliJson<{ ok: boolean; records: number }>(['audit', 'verify'], cliEnv);
    expect(verified.ok).toBe(true);
    expect(verified.records).toBeGreaterThan(30);
    const { rows } = await sql.query<{ actions: string[] }>('SELECT array_agg(DISTINCT action) AS actions FROM audit_log');
    expect(rows[0]!.actions).toEqual(expect.arrayContaining(['wallet.created', 'signature.issued', 'wallet.expired', 'wallet.deleted', 'api-key.revoked']));
  }, 120_000);

  it('refuses to start when the database is unreachable: a clear message naming it (never the password) and a non-zero exit', async () => {
    const env = { ...(await instanceEnv()), VAULT_DATABASE_URL: 'postgres://vault:hunter2-secret@127.0.0.1:1/vaultdb', VAULT_DATABASE_CONNECT_TIMEOUT_MS: '500' };
    const r = await runCli(['serve'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/PostgreSQL database "vaultdb" on 127\.0\.0\.1:1 is unavailable/);
    expect(r.stdout + r.stderr).not.toContain('hunter2');
    const cli = await runCli(['vaults', 'list'], env);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toMatch(/PostgreSQL database "vaultdb" on 127\.0\.0\.1:1 is unavailable/);
  });

  it('warns at start that the local key store needs a key directory shared by every instance', async () => {
    const env = { ...(await instanceEnv()), VAULT_KEYSTORE: 'local' };
    const s = await spawnServer(env);
    children.push(s);
    await s.kill('SIGTERM');
    expect(s.output()).toMatch(/VAULT_DATABASE_URL with VAULT_KEYSTORE=local: every instance on this database must share this key directory/);
  });
});
