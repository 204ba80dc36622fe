import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { KeyQuarantine, QuarantinedKey } from '../../../src/ports/key-quarantine.port.js';
import { runAudited, type SqlDatabase } from './sql-database.js';

interface Row {
  key_store: string;
  key_ref: string;
  address: string;
  vault_id: string | null;
  quarantined: unknown;
}

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
    return runAudited(
      this.db,
      `INSERT INTO quarantined_keys (key_store, key_ref, address, vault_id, quarantined) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (key_store, key_ref) DO NOTHING`,
      [key.keyStore, key.keyRef, key.address, key.vaultId, key.quarantined],
      quarantined,
    );
  }

  async has(keyStore: string, keyRef: string): Promise<boolean> {
    return (await this.db.all('SELECT 1 FROM quarantined_keys WHERE key_store = $1 AND key_ref = $2', [keyStore, keyRef])).length > 0;
  }

  async list(): Promise<QuarantinedKey[]> {
    const rows = await this.db.all<Row>('SELECT * FROM quarantined_keys ORDER BY quarantined, key_store, key_ref');
    return rows.map((r) => ({ keyStore: r.key_store, keyRef: r.key_ref, address: r.address, vaultId: r.vault_id, quarantined: this.db.instant(r.quarantined) }));
  }

  async remove(keyStore: string, keyRef: string, recorded?: AuditEvent): Promise<void> {
    await runAudited(this.db, 'DELETE FROM quarantined_keys WHERE key_store = $1 AND key_ref = $2', [keyStore, keyRef], recorded);
  }
}
