import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeCommitQueueOf } from '../../adapters/persistence/sqlite/sqlite.commit-queue.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { anAuditEvent } from '../../adapters/testing/fixtures.js';
import { expectValidChain } from 'wallet-vault/testing';
import { SqlAuditLog } from '../../adapters/persistence/sql/sql.audit-log.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';

const MiB = 2 ** 20;

describe('sqlite WAL checkpoints off the event loop', () => {
  let dir: string;
  let file: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-wal-checkpoint-'));
    file = path.join(dir, 'vault.db');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('takes over from the automatic checkpoint and keeps the WAL bounded while commits never stop', async () => {
    const db = openSqliteDatabase({ path: file });
    const audit = new SqlAuditLog(sqliteSql(db));
    // Each record fills about a page: 400 commits of 25 write some 40 MiB of WAL frames.
    const note = 'x'.repeat(3_000);
    let largestWal = 0;
    for (let commit = 0; commit < 400; commit++) {
      await Promise.all(Array.from({ length: 25 }, (_, i) => audit.append(anAuditEvent({ actor: `c${commit}-${i}`, details: { note } }))));
      largestWal = Math.max(largestWal, statSync(`${file}-wal`).size);
    }
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // Copied into the database file by the checkpointer, and the WAL started over instead of growing.
    expect(statSync(file).size).toBeGreaterThan(20 * MiB);
    expect(largestWal).toBeLessThan(16 * MiB);

    await closeCommitQueueOf(db);
    db.close();
    const reopened = openSqliteDatabase({ path: file });
    const records = await new SqlAuditLog(sqliteSql(reopened)).list({ afterSeq: 0, limit: 20_000 });
    expect(records).toHaveLength(10_000);
    expectValidChain(records);
    reopened.close();
  });

  it('leaves a connection that commits little (a CLI command) on the automatic checkpoint', async () => {
    const db = openSqliteDatabase({ path: file });
    const audit = new SqlAuditLog(sqliteSql(db));
    for (let commit = 0; commit < 5; commit++) await audit.append(anAuditEvent({ actor: `c${commit}` }));
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await closeCommitQueueOf(db);
    db.close();
  });
});
