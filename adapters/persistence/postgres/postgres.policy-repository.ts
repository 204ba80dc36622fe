import type { SignPolicy } from '../../../src/domain/sign-policy.js';
import type { PolicyRepository } from '../../../src/ports/policy-repository.port.js';
import type { PostgresDatabase } from './postgres.database.js';

/** One JSON policy per vault, shared by every instance; saving null deletes the row. */
export class PostgresPolicyRepository implements PolicyRepository {
  constructor(private readonly db: PostgresDatabase) {}

  async find(vaultId: string): Promise<SignPolicy | null> {
    const { rows } = await this.db.query<{ policy: string }>('SELECT policy FROM sign_policies WHERE vault_id = $1', [vaultId]);
    return rows[0] ? (JSON.parse(rows[0].policy) as SignPolicy) : null;
  }

  async save(vaultId: string, policy: SignPolicy | null, now: Date): Promise<void> {
    if (policy === null) {
      await this.db.query('DELETE FROM sign_policies WHERE vault_id = $1', [vaultId]);
      return;
    }
    await this.db.query(
      `INSERT INTO sign_policies (vault_id, policy, updated) VALUES ($1, $2, $3)
       ON CONFLICT (vault_id) DO UPDATE SET policy = EXCLUDED.policy, updated = EXCLUDED.updated`,
      [vaultId, JSON.stringify(policy), now],
    );
  }
}
