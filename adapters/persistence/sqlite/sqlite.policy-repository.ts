import type { Statement } from 'better-sqlite3';
import type { SignPolicy } from '../../../src/domain/sign-policy.js';
import type { PolicyRepository } from '../../../src/ports/policy-repository.port.js';
import { fromPolicyRows, toPolicyRows } from '../shared/policy-rows.js';
import { runSql as run, type SqliteDatabase } from './sqlite.database.js';

/** One JSON policy per vault and its uniq pins, written together; saving null deletes both. */
export class SqlitePolicyRepository implements PolicyRepository {
  private readonly select: Statement;
  private readonly selectPins: Statement;
  private readonly write: (vaultId: string, policy: SignPolicy | null, now: Date) => void;

  constructor(db: SqliteDatabase) {
    this.select = db.prepare('SELECT policy FROM sign_policies WHERE vault_id = ?');
    this.selectPins = db.prepare('SELECT contract, uniq FROM sign_policy_uniqs WHERE vault_id = ?');
    const upsert = db.prepare(
      `INSERT INTO sign_policies (vault_id, policy, updated) VALUES (?, ?, ?)
       ON CONFLICT (vault_id) DO UPDATE SET policy = excluded.policy, updated = excluded.updated`,
    );
    const removePins = db.prepare('DELETE FROM sign_policy_uniqs WHERE vault_id = ?');
    const insertPin = db.prepare('INSERT INTO sign_policy_uniqs (vault_id, contract, uniq) VALUES (?, ?, ?)');
    // The pins go with the row (ON DELETE CASCADE).
    const remove = db.prepare('DELETE FROM sign_policies WHERE vault_id = ?');
    // One transaction: a reader never sees new lists with old pins, nor a policy without its pins.
    this.write = db.transaction((vaultId: string, policy: SignPolicy | null, now: Date) => {
      if (policy === null) {
        remove.run(vaultId);
        return;
      }
      const rows = toPolicyRows(policy);
      upsert.run(vaultId, rows.json, now.getTime());
      removePins.run(vaultId);
      for (const pin of rows.pins) insertPin.run(vaultId, pin.contract, pin.uniq);
    });
  }

  find(vaultId: string): Promise<SignPolicy | null> {
    return run(() => {
      const row = this.select.get(vaultId) as { policy: string } | undefined;
      if (!row) return null;
      return fromPolicyRows(row.policy, this.selectPins.all(vaultId) as { contract: string; uniq: string }[]);
    });
  }

  save(vaultId: string, policy: SignPolicy | null, now: Date): Promise<void> {
    return run(() => this.write(vaultId, policy, now));
  }
}
