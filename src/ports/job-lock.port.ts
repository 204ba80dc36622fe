/** What `runExclusive` did: ran the work (with its result), or left it to the instance that holds the lock. */
export type ExclusiveRun<T> = { readonly ran: true; readonly value: T } | { readonly ran: false };

/**
 * Background jobs (the expiry purge, the orphan sweep) run on one instance at a time when several
 * instances share a database, so each key is destroyed by exactly one of them.
 */
export interface JobLock {
  /**
   * Runs `work` while holding the lock named `job`, released when `work` settles (or when this
   * process dies). When anyone holds it (another instance, or another run of the same job in this
   * process), resolves `{ ran: false }` at once without running. When `work` throws or rejects, the lock
   * is released and the promise rejects with that error.
   */
  runExclusive<T>(job: string, work: () => Promise<T>): Promise<ExclusiveRun<T>>;
}
