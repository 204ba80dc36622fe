import { fenceBroken, vaultFrozen, type FreezeFence } from '../../../src/ports/freeze-fence.js';
import type { FreezeCount } from '../../../src/ports/governance-store.port.js';
import type { SqlSession } from './sql-database.js';

/** Freeze rows and, of them, those marked lifted, as `frozen` and `lifted`. */
export const FREEZE_COLUMNS = 'CAST(count(*) AS INTEGER) AS frozen, CAST(count(lifted) AS INTEGER) AS lifted';
/** A vault's FREEZE_COLUMNS (`$1`: the vault). */
export const FREEZE_COUNT = `SELECT ${FREEZE_COLUMNS} FROM vault_freezes WHERE vault_id = $1`;

/** The key of a vault's freeze count among the database's guarded reads. */
export const freezesKey = (vaultId: string): string => `freezes:${vaultId}`;

/** A row of FREEZE_COUNT as a FreezeCount (drivers answer integers as numbers or strings). */
export const freezeCountOf = (row: { frozen: number | string; lifted: number | string } | undefined): FreezeCount => ({
  frozen: Number(row?.frozen ?? 0),
  lifted: Number(row?.lifted ?? 0),
});

export async function countFreezes(db: SqlSession, vaultId: string): Promise<FreezeCount> {
  const [row] = await db.all<{ frozen: number | string; lifted: number | string }>(FREEZE_COUNT, [vaultId]);
  return freezeCountOf(row);
}

/** Counts the fence's vault's freezes in `tx` (the write's own transaction) and throws VAULT_FROZEN when one was added since. */
export async function holdFence(tx: SqlSession, fence: FreezeFence | null | undefined): Promise<void> {
  if (!fence) return;
  if (fenceBroken(fence, (await countFreezes(tx, fence.vaultId)).frozen)) throw vaultFrozen(fence.vaultId);
}
