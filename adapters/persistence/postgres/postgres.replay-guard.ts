import type { ReplayGuard } from '../../../src/ports/replay-guard.port.js';
import { PeriodicSweep } from '../shared/periodic-sweep.js';
import type { PostgresDatabase } from './postgres.database.js';

const SWEEP_BATCH = 10_000;

/**
 * Nonces accepted by any instance sharing the database: the first INSERT of a nonce wins, so a replay
 * sent to another instance is refused too. A row whose expiry has passed may be taken again (its
 * signature is stale by then anyway), and such rows are deleted in the background every minute.
 */
export class PostgresReplayGuard implements ReplayGuard {
  private readonly sweeps: PeriodicSweep;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly now: () => number = Date.now,
    /** How often expired nonces are deleted (by whichever request comes first after the interval). */
    sweepEveryMs = 60_000,
  ) {
    this.sweeps = new PeriodicSweep(sweepEveryMs, now(), (at) => this.sweep(at));
  }

  async firstUse(nonce: string, expiresAt: Date): Promise<boolean> {
    const now = this.now();
    const { rowCount } = await this.db.query(
      `INSERT INTO auth_nonces (nonce, expires) VALUES ($1, $2)
       ON CONFLICT (nonce) DO UPDATE SET expires = EXCLUDED.expires WHERE auth_nonces.expires <= $3`,
      [nonce, expiresAt, new Date(now)],
    );
    this.sweeps.due(now);
    return rowCount === 1;
  }

  /** Deletes up to one batch of expired nonces; returns how many. */
  async sweep(now: Date): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM auth_nonces WHERE nonce IN (SELECT nonce FROM auth_nonces WHERE expires <= $1 LIMIT ${SWEEP_BATCH})`,
      [now],
    );
    return rowCount ?? 0;
  }
}
