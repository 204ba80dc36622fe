import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION as POSTGRES_VERSION } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { SCHEMA_VERSION as SQLITE_VERSION } from '../../adapters/persistence/sqlite/sqlite.migration-steps.js';
import { cliJson, runCli } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { localSignBody } from '../support/sign-request.js';
import { loadPostgresSchema, loadSqliteSchema, SHIPPED_DATA, shippedApiKey, shippedSchema } from '../support/shipped-schemas.js';
import { startTestServer } from '../support/test-server.js';

/** No store from the test runner's own environment leaks in. */
const NO_STORE = { VAULT_DATA_DIR: '', VAULT_DATABASE_URL: '', VAULT_DATABASE_SCHEMA: '' };

// Issue 47, as a new user hit it: a database made by main at 575bb29 (schema 12, whose 12 was governance),
// then `wallet-vault migrate` of a later build, then every sign answered 503 `database unavailable
// (SQLITE_ERROR)`: the merge 56ed77a had put the signed votes' ALTERs at 12 and governance at 13, so the
// database never got api_keys.approver_address nor approval_votes.signature. On the runners before
// migrations had names this test fails at the first request; now `migrate` repairs it and says so.
describe.each([
  { name: 'sqlite', dump: 'sqlite/12-d0b46d0..575bb29', available: true, version: SQLITE_VERSION },
  { name: 'postgres', dump: 'postgres/12-575bb29', available: POSTGRES_AVAILABLE, version: POSTGRES_VERSION },
])('a schema-12 database of 575bb29 over $name, then `wallet-vault migrate`', ({ name, dump, available, version }) => {
  it.skipIf(!available)('migrates, repairs what the renumbering skipped, keeps the data, and signs', { timeout: 180_000 }, async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-renumbered-'));
    let db: TestDatabase | undefined;
    try {
      let env: Record<string, string> = { ...NO_STORE, VAULT_DATA_DIR: dataDir };
      if (name === 'sqlite') loadSqliteSchema(shippedSchema(dump), path.join(dataDir, 'vault.db'));
      else {
        db = await createTestDatabase();
        await loadPostgresSchema(shippedSchema(dump), db.url, 'vault');
        env = { ...env, VAULT_DATABASE_URL: db.url, VAULT_DATABASE_SCHEMA: 'vault' };
      }

      const migrated = await runCli(['migrate', '--json'], env);
      expect(migrated.code, migrated.stderr).toBe(0);
      const done = JSON.parse(migrated.stdout) as { from: number; to: number; repaired?: string[] };
      expect(done).toMatchObject({ from: 12, to: version });

      const server = await startTestServer({ dataDir, env });
      try {
        const api = client(server.url, shippedApiKey);
        const base = `/api/v1/vaults/${SHIPPED_DATA.vault}`;
        const listed = await api.get(`${base}/wallets`);
        expect(listed.status, JSON.stringify(listed.body)).toBe(200);
        expect(listed.body.data.page.map((w: { address: string }) => w.address.toLowerCase())).toEqual([SHIPPED_DATA.walletAddress]);
        const wallet = await api.post(`${base}/wallets`, { name: 'after the upgrade' });
        expect(wallet.status, JSON.stringify(wallet.body)).toBe(200);
        const signed = await api.post(`${base}/sign`, localSignBody(wallet.body.data.address));
        expect(signed.status, JSON.stringify(signed.body)).toBe(200);
      } finally {
        await server.stop({ keepData: true });
      }

      // What it repaired, in its answer and in the audit trail (which still verifies).
      const repairedColumns = ['api_keys.approver_address', 'approval_votes.signature', 'approvals.simulation'];
      expect(done.repaired).toEqual(repairedColumns.map((c) => `column ${c} added (as left by d0b46d0 and 575bb29, 2026-11-27, schema 12)`));
      const trail = await cliJson<{ action: string; actor: string; details: Record<string, unknown> }[]>(['audit', 'list'], env);
      expect(trail.filter((r) => r.action === 'schema.migrated')).toEqual([
        expect.objectContaining({ actor: 'operator', details: { from: 12, to: version, repaired: done.repaired!.join('; ') } }),
      ]);
      expect(await cliJson(['audit', 'verify'], env)).toMatchObject({ ok: true });
      const again = await cliJson(['migrate'], env);
      expect(again).toMatchObject({ from: version, to: version });
      expect(again).not.toHaveProperty('repaired');
    } finally {
      await db?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
