import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../adapters/main/tokens.js';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { openPostgresDatabase } from '../../adapters/persistence/postgres/postgres.database.js';
import { postgresSql } from '../../adapters/persistence/postgres/postgres.sql.js';
import { migrationChecksum } from '../../adapters/persistence/sql/migration-history.js';
import type { SqlDatabase } from '../../adapters/persistence/sql/sql-database.js';
import { SqlApprovalStore } from '../../adapters/persistence/sql/sql.approval-store.js';
import { SqlAuditLog } from '../../adapters/persistence/sql/sql.audit-log.js';
import { SqlSignatureLog } from '../../adapters/persistence/sql/sql.signature-log.js';
import { SqlWalletRepository } from '../../adapters/persistence/sql/sql.wallet-repository.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../adapters/persistence/sqlite/sqlite.migration-steps.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';
import { VerifyAuditChain } from '../../src/application/audit/verify-audit-chain.use-case.js';
import type { AuditLog } from '../../src/ports/audit-log.port.js';
import { client } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE, testPostgresConfig, type TestDatabase } from '../support/postgres.js';
import { localSignBody } from '../support/sign-request.js';
import { loadPostgresSchema, loadSqliteSchema, SHIPPED_DATA, SHIPPED_SCHEMAS, shippedApiKey, shippedSchema, type ShippedSchema } from '../support/shipped-schemas.js';
import { startTestServer } from '../support/test-server.js';
import { aVault } from '../support/wallet-mother.js';
import { describeApprovalStoreContract, describeAuditLogContract, describeWalletRepositoryContract } from 'wallet-vault/testing';

const TODAY = { sqlite: SQLITE_MIGRATIONS, postgres: POSTGRES_MIGRATIONS };

/** Whether exactly today's first N migrations ran (once each): else an earlier build left something the upgrade must repair. */
const ranTodaysMigrations = (s: ShippedSchema) => s.ran.length === s.version && s.ran.every((checksum, i) => checksum === migrationChecksum(TODAY[s.dialect][i]!.sql));
const madeBy = (s: ShippedSchema) => s.builds.map((b) => (b.commit === b.last ? b.commit : `${b.commit}..${b.last}`)).join(', then ');

/** One database for every PostgreSQL dump of the file, each in a schema of its own. */
let shared: TestDatabase | undefined;
let schemas = 0;
beforeAll(async () => {
  if (POSTGRES_AVAILABLE) shared = await createTestDatabase();
});
afterAll(() => shared?.drop());

