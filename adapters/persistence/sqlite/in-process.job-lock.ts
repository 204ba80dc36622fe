import type { ExclusiveRun, JobLock } from '../../../src/ports/job-lock.port.js';

/**
 * The job lock for the SQLite deployment. A SQLite data directory is served by one server, which runs
 * its jobs in one process (worker 0 when VAULT_WORKERS > 1; operator commands never run jobs), so "one
 * instance at a time" reduces to "one run at a time in this process", and a held name in memory is enough: no lock row, no lease to
 * expire, nothing left behind by a crash. Should a second server ever be started on the same directory
 * anyway, the purge and sweep stay safe: each of their steps is idempotent. A database shared by several
 * servers (PostgreSQL) needs a lock the database holds instead.
 */
export class InProcessJobLock implements JobLock {
  protected readonly held = new Set<string>();

  async runExclusive<T>(job: string, work: () => Promise<T>): Promise<ExclusiveRun<T>> {
    if (this.held.has(job)) return { ran: false };
    this.held.add(job);
    try {
      return { ran: true, value: await work() };
    } finally {
      this.held.delete(job);
    }
  }
}
