import type { ExpireApprovals } from '../../src/application/approvals/expire-approvals.use-case.js';
import type { ScheduledCheckpoints } from '../../src/application/audit/audit-checkpoints.use-case.js';
import type { PurgeExpiredIdempotency } from '../../src/application/shared/purge-expired-idempotency.use-case.js';
import type { PurgeExpiredWallets } from '../../src/application/wallets/purge-expired-wallets.use-case.js';
import type { SweepOrphanKeys } from '../../src/application/keys/sweep-orphan-keys.use-case.js';
import { describeCauses } from '../../src/domain/errors.js';
import type { JobLock } from '../../src/ports/job-lock.port.js';
import type { PurgeRunReport } from '../../src/application/shared/purge-run-report.js';
import type { VaultLogger } from './vault-logger.js';

/** The background jobs one scheduler run performs, in this order. */
export interface PurgeJobs {
  readonly purge: PurgeExpiredWallets;
  readonly purgeIdempotency: PurgeExpiredIdempotency;
  readonly sweep: SweepOrphanKeys;
  /** Marks approvals past their expiry as expired, with approval.decided (absent: not run). */
  readonly expireApprovals?: ExpireApprovals;
  /** The signed audit checkpoint, when one is due (absent: none is written). */
  readonly checkpoints?: ScheduledCheckpoints;
}

/** The lock name the purge, the idempotency clean-up and the sweep run under together. */
export const PURGE_JOB = 'purge';

/**
 * Runs the approvals' expiry, the expiry purge, the idempotency clean-up and the orphan-key sweep (which quarantines, never destroys) at start and then every
 * `intervalMs`, never two runs at once in this process and, through the job lock, on one instance at a
 * time when several share a database (the others skip the run). The timer is unref'd so it never keeps
 * a stopping process alive.
 */
export class PurgeScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly jobs: PurgeJobs,
    private readonly jobLock: JobLock,
    private readonly intervalMs: number,
    private readonly logger: VaultLogger,
    private readonly metrics?: { observePurge(report: PurgeRunReport | 'error' | 'skipped'): void },
  ) {}

  start(): void {
    void this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  /**
   * One purge and sweep; resolves when done (a run already under way is joined, not duplicated). When
   * another instance holds the lock, resolves without doing anything.
   */
  runOnce(): Promise<void> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * A run that starts after this call, so it sees everything done before the call (`Vault.runJobsOnce`).
   * A run already under way is waited for, not joined: it read the clock and the wallets before the
   * caller's changes (the run at start-up can still be going when the first requests have been answered).
   * A run started by someone else after this call is joined: it starts late enough.
   */
  async runAfterNow(): Promise<void> {
    await this.running;
    await this.runOnce();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      const outcome = await this.jobLock.runExclusive(PURGE_JOB, () => this.runJobs());
      if (!outcome.ran) {
        this.metrics?.observePurge('skipped');
        this.logger.debug?.({}, 'purge skipped: another instance is running it');
      }
    } catch (error) {
      this.metrics?.observePurge('error');
      this.logger.error({ err: describe(error) }, 'purge run failed; will retry');
    }
  }

  private async runJobs(): Promise<void> {
    // First, and cheap: an approval's end is on record (and its webhook due) within one interval of its expiry.
    const approvals = await this.jobs.expireApprovals?.execute();
    if (approvals !== undefined && approvals.expired > 0) this.logger.info({ approvals: approvals.expired }, 'expired approvals marked');
    const report = await this.jobs.purge.execute();
    if (report.destroyed > 0 || report.failed > 0) this.logger.info({ purge: report }, 'expired wallets purged');
    if (report.failed > 0) this.logger.warn({ failed: report.failed }, 'some expired wallets could not be purged; will retry');
    const idempotency = await this.jobs.purgeIdempotency.execute();
    if (idempotency > 0) this.logger.info({ idempotencyRecords: idempotency }, 'expired idempotency records removed');
    const sweep = await this.jobs.sweep.execute();
    if (sweep.quarantined > 0) {
      this.logger.warn({ quarantined: sweep.quarantined, held: sweep.held }, 'keys no wallet names were quarantined (kept, not signing): see `wallet-vault keys quarantine list`');
    }
    this.metrics?.observePurge({ ...report, ...sweep, swept: 0 });
    await this.checkpoint();
  }

  /** Last, and on its own: a broken chain (never signed) or a failed write does not fail the purge's run. */
  private async checkpoint(): Promise<void> {
    try {
      const written = await this.jobs.checkpoints?.runOnce();
      if (written) this.logger.info({ seq: written.seq, hash: written.hash }, 'audit checkpoint signed and recorded');
    } catch (error) {
      this.logger.error({ err: describe(error) }, 'audit checkpoint not written; will retry');
    }
  }
}

/** A failed run for the log: the error, and what caused it (the database's own message under `database unavailable`). */
const describe = (e: unknown) => {
  const cause = describeCauses(e);
  return { ...(e instanceof Error ? { name: e.name, message: e.message } : { message: String(e) }), ...(cause === undefined ? {} : { cause }) };
};