/** The server's database for a dump: SQLite, vault.db in a data directory of its own; PostgreSQL, a schema of its own in the shared database. */
async function serverOn(s: ShippedSchema): Promise<{ env: Record<string, string>; dataDir: string; cleanup(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-shipped-'));
  let env: Record<string, string> = {};
  if (s.dialect === 'sqlite') loadSqliteSchema(s, path.join(dataDir, 'vault.db'));
  else {
    const schema = `shipped_${++schemas}`;
    await loadPostgresSchema(s, shared!.url, schema);
    env = { VAULT_DATABASE_URL: shared!.url, VAULT_DATABASE_SCHEMA: schema };
  }
  return { env, dataDir, cleanup: () => rm(dataDir, { recursive: true, force: true }) };
}

// Issue 47: every schema a build of main left, for both databases, upgraded by this build's `serve`
// (as an operator starting the new version does), keeping its data, repairing what the build left
// out or differently (and saying so in the audit trail), and signing afterwards.
describe('every shipped schema, upgraded by serve', { timeout: 120_000 }, () => {
  for (const s of SHIPPED_SCHEMAS) {
    const repairs = !ranTodaysMigrations(s);
    it.skipIf(s.dialect === 'postgres' && !POSTGRES_AVAILABLE)(
      `${s.file} (made by ${madeBy(s)}, schema ${s.version}): upgraded, its data kept, ${repairs ? 'repaired, ' : ''}signs`,
      async () => {
        const target = await serverOn(s);
        try {
          const server = await startTestServer({ dataDir: target.dataDir, env: target.env });
          try {
            const api = client(server.url, shippedApiKey);
            const base = `/api/v1/vaults/${SHIPPED_DATA.vault}`;
            const listed = await api.get(`${base}/wallets`);
            expect(listed.status, JSON.stringify(listed.body)).toBe(200);
            expect(listed.body.data.page.map((w: { address: string }) => w.address.toLowerCase())).toContain(SHIPPED_DATA.walletAddress);
            const wallet = await api.post(`${base}/wallets`, { name: 'after the upgrade' });
            expect(wallet.status, JSON.stringify(wallet.body)).toBe(200);
            const signed = await api.post(`${base}/sign`, localSignBody(wallet.body.data.address));
            expect(signed.status, JSON.stringify(signed.body)).toBe(200);

            const auditLog = server.server.vault.container.get<AuditLog>(TOKENS.AUDIT_LOG);
            const records = await auditLog.list({ afterSeq: 0, limit: 100 });
            const migrated = records.filter((r) => r.action === 'schema.migrated').map((r) => r.details);
            // Recorded when it changed the schema: migrations applied, or what an earlier build left repaired.
            if (repairs) expect(migrated).toEqual([{ from: s.version, to: TODAY[s.dialect].length, repaired: expect.stringMatching(/ (added|rebuilt) \(as left by /) }]);
            else expect(migrated).toEqual(s.version < TODAY[s.dialect].length ? [{ from: s.version, to: TODAY[s.dialect].length }] : []);
            expect(await new VerifyAuditChain(auditLog).execute()).toMatchObject({ ok: true });
          } finally {
            await server.stop({ keepData: true });
          }
        } finally {
          await target.cleanup();
        }
      },
    );
  }
});

/**
 * The port contract suites (wallets and API keys with the signature log, the audit log, approvals) over
 * the worst of them (schema 12 of 575bb29, the renumbered migrations), upgraded: the repaired columns are
 * the ones API keys and approvals read. One database upgraded per dialect; SQLite copies its file per
 * test, PostgreSQL empties the tables per test.
 */
function upgradedDialect(dialect: 'sqlite' | 'postgres', prefix: string) {
  const s = shippedSchema(prefix);
  let template: string;
  let dir: string;
  let opened: { sql: SqlDatabase; second: SqlDatabase; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-upgraded-'));
    if (dialect === 'sqlite') {
      template = path.join(dir, 'template.db');
      loadSqliteSchema(s, template);
      const upgraded = openSqliteDatabase({ path: template });
      // The contracts want empty tables: the dump's rows (kept by the upgrade, as the test above shows) go.
      for (const table of CONTRACT_TABLES) upgraded.exec(`DELETE FROM ${table}`);
      upgraded.close();
    } else {
      const schema = `upgraded_${dialect}`;
      await loadPostgresSchema(s, shared!.url, schema);
      const db = await openPostgresDatabase(testPostgresConfig(shared!.url, { schema }));
      // The approval store's contract interleaves two writers: a second pool, as another instance has.
      const second = await openPostgresDatabase(testPostgresConfig(shared!.url, { schema }));
      opened = { sql: postgresSql(db), second: postgresSql(second), close: async () => (await db.close(), await second.close()) };
    }
  });
  afterAll(async () => {
    await opened?.close();
    await rm(dir, { recursive: true, force: true });
  });
  let copies = 0;
  return async (tables: readonly string[]): Promise<{ sql: SqlDatabase; second: SqlDatabase; cleanup(): Promise<void> }> => {
    if (opened) {
      await opened.sql.run(`TRUNCATE ${tables.join(', ')} CASCADE`);
      return { sql: opened.sql, second: opened.second, cleanup: async () => undefined };
    }
    const file = path.join(dir, `copy-${++copies}.db`);
    await copyFile(template, file);
    const db = openSqliteDatabase({ path: file });
    // SQLite's second writer is the same connection (test/support/sql-dialects.ts says why).
    return {
      sql: sqliteSql(db),
      second: sqliteSql(db),
      cleanup: async () => {
        db.close();
      },
    };
  };
}

const CONTRACT_TABLES = ['audit_log', 'signatures', 'approval_votes', 'approvals', 'idempotency_records', 'wallets', 'api_keys', 'vaults', 'accounts'];

for (const [dialect, prefix] of [
  ['sqlite', 'sqlite/12-d0b46d0..575bb29'],
  ['postgres', 'postgres/12-575bb29'],
] as const) {
  describe.skipIf(dialect === 'postgres' && !POSTGRES_AVAILABLE)(`the persistence contracts over ${prefix} upgraded`, () => {
    const open = upgradedDialect(dialect, prefix);
    const name = `${dialect}, upgraded from ${prefix}`;
    describeWalletRepositoryContract(name, async () => {
      const { sql, cleanup } = await open(CONTRACT_TABLES);
      return { repo: new SqlWalletRepository(sql), signatureLog: new SqlSignatureLog(sql), auditLog: new SqlAuditLog(sql), cleanup };
    });
    describeAuditLogContract(name, async () => {
      const { sql, cleanup } = await open(CONTRACT_TABLES);
      return { log: new SqlAuditLog(sql), cleanup };
    });
    describeApprovalStoreContract(name, async () => {
      const { sql, second, cleanup } = await open(CONTRACT_TABLES);
      const repo = new SqlWalletRepository(sql);
      return {
        stores: [new SqlApprovalStore(sql), new SqlApprovalStore(second)],
        apiKeys: repo,
        signatureLog: new SqlSignatureLog(sql),
        auditLog: new SqlAuditLog(sql),
        newVault: async () => {
          const vault = aVault();
          await repo.ensureAccount(vault.accountId, new Date());
          await repo.insertVault(vault);
          return vault.id;
        },
        cleanup,
      };
    });
  });
}
