import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobLock } from '../../src/ports/job-lock.port.js';

export interface JobLockFixture {
  readonly lock: JobLock;
  cleanup(): Promise<void>;
}

/** A promise and the function that settles it, to hold a job open for as long as a test needs. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

let n = 0;
/** A job name of its own per test, so a store shared by the tests never carries one test's lock into another. */
const jobName = (what: string) => `${what}-${process.pid}-${++n}-${Math.random().toString(16).slice(2)}`;

/** What every job lock must do. */
export function describeJobLockContract(name: string, make: () => Promise<JobLockFixture>): void {
  describe(`JobLock contract: ${name}`, () => {
    let f: JobLockFixture;
    beforeAll(async () => {
      f = await make();
    });
    afterAll(async () => {
      await f?.cleanup();
    });

    it('runs the work and gives back its value', async () => {
      expect(await f.lock.runExclusive(jobName('purge'), async () => 42)).toEqual({ ran: true, value: 42 });
    });

    it('answers ran:false at once, without running, while the job is held; other jobs run; after release it runs again', async () => {
      const job = jobName('purge');
      const held = gate();
      const started = gate();
      const first = f.lock.runExclusive(job, async () => {
        started.open();
        await held.opened;
        return 'first';
      });
      await started.opened;

      let secondRan = false;
      expect(
        await f.lock.runExclusive(job, async () => {
          secondRan = true;
        }),
      ).toEqual({ ran: false });
      expect(secondRan).toBe(false);
      expect(await f.lock.runExclusive(jobName('sweep'), async () => 'other')).toEqual({ ran: true, value: 'other' });

      held.open();
      expect(await first).toEqual({ ran: true, value: 'first' });
      expect(await f.lock.runExclusive(job, async () => 'again')).toEqual({ ran: true, value: 'again' });
    });

    it('releases the lock when the work fails, and passes the error on', async () => {
      const job = jobName('purge');
      const failure = new Error('store down');
      await expect(
        f.lock.runExclusive(job, async () => {
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await f.lock.runExclusive(job, async () => 'after')).toEqual({ ran: true, value: 'after' });
      const thrownAtOnce = new Error('thrown before any await');
      await expect(
        f.lock.runExclusive(job, () => {
          throw thrownAtOnce;
        }),
      ).rejects.toBe(thrownAtOnce);
      expect(await f.lock.runExclusive(job, async () => 'after')).toEqual({ ran: true, value: 'after' });
    });
  });
}
