import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { KeyQuarantine, QuarantinedKey } from '../../../src/ports/key-quarantine.port.js';
import { AS_IS, INSTANT, Table } from './rows.js';
import { runAudited, type SqlDatabase } from './sql-database.js';

const QUARANTINED = new Table<QuarantinedKey>('quarantined_keys', { keyStore: AS_IS, keyRef: AS_IS, address: AS_IS, vaultId: AS_IS, quarantined: INSTANT });

/** The deployment row written by the migration, and the quarantined keys. */
export class SqlKeyQuarantine implements KeyQuarantine {
  private deployment: string | undefined;

  constructor(private readonly db: SqlDatabase) {}

  async deploymentId(): Promise<string> {
    // Never changes once the database exists: read once.
    this.deployment ??= (await this.db.all<{ id: string }>('SELECT id FROM deployment WHERE singleton = 1'))[0]!.id;
    return this.deployment;
  }

  add(key: QuarantinedKey, quarantined?: AuditEvent): Promise<boolean> {
    return runAudited(this.db, `${QUARANTINED.insert} ON CONFLICT (key_store, key_ref) DO NOTHING`, QUARANTINED.values(key), quarantined);
  }

  async has(keyStore: string, keyRef: string): Promise<boolean> {
    return (await this.db.all('SELECT 1 FROM quarantined_keys WHERE key_store = $1 AND key_ref = $2', [keyStore, keyRef])).length > 0;
  }

  async list(): Promise<QuarantinedKey[]> {
    const rows = await this.db.all<object>(`${QUARANTINED.select} ORDER BY quarantined, key_store, key_ref`);
    return rows.map((r) => QUARANTINED.read(r, this.db.instant));
  }

  async remove(keyStore: string, keyRef: string, recorded?: AuditEvent): Promise<void> {
    await runAudited(this.db, 'DELETE FROM quarantined_keys WHERE key_store = $1 AND key_ref = $2', [keyStore, keyRef], recorded);
  }
}
