import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresDatabase, type PostgresDatabase } from '../../adapters/persistence/postgres/postgres.database.js';
import { SCHEMA_VERSION } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { PostgresJobLock } from '../../adapters/persistence/postgres/postgres.job-lock.js';
import { expectValidChain } from 'wallet-vault/testing';
import { ExpireWallet } from '../../src/application/wallets/expire-wallet.use-case.js';
import { RenameWallet } from '../../src/application/wallets/rename-wallet.use-case.js';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { MovableClock } from '../support/movable-clock.js';
import { createTestDatabase, openTestDatabase, POSTGRES_AVAILABLE, testPostgresConfig } from '../support/postgres.js';
import { anApiKey, anAuditEvent, anIdempotencyRecord, aVault, aWallet } from '../support/wallet-mother.js';
import { SqlAuditLog } from '../../adapters/persistence/sql/sql.audit-log.js';
import { SqlKeyQuarantine } from '../../adapters/persistence/sql/sql.key-quarantine.js';
import { SqlWalletRepository } from '../../adapters/persistence/sql/sql.wallet-repository.js';
import { postgresSql } from '../../adapters/persistence/postgres/postgres.sql.js';
import { ALL_ROLES } from '../../src/domain/api-key-access.js';

/** Two instances (two pools) on one fresh database, dropped afterwards. */
async function withTwoInstances(work: (a: PostgresDatabase, b: PostgresDatabase) => Promise<void>): Promise<void> {
  const first = await openTestDatabase();
  const second = await openPostgresDatabase(testPostgresConfig(first.test.url));
  try {
    await work(first.db, second);
  } finally {
    await second.close();
    await first.cleanup();
  }
}

