import { OPERATOR } from '../../src/application/audit/audit-actor.js';
import { loadConfig } from '../main/config.js';
import { migrationRecorded, recordSchemaMigration } from '../main/maintenance-audit.js';
import { migrateStore } from '../main/vault-from-config.js';
import { withPersistence } from './operator-context.js';
import { print } from './output.js';

/**
 * `wallet-vault migrate`: applies the migrations of the configured database (SQLite in the data
 * directory, or PostgreSQL in VAULT_DATABASE_SCHEMA) and says what it did. Running it again is a no-op;
 * a database a newer build migrated, or whose migrations are not this build's, is refused (exit 1), as
 * `serve` refuses it. A migration of an existing database, and what it repaired of a schema an earlier
 * build left out, is recorded in the audit trail (`schema.migrated`).
 */
export async function migrateCommand(o: { json?: boolean }): Promise<void> {
  const done = await migrateStore(loadConfig());
  // Recorded in the trail once the tables are there (the audit table may be one the migration made).
  if (migrationRecorded(done)) await withPersistence((c) => recordSchemaMigration(c, OPERATOR, done));
  const where = done.schema === undefined ? done.database : `${done.database}, schema "${done.schema}"`;
  const repaired = done.repaired?.length ? `; repaired:\n${done.repaired.map((r) => `  ${r}`).join('\n')}` : '';
  print(!!o.json, done, () =>
    done.from !== done.to
      ? `${where} migrated from schema version ${done.from} to ${done.to}${repaired}`
      : repaired
        ? `${where} is at schema version ${done.to}${repaired}`
        : `${where} is at schema version ${done.to}: nothing to do`,
  );
}
