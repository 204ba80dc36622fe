/**
 * What one run of the background jobs did (adapters/main/purge-scheduler.ts runs them): the purge's
 * wallets, and the keys the sweep quarantined (and holds after it). Here rather than beside the
 * scheduler so whoever observes the runs (Prometheus in the standalone server) names it without
 * importing the composition root.
 */
export interface PurgeRunReport {
  readonly destroyed: number;
  readonly failed: number;
  readonly quarantined: number;
  readonly held: number;
  /** Keys the sweep destroyed: always 0 now that it quarantines instead; kept for jobMetrics written for earlier releases. */
  readonly swept: 0;
}
