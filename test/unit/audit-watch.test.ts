import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresPersistence } from '../../adapters/persistence/postgres/index.js';
import { postgresSql } from '../../adapters/persistence/postgres/postgres.sql.js';
import { SqlSignatureLog } from '../../adapters/persistence/sql/sql.signature-log.js';
import type { SqlDatabase } from '../../adapters/persistence/sql/sql-database.js';
import { sqlitePersistence } from '../../adapters/persistence/sqlite/index.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';
import { prepareAuditEvent } from '../../src/domain/audit-chain.js';
import type { AuditAction, AuditEvent } from '../../src/ports/audit-log.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import { inMemoryPersistence } from '../support/in-memory.persistence.js';
import { createTestDatabase, openTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { anAuditEvent, aSignatureRecord, aVault, aWallet } from '../support/wallet-mother.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const dirs: string[] = [];
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  for (const database of databases) await database.drop();
});

const tempDir = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-audit-watch-'));
  dirs.push(dir);
  return dir;
};

const PERSISTENCES: Record<string, () => Promise<Persistence>> = {
  'in memory': async () => inMemoryPersistence(),
  SQLite: async () => sqlitePersistence({ path: path.join(await tempDir(), 'vault.db') }),
  ...(POSTGRES_AVAILABLE && {
    PostgreSQL: async () => {
      const database = await createTestDatabase();
      databases.push(database);
      return postgresPersistence({ connectionString: database.url, poolSize: 4 });
    },
  }),
};

async function world(open: () => Promise<Persistence>) {
  const persistence = await open();
  const seen: AuditAction[] = [];
  const unwatch = persistence.watchAudit!((action) => seen.push(action));
  const vault = aVault();
  await persistence.repository.ensureAccount(vault.accountId, NOW);
  await persistence.repository.insertVault(vault);
  const event = (action: AuditEvent['action']) => anAuditEvent({ action, vaultId: vault.id, at: NOW });
  return { persistence, vault, event, seen, unwatch };
}

// The webhook dispatcher is prompted by what watchAudit reports: it must hear of every record, whichever
// store wrote it, once committed, and of nothing that was not written.
describe.each(Object.keys(PERSISTENCES))('watchAudit (%s): every audit record this process commits, whichever store writes it', (name) => {
  const open = PERSISTENCES[name]!;

  it('a wallet renamed, expired, deleted with its record, and a lost write (nothing recorded, nothing told)', async () => {
    const t = await world(open);
    const w = aWallet(t.vault);
    await t.persistence.repository.insertWallet(w);
    expect(await t.persistence.repository.updateWallet({ ...w, name: 'x', version: 2 }, t.event('wallet.renamed'))).toBe(true);
    expect(await t.persistence.repository.updateWallet({ ...w, expires: NOW, version: 3 }, t.event('wallet.expired'))).toBe(true);
    // A stale version changes nothing, so nothing is recorded or told.
    expect(await t.persistence.repository.updateWallet({ ...w, name: 'y', version: 3 }, t.event('wallet.renamed'))).toBe(false);
    await t.persistence.repository.removeWallet(w.id, t.event('wallet.deleted'));
    expect(t.seen).toEqual(['wallet.renamed', 'wallet.expired', 'wallet.deleted']);
    expect((await t.persistence.auditLog.list({ afterSeq: 0, limit: 10 })).map((r) => r.action)).toEqual(t.seen);
    await t.persistence.close();
  });

  it('a key quarantined and destroyed with its record, a lone append, and nothing after unwatch', async () => {
    const t = await world(open);
    const key = { keyStore: 'local', keyRef: 'k', address: '0x' + '1'.repeat(40), vaultId: t.vault.id, quarantined: NOW };
    expect(await t.persistence.keyQuarantine!.add(key, t.event('key.quarantined'))).toBe(true);
    await t.persistence.keyQuarantine!.remove('local', 'k', t.event('key.destroyed'));
    await t.persistence.auditLog.append(t.event('policy.changed'));
    t.unwatch();
    await t.persistence.auditLog.append(t.event('policy.changed'));
    expect(t.seen).toEqual(['key.quarantined', 'key.destroyed', 'policy.changed']);
    await t.persistence.close();
  });

  it('tells a listener that named its actions of those only, through both writes, and stops when it unwatches', async () => {
    const t = await world(open);
    const some: AuditAction[] = [];
    const unwatchSome = t.persistence.watchAudit!((action) => some.push(action), new Set<AuditAction>(['wallet.expired', 'policy.changed']));
    const w = aWallet(t.vault);
    await t.persistence.repository.insertWallet(w);
    await t.persistence.repository.updateWallet({ ...w, name: 'x', version: 2 }, t.event('wallet.renamed'));
    await t.persistence.repository.updateWallet({ ...w, expires: NOW, version: 3 }, t.event('wallet.expired'));
    await t.persistence.auditLog.append(t.event('policy.changed'));
    await t.persistence.auditLog.append(t.event('vault.created'));
    expect(some).toEqual(['wallet.expired', 'policy.changed']);
    // The listener of every action still hears them all.
    expect(t.seen).toEqual(['wallet.renamed', 'wallet.expired', 'policy.changed', 'vault.created']);
    t.unwatch();
    await t.persistence.auditLog.append(t.event('vault.created'));
    await t.persistence.auditLog.append(t.event('policy.changed'));
    expect(some).toEqual(['wallet.expired', 'policy.changed', 'policy.changed']);
    unwatchSome();
    await t.persistence.auditLog.append(t.event('policy.changed'));
    expect(some).toHaveLength(3);
    await t.persistence.close();
  });
});

