import type { SignPolicy } from '../../../src/domain/sign-policy.js';
import type { PolicyRepository, StoredPolicy } from '../../../src/ports/policy-repository.port.js';
import { rowPlaceholders } from './rows.js';
import type { SqlDatabase, SqlSession } from './sql-database.js';

type Pin = { contract: string; uniq: string };

/** One policy per vault: its lists as one JSON text, its uniq pins as rows of their own (checked by the database); saving null deletes both. */
export class SqlPolicyRepository implements PolicyRepository {
  private readonly select: string;

  constructor(private readonly db: SqlDatabase) {
    // One statement, so the lists and the pins come from the same snapshot.
    const pins = db.jsonArray({ contract: 'u.contract', uniq: 'u.uniq' }, 'FROM sign_policy_uniqs u WHERE u.vault_id = p.vault_id');
    this.select = `SELECT p.policy, ${pins} AS pins FROM sign_policies p WHERE p.vault_id = $1`;
  }

  async find(vaultId: string): Promise<SignPolicy | null> {
    const [row] = await this.db.all<{ policy: string; pins: string | Pin[] }>(this.select, [vaultId]);
    if (!row) return null;
    const pins = typeof row.pins === 'string' ? (JSON.parse(row.pins) as Pin[]) : row.pins;
    const lists = JSON.parse(row.policy) as SignPolicy;
    return pins.length === 0 ? lists : { ...lists, uniqs: Object.fromEntries(pins.map((p) => [p.contract, p.uniq])) };
  }

  async save(vaultId: string, policy: SignPolicy | null, now: Date): Promise<void> {
    // One transaction: a reader never sees new lists with old pins, nor a policy without its pins.
    await this.db.transaction((tx) => writePolicyRow(tx, vaultId, policy, now));
  }
}

/** Replaces the vault's policy row and its pins within `tx` (the governance store writes it with the change it applies); null deletes both. */
export async function writePolicyRow(tx: SqlSession, vaultId: string, policy: StoredPolicy | null, now: Date): Promise<void> {
  if (policy === null) {
    // The pins go with the row (ON DELETE CASCADE).
    await tx.run('DELETE FROM sign_policies WHERE vault_id = $1', [vaultId]);
    return;
  }
  const { uniqs, ...lists } = policy as SignPolicy;
  const pins = Object.entries(uniqs ?? {});
  await tx.run(
    `INSERT INTO sign_policies (vault_id, policy, updated) VALUES ($1, $2, $3)
     ON CONFLICT (vault_id) DO UPDATE SET policy = EXCLUDED.policy, updated = EXCLUDED.updated`,
    [vaultId, JSON.stringify(lists), now],
  );
  await tx.run('DELETE FROM sign_policy_uniqs WHERE vault_id = $1', [vaultId]);
  if (pins.length === 0) return;
  const values = pins.flatMap(([contract, uniq]) => [vaultId, contract, uniq]);
  await tx.run(`INSERT INTO sign_policy_uniqs (vault_id, contract, uniq) VALUES ${rowPlaceholders(pins.length, 3)}`, values);
}
