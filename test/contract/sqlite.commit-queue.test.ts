import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { aSignatureRecord, anAuditEvent } from '../support/wallet-mother.js';
import { expectValidChain } from 'wallet-vault/testing';
import { SqlAuditLog } from '../../adapters/persistence/sql/sql.audit-log.js';
import { SqlSignatureLog } from '../../adapters/persistence/sql/sql.signature-log.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';

describe('sqlite audit log in the commit queue', () => {
  let dir: string;
  let file: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-commit-queue-'));
    file = path.join(dir, 'vault.db');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads the chain head once per transaction, and again in each one after an append from another connection', async () => {
    const db = openSqliteDatabase({ path: file });
    const cliDb = openSqliteDatabase({ path: file });
    let headReads = 0;
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      const statement = prepare(sql);
      if (!sql.includes('ORDER BY seq DESC LIMIT 1')) return statement;
      const get = statement.get.bind(statement);
      statement.get = ((...params: unknown[]) => (headReads++, get(...params))) as typeof statement.get;
      return statement;
    }) as typeof db.prepare;
    const server = new SqlAuditLog(sqliteSql(db));
    const cli = new SqlAuditLog(sqliteSql(cliDb));
    await Promise.all(Array.from({ length: 10 }, (_, i) => server.append(anAuditEvent({ actor: `server-${i}` }))));
    expect(headReads).toBe(1);
    await cli.append(anAuditEvent({ actor: 'cli' }));
    await Promise.all(Array.from({ length: 10 }, (_, i) => server.append(anAuditEvent({ actor: `server-${10 + i}` }))));
    expect(headReads).toBe(2);
    const records = await server.list({ afterSeq: 0, limit: 100 });
    expect(records).toHaveLength(21);
    expect(records[10]!.actor).toBe('cli');
    expectValidChain(records);
    db.close();
    cliDb.close();
  });

  it('keeps the audit chain whole when a batch of appends is rolled back by a bad write and retried one by one', async () => {
    const db = openSqliteDatabase({ path: file });
    const audit = new SqlAuditLog(sqliteSql(db));
    const signatures = new SqlSignatureLog(sqliteSql(db));
    await Promise.all([audit.append(anAuditEvent({ actor: 'before' })), signatures.record(aSignatureRecord(1))]);
    const results = await Promise.allSettled([
      ...Array.from({ length: 5 }, (_, i) => audit.append(anAuditEvent({ actor: `a${i}` }))),
      signatures.record({ ...aSignatureRecord(2), walletAddress: null as unknown as string }), // NOT NULL: rolls back the batch's transaction
      ...Array.from({ length: 5 }, (_, i) => audit.append(anAuditEvent({ actor: `b${i}` }))),
    ]);
    expect(results.map((r) => r.status)).toEqual([...Array(5).fill('fulfilled'), 'rejected', ...Array(5).fill('fulfilled')]);
    db.close();
    const reopened = openSqliteDatabase({ path: file });
    const records = await new SqlAuditLog(sqliteSql(reopened)).list({ afterSeq: 0, limit: 100 });
    expect(records.map((r) => r.actor)).toEqual(['before', 'a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'b1', 'b2', 'b3', 'b4']);
    expectValidChain(records);
    reopened.close();
  });
});
