import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Contract } from 'ethers';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, runCli } from '../support/cli.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { client } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const UNIQ = `0x${'5d'.repeat(32)}`;
const MINT = (loadArtifact('SignableTarget').abi as { name?: string }[]).find((i) => i.name === 'mint');
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/*
 * The restore drill, as a test: wallets of every kind (created, imported, HD-derived) sign calls the
 * Signable contract accepts on anvil; the master key is split 2 of 3 and removed; a backup is taken with
 * two shares; the data directory is destroyed; the backup is restored on a new data directory (SQLite)
 * and into a new PostgreSQL database with two other shares; each restored server starts sealed, signs
 * nothing with one share, and after the second every wallet signs again, accepted on-chain, with the
 * audit chain intact. An altered backup, another key and a non-empty target are refused.
 */
describe('backup and restore: the drill', { timeout: 600_000 }, () => {
  let anvil: Anvil;
  const dirs: string[] = [];
  const servers: TestServer[] = [];
  let db: TestDatabase | undefined;

  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    for (const s of servers) await s.stop({ keepData: true }).catch(() => undefined);
    await db?.drop();
    await anvil?.stop();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  const tempDir = async (prefix: string) => {
    const dir = await mkdtemp(path.join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  /** Signs a mint with `signer` and sends it: the contract (which checks the vault signature) accepts it or the call reverts. */
  async function signAndSend(url: string, vaultId: string, apiKey: string, signer: string): Promise<{ status: number; code?: string; mined?: number | null }> {
    const target = await deploy(anvil, 'SignableTarget', [signer, UNIQ]);
    const sender = await anvil.account(1).getAddress();
    const r = await client(url, apiKey).post(`/api/v1/vaults/${vaultId}/sign`, { chain: 'local', contract: target.target, sender, uniq: UNIQ, signer, abi: MINT, args: [TO, 1] });
    if (r.status !== 200) return { status: r.status, code: r.body?.code };
    const tx = await (target.connect(anvil.account(1)) as Contract).getFunction('mint')(...r.body.data.args);
    return { status: 200, mined: (await tx.wait())?.status };
  }

  async function unseal(url: string, shareFile: string) {
    const r = await client(url).post('/api/v1/sys/unseal', { share: await readFile(shareFile, 'utf8') });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { sealed: boolean; threshold: number; progress: number };
  }

  it('restores every wallet on a new data directory and into PostgreSQL; M of N shares unseal, M-1 sign nothing; altered backups are refused', async () => {
    // 1. A vault with a created, an imported and an HD wallet, each signing.
    const source = await tempDir('wallet-vault-drill-a-');
    const s = await startTestServer({ dataDir: source });
    servers.push(s);
    const vaultId = (await s.createVault({ name: 'drill' })).id;
    const apiKey = (await s.createApiKey(vaultId)).apiKey;
    const api = client(s.url, apiKey);
    const plain = (await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'plain' })).body.data.address as string;
    const hd = await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'hd', derivation: 'hd' });
    expect(hd.status, JSON.stringify(hd.body)).toBe(200);
    const derived = hd.body.data.address as string;
    const keyFile = path.join(source, 'import.key');
    const imported = Wallet.createRandom();
    await writeFile(keyFile, imported.privateKey.slice(2), { mode: 0o600 });
    const env = { VAULT_DATA_DIR: source };
    const importedAddress = (await cliJson<{ address: string }>(['keys', 'import', '--vault', vaultId, '--name', 'imported', '--private-key-file', keyFile], env)).address;
    expect(importedAddress.toLowerCase()).toBe(imported.address.toLowerCase());
    const wallets = [plain, derived, importedAddress];
    for (const w of wallets) expect(await signAndSend(s.url, vaultId, apiKey, w), w).toEqual({ status: 200, mined: 1 });
    await s.stop({ keepData: true });
    servers.splice(servers.indexOf(s), 1);

    // 2. The master key split 2 of 3 and removed; the backup taken with two custodians' shares.
    const shares = path.join(await tempDir('wallet-vault-drill-shares-'), 'shares');
    expect((await runCli(['master-key', 'split', '--shares', '3', '--threshold', '2', '--out-dir', shares], env)).code).toBe(0);
    const share = (i: number) => path.join(shares, `share-${i}.json`);
    await rm(path.join(source, 'master.key'));
    const backupFile = path.join(await tempDir('wallet-vault-drill-backup-'), 'vault.backup');
    const sealedEnv = { ...env, VAULT_SEAL: 'shamir' };
    const short = await runCli(['backup', 'create', '--out', backupFile, '--share-file', share(1), '--json'], sealedEnv);
    expect(short.code).toBe(1);
    expect(JSON.parse(short.stderr)).toMatchObject({ code: 'SHARES_SHORT' });
    const created = await cliJson<{ backup: string; rows: number; keyFiles: number; auditHead: { seq: number; hash: string } }>(['backup', 'create', '--out', backupFile, '--share-file', share(1), '--share-file', share(2)], sealedEnv);
    // Three key files, the HD seed, the check value and the split.
    expect(created.keyFiles).toBe(6);
    expect((await stat(backupFile)).mode & 0o777).toBe(0o600);
    const bytes = await readFile(backupFile);
    const header = JSON.parse(bytes.subarray(0, bytes.indexOf(0x0a)).toString('utf8')) as Record<string, unknown>;
    expect(header).toMatchObject({ format: 'wallet-vault backup', version: 1, cipher: 'AES-256-GCM', kdf: 'HKDF-SHA256', dialect: 'sqlite', backup: created.backup });
    // Encrypted: no address, name or key file content in clear.
    expect(bytes.includes(Buffer.from(plain.slice(2).toLowerCase()))).toBe(false);
    expect(bytes.includes(Buffer.from('drill'))).toBe(false);
    expect((await runCli(['backup', 'create', '--out', backupFile, '--share-file', share(1), '--share-file', share(2)], sealedEnv)).stderr).toMatch(/already exists/);

    // 3. The data directory destroyed.
    await rm(source, { recursive: true, force: true });

    // Refusals before anything is written: an altered byte (body or header), a cut, another key.
    const tampered = path.join(path.dirname(backupFile), 'tampered.backup');
    const target = await tempDir('wallet-vault-drill-b-');
    const restoreEnv = { VAULT_DATA_DIR: target };
    for (const [what, altered] of [
      ['a byte of the ciphertext', flip(bytes, bytes.length - 40)],
      ['a byte of the header', Buffer.from(bytes.toString('latin1').replace('"dialect":"sqlite"', '"dialect":"sqlitf"'), 'latin1')],
      ['the tag cut off', bytes.subarray(0, bytes.length - 16)],
    ] as const) {
      await writeFile(tampered, altered);
      const r = await runCli(['backup', 'restore', '--file', tampered, '--share-file', share(2), '--share-file', share(3), '--json'], restoreEnv);
      expect(r.code, what).toBe(1);
      expect(JSON.parse(r.stderr), what).toMatchObject({ code: 'BACKUP_ALTERED' });
      expect(JSON.parse(r.stderr).error).toMatch(/the backup was altered/);
    }
    const wrongKey = await runCli(['backup', 'restore', '--file', backupFile, '--json'], { ...restoreEnv, VAULT_MASTER_KEY: randomBytes(32).toString('hex') });
    expect(JSON.parse(wrongKey.stderr)).toMatchObject({ code: 'BACKUP_WRONG_KEY' });
    await writeFile(tampered, 'not a backup\n');
    expect(JSON.parse((await runCli(['backup', 'restore', '--file', tampered, '--share-file', share(2), '--share-file', share(3), '--json'], restoreEnv)).stderr)).toMatchObject({ code: 'BACKUP_INVALID' });
    const nothing = await runCli(['audit', 'verify'], restoreEnv);
    expect(nothing.stderr).toMatch(/holds no vault\.db/);

    // 4. Restored on a new data directory (SQLite), then into PostgreSQL, each with two other shares.
    const restored = await cliJson<{ into: string; auditVerified: { records: number; head: { seq: number } } }>(['backup', 'restore', '--file', backupFile, '--share-file', share(2), '--share-file', share(3)], restoreEnv);
    expect(restored.into).toBe('sqlite');
    expect(restored.auditVerified.head.seq).toBe(created.auditHead.seq + 1);
    const again = await runCli(['backup', 'restore', '--file', backupFile, '--share-file', share(2), '--share-file', share(3), '--json'], restoreEnv);
    expect(JSON.parse(again.stderr)).toMatchObject({ code: 'RESTORE_TARGET_NOT_EMPTY' });
    const verify = await runCli(['audit', 'verify'], restoreEnv);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/audit chain intact/);

    const targets: { name: string; env: Record<string, string>; shares: [number, number] }[] = [{ name: 'SQLite', env: {}, shares: [3, 1] }];
    if (POSTGRES_AVAILABLE) {
      db = await createTestDatabase();
      const pgDir = await tempDir('wallet-vault-drill-pg-');
      const pgEnv = { VAULT_DATABASE_URL: db.url, VAULT_DATABASE_POOL_SIZE: '2' };
      const intoPostgres = await cliJson<{ from: string; into: string }>(['backup', 'restore', '--file', backupFile, '--share-file', share(1), '--share-file', share(3)], { VAULT_DATA_DIR: pgDir, ...pgEnv });
      expect(intoPostgres).toMatchObject({ from: 'sqlite', into: 'postgres' });
      expect((await runCli(['audit', 'verify'], { VAULT_DATA_DIR: pgDir, ...pgEnv })).code).toBe(0);
      targets.push({ name: 'PostgreSQL', env: { ...pgEnv, dir: pgDir }, shares: [2, 1] });
    }

    for (const t of targets) {
      const { dir, ...env2 } = t.env;
      const r = await startTestServer({ dataDir: dir ?? target, env: { ...env2, VAULT_SEAL: 'shamir' } });
      servers.push(r);
      const rapi = client(r.url, apiKey);
      // Same wallets, same addresses, the same API key.
      const page = await rapi.get(`/api/v1/vaults/${vaultId}/wallets?offset=0&count=10`);
      expect(page.status, t.name).toBe(200);
      expect(page.body.data.page.map((w: { address: string }) => w.address).sort(), t.name).toEqual([...wallets].sort());
      expect(page.body.data.page.find((w: { address: string }) => w.address === derived).derivationPath, t.name).toBe("m/44'/60'/0'/0/0");
      // Sealed: nothing signs; with M-1 shares still nothing.
      for (const w of wallets) expect(await signAndSend(r.url, vaultId, apiKey, w), `${t.name} sealed`).toEqual({ status: 503, code: 'VAULT_SEALED' });
      expect(await unseal(r.url, share(t.shares[0]))).toEqual({ sealed: true, threshold: 2, progress: 1 });
      for (const w of wallets) expect(await signAndSend(r.url, vaultId, apiKey, w), `${t.name} M-1`).toEqual({ status: 503, code: 'VAULT_SEALED' });
      expect(await unseal(r.url, share(t.shares[1]))).toEqual({ sealed: false, threshold: 2, progress: 0 });
      for (const w of wallets) expect(await signAndSend(r.url, vaultId, apiKey, w), `${t.name} ${w}`).toEqual({ status: 200, mined: 1 });
      // The trail carries on from the backup's: its records, then the restore, then today's.
      const trail = await r.server.vault.listAuditRecords.execute({ limit: 1000 });
      const restoredRecord = trail.find((x) => x.action === 'backup.restored');
      expect(restoredRecord?.details, t.name).toMatchObject({ backup: created.backup, from: 'sqlite', auditSeq: created.auditHead.seq, auditHash: created.auditHead.hash });
      expect(restoredRecord!.seq).toBe(created.auditHead.seq + 1);
      expect(trail.filter((x) => x.action === 'signature.issued' && x.seq <= created.auditHead.seq)).toHaveLength(3);
      expect((await r.server.vault.verifyAuditChain.execute()).ok, t.name).toBe(true);
      await r.stop({ keepData: true });
      servers.splice(servers.indexOf(r), 1);
    }

    // And back: a backup of the PostgreSQL vault (signatures since the restore included) restored into SQLite.
    const pg = targets.find((t) => t.name === 'PostgreSQL');
    if (pg) {
      const { dir, ...pgEnv } = pg.env;
      const second = path.join(path.dirname(backupFile), 'from-postgres.backup');
      const fromPg = await cliJson<{ dialect: string; rows: number }>(['backup', 'create', '--out', second, '--share-file', share(3), '--share-file', share(2)], { VAULT_DATA_DIR: dir!, ...pgEnv, VAULT_SEAL: 'shamir' });
      expect(fromPg.dialect).toBe('postgres');
      const sqliteDir = await tempDir('wallet-vault-drill-c-');
      const intoSqlite = await cliJson<{ from: string; into: string; rows: number }>(['backup', 'restore', '--file', second, '--share-file', share(1), '--share-file', share(2)], { VAULT_DATA_DIR: sqliteDir });
      expect(intoSqlite).toMatchObject({ from: 'postgres', into: 'sqlite', rows: fromPg.rows });
      const verified = await runCli(['audit', 'verify'], { VAULT_DATA_DIR: sqliteDir });
      expect(verified.code, verified.stderr).toBe(0);
      const back = await startTestServer({ dataDir: sqliteDir, env: { VAULT_SEAL: 'shamir' } });
      servers.push(back);
      await unseal(back.url, share(1));
      await unseal(back.url, share(3));
      for (const w of wallets) expect(await signAndSend(back.url, vaultId, apiKey, w), `postgres → SQLite ${w}`).toEqual({ status: 200, mined: 1 });
    }
  });
});

function flip(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

