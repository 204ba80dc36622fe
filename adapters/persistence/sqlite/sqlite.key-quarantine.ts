import type { Statement } from 'better-sqlite3';
import type { KeyQuarantine, QuarantinedKey } from '../../../src/ports/key-quarantine.port.js';
import { runSql as run, type SqliteDatabase } from './sqlite.database.js';

interface Row {
  key_store: string;
  key_ref: string;
  address: string;
  vault_id: string | null;
  quarantined: number;
}

const fromRow = (r: Row): QuarantinedKey => ({
  keyStore: r.key_store,
  keyRef: r.key_ref,
  address: r.address,
  vaultId: r.vault_id,
  quarantined: new Date(r.quarantined),
});

/** The deployment row written by the migration, and the quarantined keys. */
export class SqliteKeyQuarantine implements KeyQuarantine {
  private readonly selectDeployment: Statement;
  private readonly insert: Statement;
  private readonly select: Statement;
  private readonly selectAll: Statement;
  private readonly delete: Statement;
  private deployment: string | undefined;

  constructor(db: SqliteDatabase) {
    this.selectDeployment = db.prepare('SELECT id FROM deployment WHERE singleton = 1');
    this.insert = db.prepare(
      `INSERT INTO quarantined_keys (key_store, key_ref, address, vault_id, quarantined) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key_store, key_ref) DO NOTHING`,
    );
    this.select = db.prepare('SELECT 1 FROM quarantined_keys WHERE key_store = ? AND key_ref = ?');
    this.selectAll = db.prepare('SELECT * FROM quarantined_keys ORDER BY quarantined, key_store, key_ref');
    this.delete = db.prepare('DELETE FROM quarantined_keys WHERE key_store = ? AND key_ref = ?');
  }

  deploymentId(): Promise<string> {
    // Never changes once the database exists: read once.
    return run(() => (this.deployment ??= (this.selectDeployment.get() as { id: string }).id));
  }

  add(key: QuarantinedKey): Promise<boolean> {
    return run(() => this.insert.run(key.keyStore, key.keyRef, key.address, key.vaultId, key.quarantined.getTime()).changes === 1);
  }

  has(keyStore: string, keyRef: string): Promise<boolean> {
    return run(() => this.select.get(keyStore, keyRef) !== undefined);
  }

  list(): Promise<QuarantinedKey[]> {
    return run(() => (this.selectAll.all() as Row[]).map(fromRow));
  }

  remove(keyStore: string, keyRef: string): Promise<void> {
    return run(() => void this.delete.run(keyStore, keyRef));
  }
}