/** Each dialect's seam on a fresh database, and how to close it. */
const SEAMS: Record<string, () => Promise<{ sql: SqlDatabase; close(): Promise<void> }>> = {
  SQLite: async () => {
    const db = openSqliteDatabase({ path: path.join(await tempDir(), 'vault.db') });
    return {
      sql: sqliteSql(db),
      close: async () => {
        db.close();
      },
    };
  },
  ...(POSTGRES_AVAILABLE && {
    PostgreSQL: async () => {
      const { db, cleanup } = await openTestDatabase();
      return { sql: postgresSql(db), close: cleanup };
    },
  }),
};

// The seam's commit hook: a record is told after the commit that appended it, and never of a write that
// did not commit, though its record was handed to the transaction (or the batch) before it failed.
describe.each(Object.keys(SEAMS))('the SQL seam (%s) tells watchAudit after the commit only', (name) => {
  it('nothing of a transaction rolled back after its record was handed over, nor of a sign whose write failed', async () => {
    const { sql, close } = await SEAMS[name]!();
    try {
      const seen: AuditAction[] = [];
      sql.watchAudit((action) => seen.push(action));
      const refused = new Error('refused after the audit record was handed over');
      await expect(
        sql.auditedTransaction(async (tx, audit) => {
          audit(prepareAuditEvent(anAuditEvent({ action: 'policy.changed' })));
          await tx.all('SELECT 1', []);
          throw refused;
        }),
      ).rejects.toBe(refused);
      const signatures = new SqlSignatureLog(sql);
      await signatures.record(aSignatureRecord(1), anAuditEvent({ action: 'signature.issued' }));
      // The same submission hash again: refused by the database, its record with it.
      await expect(signatures.record(aSignatureRecord(1), anAuditEvent({ action: 'signature.issued' }))).rejects.toThrow();
      await sql.auditedTransaction(async (_tx, audit) => audit(prepareAuditEvent(anAuditEvent({ action: 'vault.created' }))));
      expect(seen).toEqual(['signature.issued', 'vault.created']);
      expect((await sql.all<{ action: string }>('SELECT action FROM audit_log ORDER BY seq', [])).map((r) => r.action)).toEqual(seen);
    } finally {
      await close();
    }
  });
});
