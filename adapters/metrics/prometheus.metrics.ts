import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { PurgeRunReport } from '../../src/application/shared/purge-run-report.js';
import { LabelledCounter, LabelledHistogram } from './labelled-series.js';

/** Buckets in seconds: signing is sub-millisecond locally and up to seconds against a remote store. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type KeyStoreOperation = 'create' | 'importKey' | 'deriveKey' | 'exportKey' | 'exportSeed' | 'sign' | 'destroy' | 'ping' | 'listKeys' | 'listKeyRefs' | 'rewrap';

/**
 * The service's Prometheus metrics, in a registry of its own (not prom-client's global one), so several
 * servers in one process (the tests) never share counters. Labels are bounded sets only: route
 * patterns, never raw paths (addresses and vault ids would make one series per wallet), status codes,
 * key store names and operations.
 */
export class PrometheusMetrics {
  readonly registry = new Registry();
  // The per-request and per-sign series: counters and histograms of our own, updated without
  // prom-client's per-call label validation and hashing (labelled-series.ts).
  private readonly httpRequests: LabelledCounter;
  private readonly httpDuration: LabelledHistogram;
  private readonly signatures: LabelledCounter;
  private readonly keyStoreDuration: LabelledHistogram;
  private readonly keyStoreRetries: Counter<'store' | 'reason'>;
  private readonly purgeRuns: Counter<'outcome'>;
  private readonly purgeDeleted: Counter;
  private readonly purgeFailed: Counter;
  private readonly keysQuarantined: Counter;
  private readonly quarantinedKeys: Gauge;
  private readonly rateLimited: Counter;
  private readonly authRefused: Counter<'reason'>;
  private readonly addressLimited: Counter;
  private readonly rateLimitStoreFailed: Counter;
  private readonly rateLimitStoreSkipped: Counter;
  private readonly webhookDeliveries: Counter<'outcome'>;
  private readonly webhookFailing: Gauge;
  private readonly webhookOldestFailure: Gauge;
  private readonly logLinesDropped: Counter;
  private readonly invalidVotes: Counter;
  private readonly governanceUnverified: Gauge;
  /** How many governed vaults do not verify (read at each scrape). */
  private governanceUnverifiedSource: () => Promise<number> = async () => 0;
  private readonly simulations: Counter<'outcome'>;
  /** How many log lines the log destination has dropped so far (read at each scrape). */
  private logLinesDroppedSource: () => number = () => 0;
  private logLinesDroppedSeen = 0;
  private readonly auditSinkUp: Gauge<'sink'>;
  private readonly auditStreamed: Counter<'sink'>;
  private readonly auditSinkRefused: Counter;
  private readonly cpuCores: Gauge<'source'>;
  private readonly signingThread: Gauge;