// The port contract suites run over PostgreSQL (both schemas) in test/contract/ports/ (test/support/sql-dialects.ts); here, what only PostgreSQL does.
describe.skipIf(!POSTGRES_AVAILABLE)('PostgreSQL (a fresh database per test, dropped afterwards)', () => {
  it('job lock: one instance runs a job at a time; a dead session releases it', async () =>
    withTwoInstances(async (a, b) => {
      const lockA = new PostgresJobLock(a);
      const lockB = new PostgresJobLock(b);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      const first = lockA.runExclusive('purge', async () => {
        started();
        await held;
        return 'a';
      });
      await running;
      expect(await lockB.runExclusive('purge', async () => 'b')).toEqual({ ran: false });
      release();
      expect(await first).toEqual({ ran: true, value: 'a' });
      expect(await lockB.runExclusive('purge', async () => 'b')).toEqual({ ran: true, value: 'b' });

      // An instance that dies while holding the lock: its session ends, the lock goes with it.
      const doomed = await openPostgresDatabase(testPostgresConfig(a.config.url!, { poolSize: 1 }));
      let unblock!: () => void;
      const blocked = new Promise<void>((r) => (unblock = r));
      let holding!: () => void;
      const holds = new Promise<void>((r) => (holding = r));
      const stuck = new PostgresJobLock(doomed).runExclusive('sweep', () => {
        holding();
        return blocked;
      });
      // Once the doomed instance runs the job it holds the lock: no polling against a clock.
      await holds;
      expect(await lockB.runExclusive('sweep', async () => 'b')).toEqual({ ran: false });
      const killed = await a.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND classid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [0x6a6f62],
      );
      expect(killed.rowCount).toBe(1);
      // The server ends the killed session asynchronously; a busy machine may take a while.
      await expect.poll(() => lockB.runExclusive('sweep', async () => 'b'), { timeout: 30_000, interval: 100 }).toEqual({ ran: true, value: 'b' });
      unblock();
      expect(await stuck).toEqual({ ran: true, value: undefined });
      await doomed.close();
    }));

  it('audit log: appends from two instances at once form one valid chain', async () =>
    withTwoInstances(async (a, b) => {
      const logA = new SqlAuditLog(postgresSql(a));
      const logB = new SqlAuditLog(postgresSql(b));
      await Promise.all(
        Array.from({ length: 120 }, (_, i) => (i % 2 ? logA : logB).append(anAuditEvent({ actor: `actor-${i}` }))),
      );
      const records = await logB.list({ afterSeq: 0, limit: 1000 });
      expect(records).toHaveLength(120);
      expectValidChain(records);
    }));

  it('idempotency: the same key sent to two instances at once creates one wallet', async () =>
    withTwoInstances(async (a, b) => {
      const repoA = new SqlWalletRepository(postgresSql(a));
      const repoB = new SqlWalletRepository(postgresSql(b));
      const vault = aVault();
      const now = new Date();
      await repoA.ensureAccount(vault.accountId, now);
      await repoA.insertVault(vault);
      for (let i = 0; i < 10; i++) {
        const key = `key-${i}`;
        const results = await Promise.allSettled([
          repoA.insertWallet(aWallet(vault), anIdempotencyRecord(vault, { key, created: now })),
          repoB.insertWallet(aWallet(vault), anIdempotencyRecord(vault, { key, created: now })),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
        expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: ErrorCode.IDEMPOTENCY_CONFLICT });
      }
      expect(await repoB.countWallets(vault.id, now)).toBe(10);
    }));

  it('migrates once when many instances start at once on a fresh database, and again is a no-op', async () => {
    const test = await createTestDatabase();
    try {
      const opened = await Promise.all(Array.from({ length: 6 }, () => openPostgresDatabase(testPostgresConfig(test.url, { poolSize: 1 }))));
      const { rows } = await opened[0]!.query<{ version: number }>('SELECT version FROM wallet_vault_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
      await Promise.all(opened.map((db) => db.close()));
      const again = await openPostgresDatabase(testPostgresConfig(test.url));
      expect((await again.query('SELECT version FROM wallet_vault_migrations')).rowCount).toBe(SCHEMA_VERSION);
      // A newer build migrated it: this one must not write to a schema it does not know.
      await again.query('INSERT INTO wallet_vault_migrations (version) VALUES ($1)', [SCHEMA_VERSION + 1]);
      await again.close();
      await expect(openPostgresDatabase(testPostgresConfig(test.url))).rejects.toMatchObject({
        code: ErrorCode.DATABASE_UNAVAILABLE,
        message: expect.stringMatching(/newer than this build/),
      });
    } finally {
      await test.drop();
    }
  });

  it('gives a database of schema 3 (before the api_keys trigger) the trigger by migration: its changes are announced', async () => {
    const test = await createTestDatabase();
    try {
      const old = await openPostgresDatabase(testPostgresConfig(test.url, { poolSize: 1 }));
      // Back to what a build of schema 3 left: no trigger, no function, no version 4.
      await old.query('DROP TRIGGER api_keys_changed ON api_keys; DROP TRIGGER api_keys_truncated ON api_keys; DROP FUNCTION wallet_vault_api_keys_changed()');
      await old.query('DROP TABLE deployment; DROP TABLE quarantined_keys'); // and migration 5's tables
      await old.query('ALTER TABLE api_keys DROP COLUMN roles, DROP COLUMN allow_cidrs'); // and migration 6's columns
      await old.query('DROP TABLE sign_count_keys; DROP TABLE sign_counts; DROP TABLE request_rates'); // and the sign counts' (7), the request rates' (8)
      await old.query('DROP TABLE approval_votes; DROP TABLE approvals; ALTER TABLE api_keys DROP COLUMN approver_group, DROP COLUMN approver_address;'); // and the approvals' (9)
      await old.query('DROP TABLE webhook_endpoints; DROP TABLE webhook_undeliverable; DROP TABLE webhook_signing_key'); // and the webhooks' (10)
      await old.query('DELETE FROM wallet_vault_migrations WHERE version > 3');
      await old.close();
      const upgraded = await openPostgresDatabase(testPostgresConfig(test.url, { poolSize: 1 }));
      const listener = new pg.Client({ connectionString: test.url });
      await listener.connect();
      try {
        const heard: string[] = [];
        listener.on('notification', (n) => heard.push(n.payload ?? ''));
        await listener.query('LISTEN wallet_vault_api_keys');
        const repo = new SqlWalletRepository(postgresSql(upgraded));
        const vault = aVault();
        await repo.ensureAccount(vault.accountId, new Date());
        await repo.insertVault(vault);
        const key = anApiKey(vault);
        await repo.insertApiKey(key);
        await upgraded.query('DELETE FROM api_keys WHERE id = $1', [key.id]);
        await expect.poll(() => heard).toEqual([key.id, key.id]);
      } finally {
        await listener.end();
        await upgraded.close();
      }
    } finally {
      await test.drop();
    }
  });

  it('gives API keys of a database made before roles every role and no network binding, by migration', async () => {
    const { db, test, cleanup } = await openTestDatabase();
    try {
      const vault = aVault();
      const repo = new SqlWalletRepository(postgresSql(db));
      await repo.ensureAccount(vault.accountId, new Date());
      await repo.insertVault(vault);
      // The schema and the key as the release before roles (schema 5) left them.
      await db.query('DROP TABLE approval_votes; DROP TABLE approvals; ALTER TABLE api_keys DROP COLUMN approver_group, DROP COLUMN approver_address; ALTER TABLE api_keys DROP COLUMN roles, DROP COLUMN allow_cidrs; DROP TABLE sign_count_keys; DROP TABLE sign_counts; DROP TABLE request_rates');
      await db.query('DROP TABLE webhook_endpoints; DROP TABLE webhook_undeliverable; DROP TABLE webhook_signing_key');
      await db.query('DELETE FROM wallet_vault_migrations WHERE version > 5');
      const key = anApiKey(vault);
      await db.query('INSERT INTO api_keys (id, vault_id, secret_hash, created, revoked) VALUES ($1, $2, $3, $4, NULL)', [key.id, vault.id, key.secretHash, key.created]);
      const migrated = await openPostgresDatabase(testPostgresConfig(test.url));
      try {
        expect(await new SqlWalletRepository(postgresSql(migrated)).findApiKey(key.id)).toEqual({ ...key, roles: ['admin', 'signer', 'reader', 'approver'], allowCidrs: null });
      } finally {
        await migrated.close();
      }
    } finally {
      await cleanup();
    }
  });

  it('gives a database made before deployment ids one by migration, once, keeping its data', async () => {
    const { db, test, cleanup } = await openTestDatabase();
    try {
      const vault = aVault();
      await new SqlWalletRepository(postgresSql(db)).ensureAccount(vault.accountId, new Date());
      await new SqlWalletRepository(postgresSql(db)).insertVault(vault);
      // The schema as the release before deployment ids (schema 4) left it; the later migrations run again.
      await db.query('DROP TABLE approval_votes; DROP TABLE approvals; ALTER TABLE api_keys DROP COLUMN approver_group, DROP COLUMN approver_address; DROP TABLE deployment; DROP TABLE quarantined_keys; DROP TABLE sign_count_keys; DROP TABLE sign_counts; DROP TABLE request_rates');
      await db.query('DROP TABLE webhook_endpoints; DROP TABLE webhook_undeliverable; DROP TABLE webhook_signing_key');
      await db.query('ALTER TABLE api_keys DROP COLUMN roles, DROP COLUMN allow_cidrs');
      await db.query('DELETE FROM wallet_vault_migrations WHERE version > 4');
      const migrated = await openPostgresDatabase(testPostgresConfig(test.url));
      const id = await new SqlKeyQuarantine(postgresSql(migrated)).deploymentId();
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(await new SqlWalletRepository(postgresSql(migrated)).findVault(vault.id)).toEqual(vault);
      await migrated.close();
      const reopened = await openPostgresDatabase(testPostgresConfig(test.url));
      expect(await new SqlKeyQuarantine(postgresSql(reopened)).deploymentId()).toBe(id);
      await reopened.close();
    } finally {
      await cleanup();
    }
  });

  it('refuses to open an unreachable database with DATABASE_UNAVAILABLE naming it, never the password', async () => {
    const error = await openPostgresDatabase({
      url: 'postgres://vault:s3cret-pw@127.0.0.1:1/vaultdb',
      poolSize: 1,
      connectTimeoutMs: 1000,
      queryTimeoutMs: 1000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    expect((error as Error).message).toMatch(/PostgreSQL database "vaultdb" on 127\.0\.0\.1:1/);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('two instances on one database: concurrent renames and expires of one wallet lose no update', () =>
    withTwoInstances(async (a, b) => {
      const repoA = new SqlWalletRepository(postgresSql(a));
      const repoB = new SqlWalletRepository(postgresSql(b));
      const clock = new MovableClock();
      const vault = aVault();
      const principal = { apiKeyId: 'k1', vaultId: vault.id, roles: ALL_ROLES };
      await repoA.ensureAccount(vault.accountId, clock.now());
      await repoA.insertVault(vault);
      for (let round = 0; round < 10; round++) {
        const w = aWallet(vault);
        await repoA.insertWallet(w);
        const [renamed, expired] = await Promise.all([
          new RenameWallet(repoA, clock).execute(principal, w.address, `name ${round}`),
          new ExpireWallet(repoB, clock).execute(principal, w.address),
        ]);
        const stored = await repoB.findRecord(w.id);
        expect(stored?.version).toBe(3);
        expect(stored?.name).toBe(`name ${round}`);
        expect(stored?.expires).toEqual(expired.expires);
        expect(renamed.version + expired.version).toBe(5);
      }
      // Both instances' audit records form one chain.
      const trail = await new SqlAuditLog(postgresSql(a)).list({ afterSeq: 0, limit: 100 });
      expect(trail.map((r) => r.action).sort()).toEqual([...Array(10).fill('wallet.expired'), ...Array(10).fill('wallet.renamed')]);
      expectValidChain(trail);
    }));

  it('list pages agree with their total while another instance creates', () =>
    withTwoInstances(async (a, b) => {
      const repoA = new SqlWalletRepository(postgresSql(a));
      const repoB = new SqlWalletRepository(postgresSql(b));
      const vault = aVault();
      const now = new Date('2026-06-01T00:00:00Z');
      await repoA.ensureAccount(vault.accountId, now);
      await repoA.insertVault(vault);
      let created = 0;
      let done = false;
      const writer = (async () => {
        while (created < 300) {
          await Promise.all(Array.from({ length: 4 }, () => repoB.insertWallet(aWallet(vault, { created: new Date(now.getTime() - 1_000_000 + created) }))));
          created += 4;
        }
        done = true;
      })();
      let checks = 0;
      while (!done) {
        const offset = Math.floor(Math.random() * 200);
        const page = await repoA.listWallets(vault.id, now, offset, 50);
        // From one snapshot: a short page means the end of the vault, so the total is exactly what precedes it.
        if (page.page.length === 0) expect(page.count).toBeLessThanOrEqual(offset);
        else if (page.page.length < 50) expect(page.count).toBe(offset + page.page.length);
        else expect(page.count).toBeGreaterThanOrEqual(offset + 50);
        checks++;
      }
      await writer;
      expect(checks).toBeGreaterThan(5);
      expect((await repoA.listWallets(vault.id, now, 0, 1000)).count).toBe(300);
    }));
});
