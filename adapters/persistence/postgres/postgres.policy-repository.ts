import type { SignPolicy } from '../../../src/domain/sign-policy.js';
import type { PolicyRepository } from '../../../src/ports/policy-repository.port.js';
import { fromPolicyRows, toPolicyRows } from '../shared/policy-rows.js';
import type { PostgresDatabase } from './postgres.database.js';

/** One JSON policy per vault and its uniq pins, shared by every instance; saving null deletes both. */
export class PostgresPolicyRepository implements PolicyRepository {
  constructor(private readonly db: PostgresDatabase) {}

  async find(vaultId: string): Promise<SignPolicy | null> {
    // One statement, so the lists and the pins come from the same snapshot.
    const { rows } = await this.db.query<{ policy: string; pins: { contract: string; uniq: string }[] }>(
      `SELECT p.policy,
              COALESCE((SELECT json_agg(json_build_object('contract', u.contract, 'uniq', u.uniq))
                          FROM sign_policy_uniqs u WHERE u.vault_id = p.vault_id), '[]'::json) AS pins
         FROM sign_policies p WHERE p.vault_id = $1`,
      [vaultId],
    );
    return rows[0] ? fromPolicyRows(rows[0].policy, rows[0].pins) : null;
  }

  async save(vaultId: string, policy: SignPolicy | null, now: Date): Promise<void> {
    if (policy === null) {
      // The pins go with the row (ON DELETE CASCADE).
      await this.db.query('DELETE FROM sign_policies WHERE vault_id = $1', [vaultId]);
      return;
    }
    const rows = toPolicyRows(policy);
    await this.db.transaction(async (client) => {
      await client.query(
        `INSERT INTO sign_policies (vault_id, policy, updated) VALUES ($1, $2, $3)
         ON CONFLICT (vault_id) DO UPDATE SET policy = EXCLUDED.policy, updated = EXCLUDED.updated`,
        [vaultId, rows.json, now],
      );
      await client.query('DELETE FROM sign_policy_uniqs WHERE vault_id = $1', [vaultId]);
      if (rows.pins.length > 0) {
        await client.query(
          `INSERT INTO sign_policy_uniqs (vault_id, contract, uniq)
           SELECT $1, contract, uniq FROM unnest($2::text[], $3::text[]) AS t (contract, uniq)`,
          [vaultId, rows.pins.map((p) => p.contract), rows.pins.map((p) => p.uniq)],
        );
      }
    });
  }
}
