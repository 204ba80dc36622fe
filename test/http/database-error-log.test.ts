import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../adapters/main/config.js';
import { createLogger } from '../../adapters/main/logger.js';
import { startServer } from '../../adapters/main/server.js';
import { client } from '../support/http-client.js';
import { MovableClock } from '../support/movable-clock.js';
import { localSignBody } from '../support/sign-request.js';
import { loadSqliteSchema, shippedSchema } from '../support/shipped-schemas.js';
import { vaultsAndKeysOf } from '../support/test-server.js';

/** Every line the server logs, parsed. */
function capturedLog(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

// Issue 47: a database error the vault did not expect (the schema changed under a running server) was
// answered 503 `database unavailable (SQLITE_ERROR)` and logged without its cause; the purge logged the
// same. The log line now carries what the driver said (never key material), the answer stays as it was.
describe('the log says what failed in the database, and what a start repaired', () => {
  it('a sign refused with 503 logs the driver message and code; the purge run that fails does too', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-db-error-'));
    const { lines, stream } = capturedLog();
    const clock = new MovableClock();
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', VAULT_DATA_DIR: dataDir, LOG_LEVEL: 'info', VAULT_VERSION: 'test', VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: '0' });
    const server = await startServer(config, { clock, logger: createLogger('info', stream) });
    try {
      const ops = vaultsAndKeysOf(server.vault);
      const vaultId = (await ops.createVault({ name: 'logged' })).id;
      const api = client(server.url, (await ops.createApiKey(vaultId)).apiKey);
      const base = `/api/v1/vaults/${vaultId}`;
      const signer = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address as string;
      expect((await api.post(`${base}/sign`, localSignBody(signer))).status).toBe(200);
      // Not used yet: its first request reads it from the database.
      const fresh = client(server.url, (await ops.createApiKey(vaultId)).apiKey);

      // Behind the server's back, as a restore of a wrong backup or a hand-made change would (the
      // database of the issue lacked api_keys.approver_address): statements on those tables now fail.
      const behind = new Database(path.join(dataDir, 'vault.db'));
      behind.exec('ALTER TABLE api_keys RENAME COLUMN approver_address TO approver_address_gone; ALTER TABLE wallets RENAME COLUMN expires TO expires_gone');
      behind.close();

      // Refused before authentication: the answer names no database, the log says what failed.
      const refused = await fresh.post(`${base}/sign`, localSignBody(signer));
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'DATABASE_UNAVAILABLE', error: 'database unavailable' });
      const logged = lines.find((l) => l.msg === 'dependency failure' && l.code === 'DATABASE_UNAVAILABLE');
      expect(logged, JSON.stringify(lines.slice(-5))).toBeDefined();
      expect(String(logged!.cause)).toMatch(/SQLITE_ERROR: no such column: approver_address/);

      await server.vault.runJobsOnce();
      const purge = lines.find((l) => l.msg === 'purge run failed; will retry');
      expect(purge, JSON.stringify(lines.slice(-5))).toBeDefined();
      // Whichever of the renamed columns the run reads first (its jobs read keys and wallets), named as the driver did.
      expect(JSON.stringify(purge!.err)).toMatch(/SQLITE_ERROR: no such column: (\w+\.)?(expires|approver_address)/);
    } finally {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('a server that repaired the schema at start says so in its log, as the audit record does', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-db-repaired-'));
    const { lines, stream } = capturedLog();
    loadSqliteSchema(shippedSchema('sqlite/12-d0b46d0..575bb29'), path.join(dataDir, 'vault.db'));
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', VAULT_DATA_DIR: dataDir, LOG_LEVEL: 'info', VAULT_VERSION: 'test', VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: '0' });
    const server = await startServer(config, { clock: new MovableClock(), logger: createLogger('info', stream) });
    try {
      const said = lines.find((l) => l.msg === 'repaired the database schema an earlier build left different (audit: schema.migrated)');
      expect(said?.repaired).toEqual([
        'column api_keys.approver_address added (as left by d0b46d0 and 575bb29, 2026-11-27, schema 12)',
        'column approval_votes.signature added (as left by d0b46d0 and 575bb29, 2026-11-27, schema 12)',
        'column approvals.simulation added (as left by d0b46d0 and 575bb29, 2026-11-27, schema 12)',
      ]);
    } finally {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
