import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { SCHEMA_VERSION } from '../../adapters/persistence/sqlite/sqlite.migration-steps.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { aSignatureRecord, anApiKey, anAuditEvent, aVault, aWallet } from '../support/wallet-mother.js';
import { expectValidChain } from 'wallet-vault/testing';
import { SqlAuditLog } from '../../adapters/persistence/sql/sql.audit-log.js';
import { SqlKeyQuarantine } from '../../adapters/persistence/sql/sql.key-quarantine.js';
import { SqlSignCounter } from '../../adapters/persistence/sql/sql.sign-counter.js';
import { SqlSignatureLog } from '../../adapters/persistence/sql/sql.signature-log.js';
import { SqlWalletRepository } from '../../adapters/persistence/sql/sql.wallet-repository.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';

/** A signature record whose insert the database refuses (wallet_address is NOT NULL): a bad write in a batch. */
const UNSTORABLE = { ...aSignatureRecord(1_000), walletAddress: null as unknown as string };

const tempDir = () => mkdtemp(path.join(tmpdir(), 'wallet-vault-sqlite-'));

/** Recorded as a build of schema `version` left it (its later tables dropped by the caller): the later migrations are not recorded. */
function backTo(db: SqliteDatabase, version: number): void {
  db.prepare('DELETE FROM wallet_vault_migrations WHERE version > ?').run(version);
  db.pragma(`user_version = ${version}`);
}

