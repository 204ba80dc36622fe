import { MAX_WINDOW_MS, heldAfter, valueWaitMs, witnessedMissing, type SignCountDemand } from '../../../src/domain/sign-limits.js';
import type { SignCountDecision, SignCounter } from '../../../src/ports/sign-counter.port.js';
import { PeriodicSweep } from './periodic-sweep.js';
import { rowPlaceholders } from './rows.js';
import type { SqlDatabase } from './sql-database.js';

const LOCK_KEYS = (n: number) =>
  `INSERT INTO sign_count_keys (key, touched) VALUES ${rowPlaceholders(n, 2)} ON CONFLICT (key) DO UPDATE SET touched = EXCLUDED.touched`;
const PRUNE = 'DELETE FROM sign_counts WHERE key = $1 AND at <= $2';
// The max-th newest sign in the window: when there is one, the window is full until it leaves.
const FULL_UNTIL = 'SELECT at FROM sign_counts WHERE key = $1 ORDER BY at DESC LIMIT 1 OFFSET $2';
// Whether the window holds the n-th sign after an instant (OFFSET n - 1): a witnessed count is there.
const NTH_AFTER = 'SELECT at FROM sign_counts WHERE key = $1 AND at > $2 ORDER BY at LIMIT 1 OFFSET $3';
const COUNT = (n: number) => `INSERT INTO sign_counts (key, at) VALUES ${rowPlaceholders(n, 2)}`;
// Limits in value: what each sign moved, in the window, oldest first (a decimal text or numeric).
const PRUNE_VALUES = 'DELETE FROM sign_value_counts WHERE key = $1 AND at <= $2';
const VALUES_HELD = 'SELECT at, amount FROM sign_value_counts WHERE key = $1 ORDER BY at';
const MOVE = (n: number) => `INSERT INTO sign_value_counts (key, at, amount) VALUES ${rowPlaceholders(n, 3)}`;
const DROP_VALUES = 'DELETE FROM sign_value_counts WHERE key = $1';
// Keys no take touched for longer than any window (a limit removed, a wallet gone quiet): a take prunes
// only its own keys' rows, so these would stay. All their counts are as old.
const STALE_KEYS = 'SELECT key FROM sign_count_keys WHERE touched <= $1 LIMIT 1000';
const LOCK_STALE_KEY = 'UPDATE sign_count_keys SET touched = touched WHERE key = $1 AND touched <= $2';
const DROP_COUNTS = 'DELETE FROM sign_counts WHERE key = $1';
const DROP_KEY = 'DELETE FROM sign_count_keys WHERE key = $1';

/** countWait's and valueWait's answer when rows the demand's `witnessed` names are not there. */
const MISSING = -1;

/**
 * Rolling-window sign counts in the database: a row per sign and key, pruned as they leave the window.
 * One transaction per take: it first writes each key's row in sign_count_keys (an upsert, in key order),
 * which on PostgreSQL holds that row's lock until commit, so a take on another instance for the same key
 * waits and then sees this one's count (READ COMMITTED reads anew per statement); SQLite's IMMEDIATE
 * transaction holds the database's write lock throughout. Two takes can therefore never both count the
 * last sign a limit allows.
 */
export class SqlSignCounter implements SignCounter {
  private sweeps: PeriodicSweep | undefined;

  constructor(
    private readonly db: SqlDatabase,
    /** How often rows older than the longest window are deleted (by whichever take comes first after it). */
    private readonly sweepEveryMs = 3_600_000,
  ) {}

  take(demands: readonly SignCountDemand[], now: Date): Promise<SignCountDecision> {
    if (demands.length === 0) return Promise.resolve({ allowed: true, retryAfterMs: 0 });
    (this.sweeps ??= new PeriodicSweep(this.sweepEveryMs, now.getTime(), (at) => this.sweep(at))).due(now.getTime());
    return this.db.transaction(async (tx) => {
      await tx.run(LOCK_KEYS(demands.length), demands.flatMap((d) => [d.key, now]));
      let refused: SignCountDecision = { allowed: true, retryAfterMs: 0 };
      for (const d of demands) {
        const wait = d.value === undefined ? await this.countWait(tx, d, now) : await this.valueWait(tx, d, now);
        // Rows this instance counted are gone: refused as such, whatever the other demands say.
        if (wait === MISSING) return { allowed: false, retryAfterMs: d.windowMs, refusedBy: d.key, missing: true };
        if (wait > refused.retryAfterMs) refused = { allowed: false, retryAfterMs: wait, refusedBy: d.key };
      }
      if (!refused.allowed) return refused;
      const counted = demands.filter((d) => d.value === undefined);
      const moved = demands.filter((d) => d.value !== undefined);
      if (counted.length > 0) await tx.run(COUNT(counted.length), counted.flatMap((d) => [d.key, now]));
      if (moved.length > 0) await tx.run(MOVE(moved.length), moved.flatMap((d) => [d.key, now, d.value!.amount.toString()]));
      return { allowed: true, retryAfterMs: 0 };
    });
  }

  /** How long until one more sign fits the count of `d` (0: now), its window pruned first; MISSING when witnessed rows are gone. */
  private async countWait(tx: Pick<SqlDatabase, 'run' | 'all'>, d: SignCountDemand, now: Date): Promise<number> {
    await tx.run(PRUNE, [d.key, new Date(now.getTime() - d.windowMs)]);
    const w = d.witnessed;
    if (w !== undefined && w.signs > 0 && (await tx.all(NTH_AFTER, [d.key, w.after, w.signs - 1])).length === 0) return MISSING;
    const [full] = await tx.all<{ at: unknown }>(FULL_UNTIL, [d.key, d.max - 1]);
    return full === undefined ? 0 : this.db.instant(full.at).getTime() + d.windowMs - now.getTime();
  }

  /** How long until the amount of `d` fits its limit in value (0: now), its window pruned first. */
  private async valueWait(tx: Pick<SqlDatabase, 'run' | 'all'>, d: SignCountDemand, now: Date): Promise<number> {
    await tx.run(PRUNE_VALUES, [d.key, new Date(now.getTime() - d.windowMs)]);
    const rows = await tx.all<{ at: unknown; amount: unknown }>(VALUES_HELD, [d.key]);
    const entries = rows.map((r) => ({ at: this.db.instant(r.at).getTime(), amount: BigInt(String(r.amount)) }));
    if (d.witnessed !== undefined && witnessedMissing(d.witnessed, heldAfter(entries, d.witnessed.after.getTime()))) return MISSING;
    return valueWaitMs(entries, d.value!.amount, d.value!.max, d.windowMs, now.getTime());
  }

  /**
   * Deletes the keys untouched for longer than any window (31 days) and their counts; returns how many
   * counts. Key by key, each locked first as a take locks it: a take at that instant waits (or finds the
   * key touched and it stays), and the two never hold locks the other wants.
   */
  async sweep(now: Date): Promise<number> {
    const before = new Date(now.getTime() - MAX_WINDOW_MS);
    let counts = 0;
    for (const { key } of await this.db.all<{ key: string }>(STALE_KEYS, [before])) {
      counts += await this.db.transaction(async (tx) => {
        if ((await tx.run(LOCK_STALE_KEY, [key, before])) === 0) return 0;
        const dropped = await tx.run(DROP_COUNTS, [key]);
        await tx.run(DROP_VALUES, [key]);
        await tx.run(DROP_KEY, [key]);
        return dropped;
      });
    }
    return counts;
  }
}
