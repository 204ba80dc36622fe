import type { KeyQuarantine, QuarantinedKey } from '../../../src/ports/key-quarantine.port.js';
import type { PostgresDatabase } from './postgres.database.js';

interface Row {
  key_store: string;
  key_ref: string;
  address: string;
  vault_id: string | null;
  quarantined: Date;
}

/** The deployment row written by the migration, and the quarantined keys, shared by every instance. */
export class PostgresKeyQuarantine implements KeyQuarantine {
  private deployment: string | undefined;

  constructor(private readonly db: PostgresDatabase) {}

  async deploymentId(): Promise<string> {
    // Never changes once the database exists: read once.
    if (this.deployment === undefined) {
      const { rows } = await this.db.query<{ id: string }>('SELECT id FROM deployment WHERE singleton = 1');
      this.deployment = rows[0]!.id;
    }
    return this.deployment;
  }

  async add(key: QuarantinedKey): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `INSERT INTO quarantined_keys (key_store, key_ref, address, vault_id, quarantined) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (key_store, key_ref) DO NOTHING`,
      [key.keyStore, key.keyRef, key.address, key.vaultId, key.quarantined],
    );
    return rowCount === 1;
  }

  async has(keyStore: string, keyRef: string): Promise<boolean> {
    const { rows } = await this.db.query('SELECT 1 FROM quarantined_keys WHERE key_store = $1 AND key_ref = $2', [keyStore, keyRef]);
    return rows.length > 0;
  }

  async list(): Promise<QuarantinedKey[]> {
    const { rows } = await this.db.query<Row>('SELECT * FROM quarantined_keys ORDER BY quarantined, key_store, key_ref');
    return rows.map((r) => ({ keyStore: r.key_store, keyRef: r.key_ref, address: r.address, vaultId: r.vault_id, quarantined: r.quarantined }));
  }

  async remove(keyStore: string, keyRef: string): Promise<void> {
    await this.db.query('DELETE FROM quarantined_keys WHERE key_store = $1 AND key_ref = $2', [keyStore, keyRef]);
  }
}