/** A fresh database in its own directory, removed by cleanup. */
async function withDatabase<T extends object>(build: (db: SqliteDatabase) => T): Promise<T & { cleanup(): Promise<void> }> {
  const dir = await tempDir();
  const db = openSqliteDatabase({ path: path.join(dir, 'vault.db') });
  return {
    ...build(db),
    cleanup: async () => {
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// The port contract suites run over SQLite in test/contract/ports/ (test/support/sql-dialects.ts); here, what only SQLite does.
describe('sqlite specifics', () => {
  it('sweeps sign counts and their keys once no window can hold them (31 days), also by itself from a take', async () => {
    const { db, cleanup } = await withDatabase((db) => ({ db }));
    try {
      const counter = new SqlSignCounter(sqliteSql(db), 0);
      const rows = () => db.prepare('SELECT (SELECT count(*) FROM sign_counts) AS counts, (SELECT count(*) FROM sign_count_keys) AS keys').get();
      const t0 = new Date('2026-06-01T00:00:00Z');
      const day = 86_400_000;
      await counter.take([{ key: 'old', max: 5, windowMs: day, label: 'a limit' }], t0);
      await counter.take([{ key: 'kept', max: 5, windowMs: day, label: 'a limit' }], new Date(t0.getTime() + 2 * day));
      expect(rows()).toEqual({ counts: 2, keys: 2 });
      expect(await counter.sweep(new Date(t0.getTime() + 31 * day))).toBe(1);
      expect(rows()).toEqual({ counts: 1, keys: 1 });
      // In service the sweep runs from a take after its interval (here 0): the 'kept' rows go too.
      await counter.take([{ key: 'new', max: 5, windowMs: day, label: 'a limit' }], new Date(t0.getTime() + 40 * day));
      await expect.poll(rows).toEqual({ counts: 1, keys: 1 });
    } finally {
      await cleanup();
    }
  });

  it('finds and attaches a signature through the short index on its hash, never by reading the whole table', async () => {
    const { db, cleanup } = await withDatabase((db) => ({ db }));
    try {
      const statements: string[] = [];
      const prepare = db.prepare.bind(db);
      db.prepare = ((source: string) => (statements.push(source), prepare(source))) as typeof db.prepare;
      const signatures = new SqlSignatureLog(sqliteSql(db));
      const record = aSignatureRecord(1);
      await signatures.record(record);
      await signatures.find(record.vaultId, record.submissionHash);
      await signatures.attachTransaction(record.vaultId, record.submissionHash, `0x${'a'.repeat(64)}`, new Date());
      // The sign's insert asks it first too: it keeps the hash unique, which the index does not.
      const lookups = statements.filter((s) => /^(SELECT .* FROM|UPDATE) signatures\b/s.test(s));
      expect(lookups).toHaveLength(3);
      for (const lookup of lookups) {
        const params = new Array<null>(lookup.split('?').length - 1).fill(null);
        const plan = (prepare(`EXPLAIN QUERY PLAN ${lookup}`).all(params) as { detail: string }[]).map((r) => r.detail).join('; ');
        expect(plan, lookup).toContain('SEARCH signatures USING INDEX signatures_by_hash (<expr>=?)');
        expect(plan, lookup).not.toContain('SCAN signatures');
      }
    } finally {
      await cleanup();
    }
  });

  it('migrates the signatures of a database made before the short hash index: each is found and attached as before', async () => {
    const dir = await tempDir();
    try {
      const file = path.join(dir, 'vault.db');
      const db = openSqliteDatabase({ path: file });
      // The table as migration 1 made it (the submission hash its primary key), with rows in it, at schema 9.
      db.exec(`DROP TABLE signatures;
        CREATE TABLE signatures (submission_hash TEXT PRIMARY KEY, vault_id TEXT NOT NULL, wallet_id TEXT NOT NULL, wallet_address TEXT NOT NULL,
          chain TEXT NOT NULL, contract TEXT NOT NULL, sender TEXT NOT NULL, selector TEXT NOT NULL, created INTEGER NOT NULL, transaction_hash TEXT, submitted INTEGER);
        ALTER TABLE api_keys DROP COLUMN approver_address; ALTER TABLE wallets DROP COLUMN binding; ALTER TABLE approval_votes DROP COLUMN signature; ALTER TABLE approvals DROP COLUMN simulation; ALTER TABLE approvals DROP COLUMN seal;
        ALTER TABLE approvals DROP COLUMN blocked_by; ALTER TABLE approvals DROP COLUMN blocked_code; ALTER TABLE approvals DROP COLUMN blocked_message; ALTER TABLE approvals DROP COLUMN blocked_at; DROP TABLE key_exports; ALTER TABLE wallets DROP COLUMN exported; DROP TABLE operators; ALTER TABLE wallets DROP COLUMN derivation_path; DROP TABLE hd_indexes; DROP TABLE audit_stream_cursors; ALTER TABLE api_keys DROP COLUMN label; ALTER TABLE api_keys DROP COLUMN expires; ALTER TABLE api_keys DROP COLUMN replaced_by; ALTER TABLE api_keys DROP COLUMN overlap_ends; ALTER TABLE api_keys DROP COLUMN replaces; ALTER TABLE api_keys DROP COLUMN first_used;`);
      backTo(db, 9);
      const records = Array.from({ length: 3 }, (_, i) => aSignatureRecord(i, { submissionHash: `0x${randomBytes(32).toString('hex')}` }));
      const insert = db.prepare('INSERT INTO signatures VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      for (const r of records) insert.run(r.submissionHash, r.vaultId, r.walletId, r.walletAddress, r.chain, r.contract, r.sender, r.selector, r.created.getTime(), null, null);
      db.close();
      const migrated = openSqliteDatabase({ path: file });
      try {
        expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(migrated.pragma('index_list(signatures)')).toEqual([expect.objectContaining({ name: 'signatures_by_hash', unique: 0 })]);
        const signatures = new SqlSignatureLog(sqliteSql(migrated));
        for (const r of records) expect(await signatures.find(r.vaultId, r.submissionHash)).toEqual(r);
        expect(await signatures.attachTransaction(records[1]!.vaultId, records[1]!.submissionHash, `0x${'b'.repeat(64)}`, new Date())).toBe('attached');
      } finally {
        migrated.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps a transaction to itself: statements of other requests wait for it, and a group commit never joins it', async () => {
    const { db, cleanup } = await withDatabase((db) => ({ db }));
    try {
      const sql = sqliteSql(db);
      const signatures = new SqlSignatureLog(sql);
      let release!: () => void;
      const waiting = new Promise<void>((resolve) => (release = resolve));
      // A transaction whose work awaits more than its statements (a later turn of the event loop), then fails.
      const failed = sql.transaction(async (tx) => {
        await tx.run('INSERT INTO accounts (id, created) VALUES ($1, $2)', ['in-transaction', new Date()]);
        await waiting;
        throw new Error('rolled back');
      });
      const read = sql.all<{ id: string }>('SELECT id FROM accounts');
      const recorded = signatures.record(aSignatureRecord(1));
      setTimeout(release, 20);
      await expect(failed).rejects.toThrow('rolled back');
      // The read ran after the transaction ended: it never saw its uncommitted row.
      expect(await read).toEqual([]);
      await recorded;
      expect(await signatures.find(aSignatureRecord(1).vaultId, aSignatureRecord(1).submissionHash)).not.toBeNull();
    } finally {
      await cleanup();
    }
  });

  it('group-commits concurrent signature records: all durable, a bad one fails alone', async () => {
    const dir = await tempDir();
    try {
      const file = path.join(dir, 'vault.db');
      const db = openSqliteDatabase({ path: file });
      const log = new SqlSignatureLog(sqliteSql(db));
      const results = await Promise.allSettled([...Array.from({ length: 50 }, (_, i) => log.record(aSignatureRecord(i))), log.record(UNSTORABLE)]);
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
      expect(results.at(-1)!.status).toBe('rejected');
      db.close();
      const reopened = openSqliteDatabase({ path: file });
      expect((reopened.prepare('SELECT count(*) AS n FROM signatures').get() as { n: number }).n).toBe(50);
      reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('commits the signature records and audit appends of one turn in one transaction; a bad one fails alone', async () => {
    const dir = await tempDir();
    try {
      const file = path.join(dir, 'vault.db');
      const db = openSqliteDatabase({ path: file });
      // Counts the transactions run (the commit queue builds its transaction function once, up front).
      let transactions = 0;
      const transaction = db.transaction.bind(db);
      db.transaction = ((fn: (...a: unknown[]) => unknown) => {
        const t = transaction(fn);
        return Object.assign((...a: unknown[]) => (transactions++, t(...a)), {
          default: t.default,
          deferred: t.deferred,
          immediate: (...a: unknown[]) => (transactions++, t.immediate(...a)),
          exclusive: t.exclusive,
        });
      }) as typeof db.transaction;
      const signatures = new SqlSignatureLog(sqliteSql(db));
      const audit = new SqlAuditLog(sqliteSql(db));
      const record = (i: number) => aSignatureRecord(i, { created: new Date() });
      await Promise.all([signatures.record(record(1)), audit.append(anAuditEvent({ actor: 'a' })), signatures.record(record(2))]);
      expect(transactions).toBe(1);
      // A signature record the database refuses, in the batch: it alone fails, the audit appends around it chain on.
      const results = await Promise.allSettled([
        audit.append(anAuditEvent({ actor: 'b' })),
        signatures.record(UNSTORABLE),
        audit.append(anAuditEvent({ actor: 'c' })),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      db.close();
      const reopened = openSqliteDatabase({ path: file });
      expect((reopened.prepare('SELECT count(*) AS n FROM signatures').get() as { n: number }).n).toBe(2);
      const records = await new SqlAuditLog(sqliteSql(reopened)).list({ afterSeq: 0, limit: 10 });
      expect(records.map((r) => r.actor)).toEqual(['a', 'b', 'c']);
      expectValidChain(records);
      reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('chains audit appends from two connections (CLI and server) into one chain, and keeps it across reopen', async () => {
    const dir = await tempDir();
    try {
      const file = path.join(dir, 'vault.db');
      const serverDb = openSqliteDatabase({ path: file });
      const cliDb = openSqliteDatabase({ path: file });
      const server = new SqlAuditLog(sqliteSql(serverDb));
      const cli = new SqlAuditLog(sqliteSql(cliDb));
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => [
          server.append(anAuditEvent({ actor: `server-${i}` })),
          cli.append(anAuditEvent({ actor: `cli-${i}` })),
        ]).flat(),
      );
      serverDb.close();
      cliDb.close();
      const reopenedDb = openSqliteDatabase({ path: file });
      const reopened = new SqlAuditLog(sqliteSql(reopenedDb));
      await reopened.append(anAuditEvent({ actor: 'after-reopen' }));
      const records = await reopened.list({ afterSeq: 0, limit: 1000 });
      reopenedDb.close();
      expect(records).toHaveLength(201);
      expectValidChain(records);
      expect(records.at(-1)!.actor).toBe('after-reopen');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('opens in WAL mode with synchronous=FULL, files 0600, and migrates idempotently', async () => {
    const dir = await tempDir();
    try {
      const file = path.join(dir, 'nested', 'vault.db');
      const db = openSqliteDatabase({ path: file });
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
      db.close();
      const again = openSqliteDatabase({ path: file });
      expect(again.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a database a newer build has migrated, naming both versions, and leaves it as it was', async () => {
    const dir = await tempDir();
    try {
      const file = path.join(dir, 'vault.db');
      const db = openSqliteDatabase({ path: file });
      db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
      db.close();
      expect(() => openSqliteDatabase({ path: file })).toThrow(
        expect.objectContaining({
          code: ErrorCode.DATABASE_UNAVAILABLE,
          message: `${file} has schema version ${SCHEMA_VERSION + 1}, newer than this build knows (${SCHEMA_VERSION}); run the newer wallet-vault`,
        }),
      );
      const reopened = new Database(file);
      expect(reopened.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
      reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives API keys of a database made before roles every role and no network binding, by migration', async () => {
    const dir = await tempDir();
    try {
      const file = path.join(dir, 'vault.db');
      const db = openSqliteDatabase({ path: file });
      const vault = aVault();
      const repo = new SqlWalletRepository(sqliteSql(db));
      await repo.ensureAccount(vault.accountId, new Date());
      await repo.insertVault(vault);
      // The schema and the key as the release before roles (schema 5) left them.
      db.exec('DROP TABLE key_exports; ALTER TABLE wallets DROP COLUMN exported; DROP TABLE operators; ALTER TABLE wallets DROP COLUMN derivation_path; DROP TABLE hd_indexes; DROP TABLE audit_stream_cursors; ALTER TABLE api_keys DROP COLUMN label; ALTER TABLE api_keys DROP COLUMN expires; ALTER TABLE api_keys DROP COLUMN replaced_by; ALTER TABLE api_keys DROP COLUMN overlap_ends; ALTER TABLE api_keys DROP COLUMN replaces; ALTER TABLE api_keys DROP COLUMN first_used; DROP TABLE approval_votes; DROP TABLE approvals; ALTER TABLE api_keys DROP COLUMN approver_group; ALTER TABLE api_keys DROP COLUMN approver_address; ALTER TABLE wallets DROP COLUMN binding; ALTER TABLE api_keys DROP COLUMN roles; ALTER TABLE api_keys DROP COLUMN allow_cidrs; DROP TABLE sign_count_keys; DROP TABLE sign_counts;');
      db.exec('DROP TABLE webhook_endpoints; DROP TABLE webhook_undeliverable; DROP TABLE webhook_signing_key;');
      backTo(db, 5);
      const key = anApiKey(vault);
      db.prepare('INSERT INTO api_keys (id, vault_id, secret_hash, created, revoked) VALUES (?, ?, ?, ?, NULL)').run(key.id, vault.id, key.secretHash, key.created.getTime());
      db.close();
      const migrated = openSqliteDatabase({ path: file });
      expect(await new SqlWalletRepository(sqliteSql(migrated)).findApiKey(key.id)).toEqual({ ...key, roles: ['admin', 'signer', 'reader', 'approver'], allowCidrs: null });
      expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      migrated.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives a database made before deployment ids one by migration, once, keeping its data', async () => {
    const dir = await tempDir();
    try {
      const file = path.join(dir, 'vault.db');
      const db = openSqliteDatabase({ path: file });
      const vault = aVault();
      await new SqlWalletRepository(sqliteSql(db)).ensureAccount(vault.accountId, new Date());
      await new SqlWalletRepository(sqliteSql(db)).insertVault(vault);
      // The schema as the release before deployment ids (schema 4) left it; the later migrations run again.
      db.exec('DROP TABLE key_exports; ALTER TABLE wallets DROP COLUMN exported; DROP TABLE operators; ALTER TABLE wallets DROP COLUMN derivation_path; DROP TABLE hd_indexes; DROP TABLE audit_stream_cursors; ALTER TABLE api_keys DROP COLUMN label; ALTER TABLE api_keys DROP COLUMN expires; ALTER TABLE api_keys DROP COLUMN replaced_by; ALTER TABLE api_keys DROP COLUMN overlap_ends; ALTER TABLE api_keys DROP COLUMN replaces; ALTER TABLE api_keys DROP COLUMN first_used; DROP TABLE approval_votes; DROP TABLE approvals; ALTER TABLE api_keys DROP COLUMN approver_group; ALTER TABLE api_keys DROP COLUMN approver_address; ALTER TABLE wallets DROP COLUMN binding; DROP TABLE deployment; DROP TABLE quarantined_keys; DROP TABLE sign_count_keys; DROP TABLE sign_counts; ALTER TABLE api_keys DROP COLUMN roles; ALTER TABLE api_keys DROP COLUMN allow_cidrs;');
      db.exec('DROP TABLE webhook_endpoints; DROP TABLE webhook_undeliverable; DROP TABLE webhook_signing_key;');
      backTo(db, 4);
      db.close();
      const migrated = openSqliteDatabase({ path: file });
      const id = await new SqlKeyQuarantine(sqliteSql(migrated)).deploymentId();
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(await new SqlWalletRepository(sqliteSql(migrated)).findVault(vault.id)).toEqual(vault);
      migrated.close();
      const reopened = openSqliteDatabase({ path: file });
      expect(await new SqlKeyQuarantine(sqliteSql(reopened)).deploymentId()).toBe(id);
      reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps data across close and reopen, and two connections (CLI and server) see each other', async () => {
    const dir = await tempDir();
    try {
      const file = path.join(dir, 'vault.db');
      const server = new SqlWalletRepository(sqliteSql(openSqliteDatabase({ path: file })));
      const cliDb = openSqliteDatabase({ path: file });
      const cli = new SqlWalletRepository(sqliteSql(cliDb));
      const vault = aVault();
      await cli.ensureAccount(vault.accountId, new Date());
      await cli.insertVault(vault);
      expect(await server.findVault(vault.id)).toEqual(vault);
      const w = aWallet(vault);
      await server.insertWallet(w);
      expect(await cli.findWallet(vault.id, w.address, new Date())).toEqual(w);
      cliDb.close();
      const reopened = openSqliteDatabase({ path: file });
      expect(await new SqlWalletRepository(sqliteSql(reopened)).countWallets(vault.id, new Date())).toBe(1);
      reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
