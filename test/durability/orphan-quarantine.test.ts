import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hexlify, recoverAddress } from 'ethers';
import SqliteFile from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { KEY_STORE_REGISTRY, WALLET_REPOSITORY } from '../../adapters/main/tokens.js';
import { createVault, type Vault } from '../../adapters/main/create-vault.js';
import { LocalFileKeyStore } from '../../adapters/keystore/local-file/local-file.key-store.js';
import { Pkcs11KeyStore } from '../../adapters/keystore/pkcs11/pkcs11.key-store.js';
import { PrometheusMetrics } from '../../adapters/metrics/prometheus.metrics.js';
import { postgresPersistence } from '../../adapters/persistence/postgres/index.js';
import { sqlitePersistence } from '../../adapters/persistence/sqlite/index.js';
import type { Principal } from '../../src/application/access/authenticate.use-case.js';
import type { KeyStore, KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import type { WalletRepository } from '../../src/ports/wallet-repository.port.js';
import { runCli } from '../support/cli.js';
import { MovableClock } from '../support/movable-clock.js';
import { createTestDatabase, POSTGRES_ADMIN_URL, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { sample } from '../support/prometheus-sample.js';
import { createSoftHsmToken, SOFTHSM_MODULE } from '../support/softhsm.js';

/** Past the sweep's 10-minute grace: every key made so far counts as old. */
const PAST_GRACE_MS = 11 * 60_000;
const MASTER_KEY_HEX = 'ab'.repeat(32);

/**
 * One database of either dialect, and `env`, the CLI's configuration of it (its data directory holds the
 * key directory). `backup()` takes a copy now (the vault on it closed), whose `restore()` puts it back in
 * place, as an operator restoring last night's backup does.
 */
interface Database {
  open(): Promise<Persistence>;
  backup(): Promise<{ restore(): Promise<void> }>;
  readonly env: Record<string, string>;
}

const scratch: string[] = [];
const dropAfter: TestDatabase[] = [];
afterAll(async () => {
  await Promise.all(dropAfter.map((d) => d.drop()));
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-quarantine-'));
  scratch.push(dir);
  return dir;
}

function sqliteDatabase(dataDir: string): Database {
  const file = path.join(dataDir, 'vault.db');
  return {
    open: () => sqlitePersistence({ path: file }),
    backup: async () => {
      const copy = path.join(await tempDir(), 'vault.db');
      await copyFile(file, copy);
      return {
        restore: async () => {
          for (const f of [`${file}-wal`, `${file}-shm`]) await rm(f, { force: true });
          await copyFile(copy, file);
        },
      };
    },
    env: { VAULT_DATA_DIR: dataDir },
  };
}

/** A backup is `CREATE DATABASE … TEMPLATE`, a restore the database dropped and made again from it. */
async function postgresDatabase(dataDir: string): Promise<Database> {
  const live = await createTestDatabase();
  dropAfter.push(live);
  return {
    open: () => postgresPersistence({ connectionString: live.url, poolSize: 2 }),
    backup: async () => {
      const copy = await createTestDatabase();
      dropAfter.push(copy);
      await admin(`DROP DATABASE ${copy.name}`);
      await admin(`CREATE DATABASE ${copy.name} TEMPLATE ${live.name}`);
      return {
        restore: async () => {
          await admin(`DROP DATABASE ${live.name} WITH (FORCE)`);
          await admin(`CREATE DATABASE ${live.name} TEMPLATE ${copy.name}`);
        },
      };
    },
    env: { VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: live.url },
  };
}

/** Plain SQL on the database of `db`, as a database writer has it. */
async function writersSql(db: Database, text: string, params: unknown[]): Promise<void> {
  if (db.env.VAULT_DATABASE_URL === undefined) {
    const file = new SqliteFile(path.join(db.env.VAULT_DATA_DIR!, 'vault.db'));
    try {
      file.prepare(text.replace(/\$\d+/g, '?')).run(...params);
    } finally {
      file.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: db.env.VAULT_DATABASE_URL });
  await client.connect();
  try {
    await client.query(text, params);
  } finally {
    await client.end();
  }
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const DIALECTS = [
  { dialect: 'sqlite', available: true, make: async (dataDir: string) => sqliteDatabase(dataDir) },
  { dialect: 'postgres', available: POSTGRES_AVAILABLE, make: postgresDatabase },
] as const;

const localStore = (keysDir: string) => new LocalFileKeyStore({ keysDir, masterKey: Buffer.from(MASTER_KEY_HEX, 'hex') });

/** A vault on `db` with `store`, its clock movable, its jobs run only when the test says. */
async function openVault(db: Database, store: KeyStore, extra: { metrics?: PrometheusMetrics } = {}): Promise<{ vault: Vault; clock: MovableClock }> {
  const clock = new MovableClock();
  const vault = await createVault({ persistence: await db.open(), keyStores: [store], clock, jobs: false, jobMetrics: extra.metrics });
  return { vault, clock };
}

async function walletsIn(vault: Vault, vaultId: string | undefined, count: number): Promise<{ vaultId: string; addresses: string[] }> {
  const id = vaultId ?? (await vault.manageVaults.create({ name: 'quarantine' })).id;
  const principal: Principal = await vault.authenticate.execute((await vault.manageVaults.createApiKey(id)).apiKey, id);
  const addresses: string[] = [];
  for (let i = 0; i < count; i++) addresses.push((await vault.createWallet.execute({ principal, name: `w${i}` })).address);
  return { vaultId: id, addresses };
}

/** Signs a random digest with the key of the vault's wallet record, and recovers the signer. */
async function signerOf(vault: Vault, vaultId: string, address: string): Promise<string> {
  const wallet = await vault.container.get<WalletRepository>(WALLET_REPOSITORY).findWallet(vaultId, address, new Date());
  if (!wallet) throw new Error(`no wallet ${address} in vault ${vaultId}`);
  const digest = randomBytes(32);
  const sig = await vault.container.get<KeyStoreRegistry>(KEY_STORE_REGISTRY).get(wallet.keyStore).sign(wallet.keyRef, digest);
  return recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v });
}

const keyFiles = async (keysDir: string) => (await readdir(keysDir)).filter((n) => n.endsWith('.key')).sort();
const auditActions = async (vault: Vault) => (await vault.listAuditRecords.execute({ afterSeq: 0, limit: 1000 })).map((r) => r.action);

describe.each(DIALECTS)('the orphan-key sweep on $dialect', ({ dialect, available, make }) => {
  it.skipIf(!available)('a new empty database on the same key directory keeps every key (another deployment\'s, and ones carrying none)', async () => {
    const dataDir = await tempDir();
    const keysDir = path.join(dataDir, 'keys');
    const first = await make(dataDir);
    const a = await openVault(first, localStore(keysDir));
    const { vaultId, addresses } = await walletsIn(a.vault, undefined, 4);
    await a.vault.close();
    // A key an older release wrote: it carries no deployment at all.
    const legacy = await localStore(keysDir).create();
    const before = await keyFiles(keysDir);
    expect(before).toHaveLength(5);

    const second = await make(await tempDir());
    const b = await openVault(second, localStore(keysDir));
    expect(b.vault.deploymentId).not.toBe(a.vault.deploymentId);
    b.clock.advance(PAST_GRACE_MS);
    await b.vault.runJobsOnce();
    expect(await b.vault.sweepOrphanKeys.execute()).toEqual({ quarantined: 0, held: 0 });
    expect(await keyFiles(keysDir)).toEqual(before);
    expect(await b.vault.manageQuarantine.list()).toEqual([]);
    expect(await auditActions(b.vault)).not.toContain('key.quarantined');
    await b.vault.close();

    const again = await openVault(first, localStore(keysDir));
    for (const address of addresses) expect(await signerOf(again.vault, vaultId, address)).toBe(address);
    await again.vault.close();
    expect(before).toContain(`${legacy.keyRef}.key`);
  });

  it.skipIf(!available)('a database restored from a backup quarantines the newer keys; restored by the CLI, they sign again', async () => {
    const dataDir = await tempDir();
    const keysDir = path.join(dataDir, 'keys');
    const db = await make(dataDir);
    const first = await openVault(db, localStore(keysDir));
    const { vaultId, addresses: older } = await walletsIn(first.vault, undefined, 2);
    await first.vault.close();
    const backup = await db.backup();

    const second = await openVault(db, localStore(keysDir));
    const { addresses: newer } = await walletsIn(second.vault, vaultId, 2);
    await second.vault.close();
    expect(await keyFiles(keysDir)).toHaveLength(4);

    // The operator restores last night's backup and starts the service on it.
    await backup.restore();
    const metrics = new PrometheusMetrics({ version: 'test', processMetrics: false });
    const restored = await openVault(db, localStore(keysDir), { metrics });
    expect(restored.vault.deploymentId).toBe(second.vault.deploymentId);
    restored.clock.advance(PAST_GRACE_MS);
    await restored.vault.runJobsOnce();
    await restored.vault.runJobsOnce(); // a second run neither quarantines nor records anything again

    expect(await keyFiles(keysDir)).toHaveLength(4);
    const held = await restored.vault.manageQuarantine.list();
    expect(held.map((k) => k.address).sort()).toEqual(newer.map((a) => a.toLowerCase()).sort());
    expect(held.every((k) => k.keyStore === 'local' && k.vaultId === vaultId)).toBe(true);
    const trail = await restored.vault.listAuditRecords.execute({ afterSeq: 0, limit: 1000 });
    const quarantined = trail.filter((r) => r.action === 'key.quarantined');
    expect(quarantined.map((r) => r.subject).sort()).toEqual([...newer].sort());
    expect(quarantined.every((r) => r.actor === 'system' && r.vaultId === vaultId)).toBe(true);
    const text = (await metrics.exposition()).text;
    expect(sample(text, 'wallet_vault_quarantined_keys')).toBe(2);
    expect(sample(text, 'wallet_vault_keys_quarantined_total')).toBe(2);
    // Not signable while held: no wallet names the key.
    expect(await restored.vault.container.get<WalletRepository>(WALLET_REPOSITORY).findWallet(vaultId, newer[0]!, new Date())).toBeNull();
    await restored.vault.close();

    const env = { ...db.env, VAULT_MASTER_KEY: MASTER_KEY_HEX };
    const listed = await runCli(['keys', 'quarantine', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { address: string }[]).map((k) => k.address).sort()).toEqual(newer.map((a) => a.toLowerCase()).sort());
    for (const address of newer) {
      const r = await runCli(['keys', 'quarantine', 'restore', address, '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ address, vault: vaultId, keyStore: 'local' });
    }
    const twice = await runCli(['keys', 'quarantine', 'restore', newer[0]!, '--json'], env);
    expect(twice.code).toBe(1);
    expect(JSON.parse(twice.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'WALLET_NOT_FOUND' });

    const after = await openVault(db, localStore(keysDir));
    for (const address of [...older, ...newer]) expect(await signerOf(after.vault, vaultId, address)).toBe(address);
    expect(await after.vault.manageQuarantine.list()).toEqual([]);
    expect((await auditActions(after.vault)).filter((a) => a === 'key.restored')).toHaveLength(2);
    expect((await after.vault.verifyAuditChain.execute()).ok).toBe(true);
    await after.vault.close();
  });

  it.skipIf(!available)("attack: a quarantined key's row pointed at the writer's vault by SQL: restore asks the key store, refuses the row's vault, and restores only into the vault the store records", async () => {
    const dataDir = await tempDir();
    const db = await make(dataDir);
    const { vault, clock } = await openVault(db, localStore(path.join(dataDir, 'keys')));
    const { id: treasury } = await vault.manageVaults.create({ name: 'treasury' });
    const { id: evil } = await vault.manageVaults.create({ name: 'evil' });
    const orphan = await vault.container.get<KeyStoreRegistry>(KEY_STORE_REGISTRY).default.create({
      accountId: 'default',
      vaultId: treasury,
      walletId: 'never-committed',
      deploymentId: vault.deploymentId!,
    });
    clock.advance(PAST_GRACE_MS);
    expect(await vault.sweepOrphanKeys.execute()).toEqual({ quarantined: 1, held: 1 });
    await writersSql(db, 'UPDATE quarantined_keys SET vault_id = $1', [evil]);
    expect((await vault.manageQuarantine.list())[0]!.vaultId).toBe(evil);

    const refused = (input: { vaultId?: string }) => vault.manageQuarantine.restore({ address: orphan.keyRef, ...input }).then(() => null, (e: { code: string; message: string }) => e);
    expect(await refused({})).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/quarantine record names vault \S+, but the key store records vault \S+ for it: a change made in the database; nothing was restored/) });
    expect(await refused({ vaultId: evil })).toMatchObject({ code: 'INVALID_ARGUMENT', message: `vault: this key was created for vault ${treasury}, not ${evil}` });
    expect(await vault.manageQuarantine.list()).toHaveLength(1);
    const restored = await vault.manageQuarantine.restore({ address: orphan.keyRef, vaultId: treasury });
    expect(restored.vaultId).toBe(treasury);
    expect(await signerOf(vault, treasury, restored.address)).toBe(restored.address);
    await vault.close();
  });

  it.skipIf(!available)('destroys a quarantined key only when the operator says so, and records it', async () => {
    const dataDir = await tempDir();
    const keysDir = path.join(dataDir, 'keys');
    const db = await make(dataDir);
    const { vault, clock } = await openVault(db, localStore(keysDir));
    // A crash between the key's creation and its record: the key of this deployment, no wallet.
    const orphan = await vault.container.get<KeyStoreRegistry>(KEY_STORE_REGISTRY).default.create({
      accountId: 'default',
      vaultId: 'some-vault',
      walletId: 'never-committed',
      deploymentId: vault.deploymentId!,
    });
    clock.advance(PAST_GRACE_MS);
    expect(await vault.sweepOrphanKeys.execute()).toEqual({ quarantined: 1, held: 1 });
    expect(await keyFiles(keysDir)).toEqual([`${orphan.keyRef}.key`]);
    const destroyed = await vault.manageQuarantine.destroy({ address: orphan.keyRef });
    expect(destroyed.address).toBe(orphan.keyRef);
    expect(await keyFiles(keysDir)).toEqual([]);
    expect(await vault.manageQuarantine.list()).toEqual([]);
    expect(await auditActions(vault)).toEqual(['key.quarantined', 'key.destroyed']);
    expect((await vault.verifyAuditChain.execute()).ok).toBe(true);
    await vault.close();
  });
});

describe.each(DIALECTS)('two deployments on $dialect sharing one SoftHSM2 token', ({ available, make }) => {
  it.skipIf(!available || !SOFTHSM_MODULE)("neither quarantines nor destroys the other's key; both still sign", async () => {
    const token = createSoftHsmToken(`shared-${randomBytes(4).toString('hex')}`);
    const deployments = [];
    for (let i = 0; i < 2; i++) {
      const opened = await openVault(await make(await tempDir()), new Pkcs11KeyStore(token));
      deployments.push({ ...opened, ...(await walletsIn(opened.vault, undefined, 1)) });
    }
    expect(deployments[0]!.vault.deploymentId).not.toBe(deployments[1]!.vault.deploymentId);
    for (const d of deployments) {
      d.clock.advance(PAST_GRACE_MS);
      await d.vault.runJobsOnce();
      expect(await d.vault.sweepOrphanKeys.execute()).toEqual({ quarantined: 0, held: 0 });
    }
    for (const d of deployments) {
      expect(await signerOf(d.vault, d.vaultId, d.addresses[0]!)).toBe(d.addresses[0]);
      expect(await auditActions(d.vault)).not.toContain('key.quarantined');
    }
    for (const d of deployments) await d.vault.close();
  });
});

