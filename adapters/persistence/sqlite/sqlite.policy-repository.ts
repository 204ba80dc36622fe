import type { Statement } from 'better-sqlite3';
import type { SignPolicy } from '../../../src/domain/sign-policy.js';
import type { PolicyRepository } from '../../../src/ports/policy-repository.port.js';
import { runSql as run, type SqliteDatabase } from './sqlite.database.js';

/** One JSON policy per vault; saving null deletes the row. */
export class SqlitePolicyRepository implements PolicyRepository {
  private readonly select: Statement;
  private readonly upsert: Statement;
  private readonly remove: Statement;

  constructor(db: SqliteDatabase) {
    this.select = db.prepare('SELECT policy FROM sign_policies WHERE vault_id = ?');
    this.upsert = db.prepare(
      `INSERT INTO sign_policies (vault_id, policy, updated) VALUES (?, ?, ?)
       ON CONFLICT (vault_id) DO UPDATE SET policy = excluded.policy, updated = excluded.updated`,
    );
    this.remove = db.prepare('DELETE FROM sign_policies WHERE vault_id = ?');
  }

  find(vaultId: string): Promise<SignPolicy | null> {
    return run(() => {
      const row = this.select.get(vaultId) as { policy: string } | undefined;
      return row ? (JSON.parse(row.policy) as SignPolicy) : null;
    });
  }

  save(vaultId: string, policy: SignPolicy | null, now: Date): Promise<void> {
    return run(() => {
      if (policy === null) this.remove.run(vaultId);
      else this.upsert.run(vaultId, JSON.stringify(policy), now.getTime());
    });
  }
}
