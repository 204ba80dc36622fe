import type { ReplayGuard } from '../../../src/ports/replay-guard.port.js';
import { PeriodicSweep } from './periodic-sweep.js';
import type { SqlDatabase } from './sql-database.js';

const TAKE = `INSERT INTO auth_nonces (nonce, expires) VALUES ($1, $2)
  ON CONFLICT (nonce) DO UPDATE SET expires = EXCLUDED.expires WHERE auth_nonces.expires <= $3`;
const SWEEP = 'DELETE FROM auth_nonces WHERE nonce IN (SELECT nonce FROM auth_nonces WHERE expires <= $1 LIMIT 10000)';

/**
 * Nonces accepted by any process on the database: the first INSERT of a nonce wins, so a replay sent to
 * another worker, another instance, or this one after a restart is refused too (on SQLite the insert
 * shares the sign path's group commit, whose IMMEDIATE transaction holds the write lock). A row whose
 * expiry has passed may be taken again (its signature is stale by then anyway); expired rows are
 * deleted every minute.
 */
export class SqlReplayGuard implements ReplayGuard {
  private readonly sweeps: PeriodicSweep;

  constructor(
    private readonly db: SqlDatabase,
    private readonly now: () => number = Date.now,
    /** How often expired nonces are deleted (by whichever request comes first after the interval). */
    sweepEveryMs = 60_000,
  ) {
    this.sweeps = new PeriodicSweep(sweepEveryMs, now(), (at) => this.sweep(at));
  }

  async firstUse(nonce: string, expiresAt: Date): Promise<boolean> {
    const now = this.now();
    const taken = await this.db.runGrouped(TAKE, [nonce, expiresAt, new Date(now)]);
    this.sweeps.due(now);
    return taken === 1;
  }

  /** Deletes up to one batch of expired nonces; returns how many. */
  sweep(now: Date): Promise<number> {
    return this.db.runGrouped(SWEEP, [now]);
  }
}
