import type { Statement } from 'better-sqlite3';
import type { ReplayGuard } from '../../../src/ports/replay-guard.port.js';
import { PeriodicSweep } from '../shared/periodic-sweep.js';
import { commitQueueOf, type SqliteCommitQueue } from './sqlite.commit-queue.js';
import type { SqliteDatabase } from './sqlite.database.js';

const SWEEP_BATCH = 10_000;

/**
 * Nonces accepted by any process on this database file, whatever VAULT_WORKERS is: the first INSERT of a
 * nonce wins, so a replay that lands on another worker, on a second server on the same data directory or
 * on this one after a restart is refused too. The insert runs in the connection's commit queue, whose IMMEDIATE transaction holds the database
 * write lock, so two workers cannot both take one nonce; it shares the batch's commit with the sign path's
 * writes. A row whose expiry has passed may be taken again (its signature is stale by then anyway);
 * expired rows are deleted every minute.
 */
export class SqliteReplayGuard implements ReplayGuard {
  private readonly commits: SqliteCommitQueue;
  private readonly take: Statement;
  private readonly deleteExpired: Statement;
  private readonly sweeps: PeriodicSweep;

  constructor(
    db: SqliteDatabase,
    private readonly now: () => number = Date.now,
    /** How often expired nonces are deleted (by whichever request comes first after the interval). */
    sweepEveryMs = 60_000,
  ) {
    this.commits = commitQueueOf(db);
    this.take = db.prepare(
      `INSERT INTO auth_nonces (nonce, expires) VALUES (?, ?)
       ON CONFLICT (nonce) DO UPDATE SET expires = excluded.expires WHERE auth_nonces.expires <= ?`,
    );
    this.deleteExpired = db.prepare(
      `DELETE FROM auth_nonces WHERE nonce IN (SELECT nonce FROM auth_nonces WHERE expires <= ? LIMIT ${SWEEP_BATCH})`,
    );
    this.sweeps = new PeriodicSweep(sweepEveryMs, now(), (at) => this.sweep(at));
  }

  async firstUse(nonce: string, expiresAt: Date): Promise<boolean> {
    const now = this.now();
    let first = false;
    // Set inside the transaction: a batch retried write by write runs this again and overwrites it.
    await this.commits.enqueue(() => {
      first = this.take.run(nonce, expiresAt.getTime(), now).changes === 1;
    });
    this.sweeps.due(now);
    return first;
  }

  /** Deletes up to one batch of expired nonces; returns how many. */
  async sweep(now: Date): Promise<number> {
    let deleted = 0;
    await this.commits.enqueue(() => {
      deleted = this.deleteExpired.run(now.getTime()).changes;
    });
    return deleted;
  }
}
