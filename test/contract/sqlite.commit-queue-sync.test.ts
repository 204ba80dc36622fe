import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { ErrorCode } from '../../src/domain/errors.js';
import type { AuditAction } from '../../src/ports/audit-log.port.js';
import { anAuditEvent, aSignatureRecord } from '../support/wallet-mother.js';
import { SqlSignatureLog } from '../../adapters/persistence/sql/sql.signature-log.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';

// The WAL syncs the commit queue asks for are held here, so the test decides when the disk "answers".
const syncs = vi.hoisted(() => [] as { fd: number; done: (error: NodeJS.ErrnoException | null) => void }[]);
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  return { ...fs, fdatasync: (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => syncs.push({ fd, done }) };
});

const settled = async (promise: Promise<unknown>) => {
  let state = 'pending';
  promise.then(
    () => (state = 'fulfilled'),
    () => (state = 'rejected'),
  );
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return state;
};

describe('sqlite commit queue: the sync off the event loop', () => {
  let dir: string;
  let db: SqliteDatabase;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-commit-sync-'));
    db = openSqliteDatabase({ path: path.join(dir, 'vault.db') });
    syncs.length = 0;
  });
  afterEach(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a write only once an fdatasync of the WAL, asked for after its commit, has returned', async () => {
    const log = new SqlSignatureLog(sqliteSql(db));
    const record = aSignatureRecord(1);
    const written = log.record(record);
    expect(await settled(written)).toBe('pending');
    // Committed (readable on the connection) but not answered: the sync has not returned.
    expect(await log.find(record.vaultId, record.submissionHash)).not.toBeNull();
    expect(syncs).toHaveLength(1);
    syncs[0]!.done(null);
    expect(await settled(written)).toBe('fulfilled');
  });

  it('fails a write whose sync fails: committed but never answered as durable', async () => {
    const log = new SqlSignatureLog(sqliteSql(db));
    const written = log.record(aSignatureRecord(2));
    await settled(written);
    syncs[0]!.done(Object.assign(new Error('I/O error'), { code: 'EIO' }));
    await expect(written).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
  });

  it('refuses every write after a failed sync, since a later sync could report success over a broken WAL, and fails readiness', async () => {
    const sql = sqliteSql(db);
    const log = new SqlSignatureLog(sql);
    const first = log.record(aSignatureRecord(7));
    await settled(first);
    const waiting = log.record(aSignatureRecord(8)); // held while the first batch's sync runs
    await settled(waiting);
    syncs[0]!.done(Object.assign(new Error('I/O error'), { code: 'EIO' }));
    await expect(first).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    await expect(waiting).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE, message: expect.stringContaining('restarts') });
    const later = aSignatureRecord(9);
    await expect(log.record(later)).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    await expect(sql.run('DELETE FROM signatures', [])).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    await expect(sql.transaction(async () => 1)).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    await expect(sql.ping()).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    // Neither the held batch nor the later write was committed, and no other sync was asked for.
    expect(await log.find(later.vaultId, later.submissionHash)).toBeNull();
    expect(syncs).toHaveLength(1);
  });

  it('holds the batches that arrive while a sync runs and commits them together, with one sync of their own, when it returns', async () => {
    const log = new SqlSignatureLog(sqliteSql(db));
    const [a, b, c] = [aSignatureRecord(4), aSignatureRecord(5), aSignatureRecord(6)];
    const first = log.record(a);
    await settled(first);
    const second = log.record(b);
    await settled(second);
    const third = log.record(c);
    await settled(third);
    // Not committed while the first batch's sync runs (its WAL write would only wait behind it).
    expect(await log.find(b.vaultId, b.submissionHash)).toBeNull();
    expect(syncs).toHaveLength(1);
    syncs[0]!.done(null);
    expect(await settled(first)).toBe('fulfilled');
    expect(await log.find(b.vaultId, b.submissionHash)).not.toBeNull();
    expect(await log.find(c.vaultId, c.submissionHash)).not.toBeNull();
    expect(syncs).toHaveLength(2);
    expect([await settled(second), await settled(third)]).toEqual(['pending', 'pending']);
    syncs[1]!.done(null);
    expect([await settled(second), await settled(third)]).toEqual(['fulfilled', 'fulfilled']);
  });

  // The commit hook of watchAudit (the webhook dispatcher's prompt) sits on the same answer as the caller's.
  it("tells watchAudit of a sign's audit record only once the WAL sync returned, and nothing of a write whose sync failed", async () => {
    const sql = sqliteSql(db);
    const seen: AuditAction[] = [];
    sql.watchAudit((action) => seen.push(action));
    const log = new SqlSignatureLog(sql);
    const signed = log.record(aSignatureRecord(10), anAuditEvent({ action: 'signature.issued' }));
    await settled(signed);
    // Committed, readable, but not on disk yet: not told.
    expect(await log.find('v', aSignatureRecord(10).submissionHash)).not.toBeNull();
    expect(seen).toEqual([]);
    syncs[0]!.done(null);
    await signed;
    expect(seen).toEqual(['signature.issued']);
    const lost = log.record(aSignatureRecord(11), anAuditEvent({ action: 'signature.issued' }));
    await settled(lost);
    syncs[1]!.done(Object.assign(new Error('I/O error'), { code: 'EIO' }));
    await expect(lost).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    expect(seen).toEqual(['signature.issued']);
  });

  it('keeps every other write on the connection synchronous=FULL', async () => {
    const log = new SqlSignatureLog(sqliteSql(db));
    const written = log.record(aSignatureRecord(3));
    await settled(written);
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    syncs[0]!.done(null);
    await written;
  });
});