  constructor(options: { version: string; processMetrics?: boolean }) {
    const registers = [this.registry];
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    new Gauge({ name: 'wallet_vault_info', help: 'Always 1; the version label names the running build.', labelNames: ['version'], registers, aggregator: 'first' })
      .set({ version: options.version }, 1);
    this.cpuCores = new Gauge({
      name: 'wallet_vault_cpu_cores',
      help: "Cores of CPU time this process may use, as read at start: the CPUs it may run on, or its cgroup's CPU quota where that is smaller (source: cpus, cgroup v1, cgroup v2).",
      labelNames: ['source'],
      registers,
      aggregator: 'first',
    });
    this.signingThread = new Gauge({
      name: 'wallet_vault_signing_thread',
      help: 'Whether the local and vault-transit key stores sign on a worker thread (1) or on the event loop (0): VAULT_SIGNING_THREAD, or decided from wallet_vault_cpu_cores.',
      registers,
      aggregator: 'first',
    });
    this.httpRequests = new LabelledCounter({
      name: 'wallet_vault_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new LabelledHistogram({
      name: 'wallet_vault_http_request_duration_seconds',
      help: 'Time from receiving a request to finishing its answer, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.signatures = new LabelledCounter({
      name: 'wallet_vault_signatures_total',
      help: 'Signatures made, by key store.',
      labelNames: ['key_store'],
      registers,
    });
    this.keyStoreDuration = new LabelledHistogram({
      name: 'wallet_vault_key_store_operation_duration_seconds',
      help: 'Latency of key store operations, by store, operation and outcome (ok or error).',
      labelNames: ['key_store', 'operation', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.keyStoreRetries = new Counter({
      name: 'wallet_vault_keystore_retries_total',
      help: "Requests to a remote key store retried by its client, by store and by why the attempt before failed: throttled (the service's quota, HTTP 429) or unavailable (5xx, a timeout, a reset connection).",
      labelNames: ['store', 'reason'],
      registers,
    });
    this.purgeRuns = new Counter({
      name: 'wallet_vault_purge_runs_total',
      help: 'Runs of the expiry purge, by outcome: ok, error (the run itself failed), skipped (another instance held the job lock).',
      labelNames: ['outcome'],
      registers,
    });
    this.purgeDeleted = new Counter({ name: 'wallet_vault_purge_wallets_deleted_total', help: 'Expired wallets whose key and record the purge destroyed.', registers });
    this.purgeFailed = new Counter({ name: 'wallet_vault_purge_wallets_failed_total', help: 'Expired wallets the purge could not destroy yet (retried on the next run).', registers });
    this.keysQuarantined = new Counter({
      name: 'wallet_vault_keys_quarantined_total',
      help: 'Keys of this deployment no wallet names, quarantined by the sweep (kept, not signing; never destroyed by it).',
      registers,
    });
    this.quarantinedKeys = new Gauge({
      name: 'wallet_vault_quarantined_keys',
      help: 'Keys held in quarantine after the last sweep this instance ran: each awaits `wallet-vault keys quarantine restore` or `destroy`.',
      registers,
    });
    this.rateLimited = new Counter({ name: 'wallet_vault_rate_limited_total', help: 'Requests refused by the per-API-key rate limit.', registers });
    this.rateLimitStoreFailed = new Counter({
      name: 'wallet_vault_rate_limit_store_failures_total',
      help: 'Counts the shared rate-limit store (PostgreSQL, Redis) failed or did not answer within 250 ms; each request was counted by this instance alone, and the store skipped for 5 s.',
      registers,
    });
    this.rateLimitStoreSkipped = new Counter({
      name: 'wallet_vault_rate_limit_store_skipped_seconds_total',
      help: 'Seconds the shared rate-limit store was skipped after failing: requests meanwhile were counted by this instance alone, from the last counts the store gave.',
      registers,
    });
    this.authRefused = new Counter({
      name: 'wallet_vault_auth_refused_total',
      help: 'Requests whose API key was refused, by reason (missing_header, malformed_header, not_bearer, malformed_key, unknown_key, wrong_secret, revoked_key, expired_key, rotated_key, other_vault, malformed_vault, foreign_network, ungoverned_key, ungoverned_secret).',
      labelNames: ['reason'],
      registers,
    });
    this.addressLimited = new Counter({
      name: 'wallet_vault_address_rate_limited_total',
      help: 'Requests refused by the per-client-address rate limit, before authentication.',
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: 'wallet_vault_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome: delivered (a 2xx), failed (retried with backoff), undeliverable (given up after 24 h, recorded).',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookFailing = new Gauge({
      name: 'wallet_vault_webhook_endpoints_failing',
      help: 'Webhook endpoints whose next event has failed and awaits a retry, at the last pass of the instance delivering.',
      registers,
      aggregator: 'max',
    });
    this.webhookOldestFailure = new Gauge({
      name: 'wallet_vault_webhook_oldest_failure_seconds',
      help: 'Age of the oldest first failure among events awaiting a retry (0: none); past 86400 the event is recorded undeliverable.',
      registers,
      aggregator: 'max',
    });
    this.invalidVotes = new Counter({
      name: 'wallet_vault_approval_votes_invalid_total',
      help: "Counted approval votes a release found without a valid signature of their key's approver address (or over a stored request that no longer hashes to its requestHash); they count for nothing.",
      registers,
    });
    this.governanceUnverified = new Gauge({
      name: 'wallet_vault_governance_unverified_vaults',
      help: 'Governed (or pinned) vaults whose state in force does not verify against its signed chain (docs/governance.md): each signs nothing (GOVERNANCE_UNVERIFIED) until repaired.',
      registers,
      aggregator: 'max',
      collect: async () => {
        this.governanceUnverified.set(await this.governanceUnverifiedSource().catch(() => 0));
      },
    });
    this.simulations = new Counter({
      name: 'wallet_vault_simulations_total',
      help: 'Transactions simulated on their chain before signing, by outcome: ok, reverted (refused, 422), failed (the RPC could not answer; refused, 502).',
      labelNames: ['outcome'],
      registers,
    });
    this.logLinesDropped = new Counter({
      name: 'wallet_vault_log_lines_dropped_total',
      help: 'Log lines dropped because stdout was not read: its reader was gone (EPIPE) or more than the 1 MiB buffer was waiting for it.',
      registers,
      collect: () => {
        const dropped = this.logLinesDroppedSource();
        if (dropped > this.logLinesDroppedSeen) this.logLinesDropped.inc(dropped - this.logLinesDroppedSeen);
        this.logLinesDroppedSeen = dropped;
      },
    });
    this.auditSinkUp = new Gauge({
      name: 'wallet_vault_audit_sink_up',
      help: 'Whether the audit sink accepted its last delivery or probe from this instance (1) or not (0).',
      labelNames: ['sink'],
      registers,
      aggregator: 'min',
    });
    this.auditStreamed = new Counter({ name: 'wallet_vault_audit_records_streamed_total', help: 'Audit records the sink accepted from this instance.', labelNames: ['sink'], registers });
    this.auditSinkRefused = new Counter({
      name: 'wallet_vault_audit_sink_refused_writes_total',
      help: 'Writes refused (503 AUDIT_SINK_UNAVAILABLE) because VAULT_AUDIT_REQUIRE_SINK is set and no audit sink accepted records.',
      registers,
    });
  }

  /** Audit streaming (docs/operations.md "Audit streaming"): a sink's state after each delivery or probe. */
  observeAuditSink(sink: string, up: boolean): void {
    this.auditSinkUp.set({ sink }, up ? 1 : 0);
  }

  observeAuditStreamed(sink: string, records: number): void {
    this.auditStreamed.inc({ sink }, records);
  }

  observeAuditSinkRefusal(): void {
    this.auditSinkRefused.inc();
  }

  /** Reads wallet_vault_governance_unverified_vaults from `unverified()` at each scrape. */
  countUnverifiedGovernance(unverified: () => Promise<number>): void {
    this.governanceUnverifiedSource = unverified;
  }

  /** The CPU this process was given and what was decided from it (reported once, at start). */
  reportCpuBudget(budget: { readonly cores: number; readonly quota: { readonly source: string } | null }, signingThread: boolean): void {
    this.cpuCores.set({ source: budget.quota?.source ?? 'cpus' }, budget.cores);
    this.signingThread.set(signingThread ? 1 : 0);
  }

  /** Counts the log lines `dropped()` reports (a running total) in wallet_vault_log_lines_dropped_total. */
  countDroppedLogLines(dropped: () => number): void {
    this.logLinesDroppedSource = dropped;
    this.logLinesDroppedSeen = 0;
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc(method, route, status);
    this.httpDuration.observe(seconds, method, route, status);
  }

  observeKeyStore(keyStore: string, operation: KeyStoreOperation, ok: boolean, seconds: number): void {
    this.keyStoreDuration.observe(seconds, keyStore, operation, ok ? 'ok' : 'error');
    if (ok && operation === 'sign') this.signatures.inc(keyStore);
  }

  /** A remote key store retried a request (KeyStoreOpenContext.retried): wallet_vault_keystore_retries_total. */
  observeKeyStoreRetry(store: string, reason: 'throttled' | 'unavailable'): void {
    this.keyStoreRetries.inc({ store, reason });
  }

  observePurge(report: PurgeRunReport | 'error' | 'skipped'): void {
    if (report === 'error' || report === 'skipped') {
      this.purgeRuns.inc({ outcome: report });
      return;
    }
    this.purgeRuns.inc({ outcome: 'ok' });
    this.purgeDeleted.inc(report.destroyed);
    this.purgeFailed.inc(report.failed);
    this.keysQuarantined.inc(report.quarantined);
    this.quarantinedKeys.set(report.held);
  }

  observeWebhookDelivery(outcome: 'delivered' | 'failed' | 'undeliverable'): void {
    this.webhookDeliveries.inc({ outcome });
  }

  observeWebhookBacklog(endpoints: number, oldestSeconds: number): void {
    this.webhookFailing.set(endpoints);
    this.webhookOldestFailure.set(oldestSeconds);
  }

  /** Votes a release found without a valid signature of their key's credential: an alert fires on any. */
  observeInvalidVotes(count: number): void {
    this.invalidVotes.inc(count);
  }

  observeSimulation(outcome: 'ok' | 'reverted' | 'failed'): void {
    this.simulations.inc({ outcome });
  }

  observeRateLimited(): void {
    this.rateLimited.inc();
  }

  /** A RefusedAuthObserver: counts each refused authentication by its reason (a closed set). */
  refused(event: { reason: string }): void {
    this.authRefused.inc({ reason: event.reason });
  }

  observeAddressRateLimited(): void {
    this.addressLimited.inc();
  }

  observeRateLimitStoreFailed(): void {
    this.rateLimitStoreFailed.inc();
  }

  observeRateLimitStoreSkipped(seconds: number): void {
    this.rateLimitStoreSkipped.inc(seconds);
  }

  /** The text exposition format and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
