import { loadConfig } from '../main/config.js';
import { migrateStore } from '../main/vault-from-config.js';
import { print } from './output.js';

/**
 * `wallet-vault migrate`: applies the migrations of the configured database (SQLite in the data
 * directory, or PostgreSQL in VAULT_DATABASE_SCHEMA) and says what it did. Running it again is a no-op;
 * a database a newer build migrated is refused (exit 1), as `serve` refuses it.
 */
export async function migrateCommand(o: { json?: boolean }): Promise<void> {
  const done = await migrateStore(loadConfig());
  const where = done.schema === undefined ? done.database : `${done.database}, schema "${done.schema}"`;
  print(!!o.json, done, () =>
    done.from === done.to ? `${where} is at schema version ${done.to}: nothing to do` : `${where} migrated from schema version ${done.from} to ${done.to}`,
  );
}
