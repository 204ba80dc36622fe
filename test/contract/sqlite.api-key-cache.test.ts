import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { anApiKey, aVault } from '../support/wallet-mother.js';
import { SqlWalletRepository } from '../../adapters/persistence/sql/sql.wallet-repository.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';

describe('SQLite API key cache: answered from memory, invalidated by PRAGMA data_version', () => {
  let dir: string;
  let served: SqliteDatabase; // a running server's connection
  let operator: SqliteDatabase; // another process's, as the CLI has
  let server: SqlWalletRepository;
  let cli: SqlWalletRepository;
  let reads = 0;
  let versionReads = 0;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-api-key-cache-'));
    served = openSqliteDatabase({ path: path.join(dir, 'vault.db') });
    operator = openSqliteDatabase({ path: path.join(dir, 'vault.db') });
    const prepare = served.prepare.bind(served);
    // Counts the server's reads of the api_keys row, to tell an answer from memory from a lookup.
    served.prepare = ((sql: string) => {
      const statement = prepare(sql);
      if (sql === 'PRAGMA data_version') {
        const get = statement.get.bind(statement);
        statement.get = ((...args: unknown[]) => (versionReads++, get(...args))) as typeof statement.get;
      }
      if (sql.includes('FROM api_keys WHERE id')) {
        const all = statement.all.bind(statement);
        statement.all = ((...args: unknown[]) => (reads++, all(...args))) as typeof statement.all;
      }
      return statement;
    }) as typeof served.prepare;
    server = new SqlWalletRepository(sqliteSql(served));
    cli = new SqlWalletRepository(sqliteSql(operator));
    reads = 0;
    versionReads = 0;
  });
  afterEach(async () => {
    served.close();
    operator.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function aStoredKey() {
    const vault = aVault();
    await cli.ensureAccount(vault.accountId, new Date());
    await cli.insertVault(vault);
    const key = anApiKey(vault);
    await cli.insertApiKey(key);
    return key;
  }

  it('answers a known key from memory while nothing else writes the database', async () => {
    const key = await aStoredKey();
    expect(await server.findApiKey(key.id)).toEqual(key);
    expect(await server.findApiKey(key.id)).toEqual(key);
    expect(reads).toBe(1);
  });

  it('sees a revocation committed by another connection on the next lookup', async () => {
    const key = await aStoredKey();
    await server.findApiKey(key.id);
    expect(await cli.revokeApiKey(key.id, new Date('2026-02-01T00:00:00Z'))).toBe(true);
    expect((await server.findApiKey(key.id))?.revoked).toEqual(new Date('2026-02-01T00:00:00Z'));
  });

  it('sees a revocation made through its own connection (which does not move data_version)', async () => {
    const key = await aStoredKey();
    await server.findApiKey(key.id);
    const sameConnection = new SqlWalletRepository(sqliteSql(served));
    expect(await sameConnection.revokeApiKey(key.id, new Date('2026-02-01T00:00:00Z'))).toBe(true);
    expect((await server.findApiKey(key.id))?.revoked).toEqual(new Date('2026-02-01T00:00:00Z'));
  });

  it('takes data_version once per turn of the event loop, and again after a commit through another connection of this process', async () => {
    const key = await aStoredKey();
    await nextTurn();
    versionReads = 0;
    await Promise.all([server.findApiKey(key.id), server.findApiKey(key.id), server.findApiKey(key.id)]);
    expect(versionReads).toBe(1);
    expect(await cli.revokeApiKey(key.id, new Date('2026-02-01T00:00:00Z'))).toBe(true);
    // Same turn: the other connection's commit is counted, so the version is taken again and the key re-read.
    expect((await server.findApiKey(key.id))?.revoked).toEqual(new Date('2026-02-01T00:00:00Z'));
    expect(versionReads).toBe(2);
    await nextTurn();
    await server.findApiKey(key.id);
    expect(versionReads).toBe(3);
  });

  it('sees a commit of another process in the turns that start after it', async () => {
    const key = await aStoredKey();
    await server.findApiKey(key.id);
    // Another process's commit (a connection this process's seam does not count), in the middle of the turn.
    const elsewhere = new Database(path.join(dir, 'vault.db'));
    try {
      elsewhere.prepare('UPDATE api_keys SET revoked = ? WHERE id = ?').run(Date.parse('2026-02-01T00:00:00Z'), key.id);
    } finally {
      elsewhere.close();
    }
    await nextTurn();
    expect((await server.findApiKey(key.id))?.revoked).toEqual(new Date('2026-02-01T00:00:00Z'));
  });

  it('never caches an unknown id: a key created afterwards is found', async () => {
    const vault = aVault();
    const key = anApiKey(vault);
    expect(await server.findApiKey(key.id)).toBeNull();
    await cli.ensureAccount(vault.accountId, new Date());
    await cli.insertVault(vault);
    await cli.insertApiKey(key);
    expect(await server.findApiKey(key.id)).toEqual(key);
  });
});
