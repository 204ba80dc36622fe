import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { AuditStreamCursors } from '../../src/ports/audit-stream-cursors.port.js';
import type { JobLock } from '../../src/ports/job-lock.port.js';
import type { AuditWatch } from '../../src/ports/persistence.port.js';
import type { AuditSink } from './audit-stream-schema.js';

interface Logger {
  warn(o: object, m?: string): void;
  info(o: object, m?: string): void;
}

export interface AuditStreamMetrics {
  /** Whether `sink` accepted its last delivery or probe (1) or not (0). */
  observeAuditSink(sink: string, up: boolean): void;
  observeAuditStreamed(sink: string, records: number): void;
}

export interface AuditStreamSettings {
  /** How often the trail is read for records after each cursor, and a standby instance probes (ms). */
  readonly pollIntervalMs: number;
  /** At most this many records are held in memory and sent at once: the queue is the trail itself. */
  readonly batch: number;
  /** The first retry's delay after a sink failed; each next one doubles, up to `maxBackoffMs`. */
  readonly firstBackoffMs: number;
  readonly maxBackoffMs: number;
  /** How long one instance streams before it releases the job lock and takes it again (ms). */
  readonly leaseMs: number;
  /** False in a process that runs no background jobs (a worker past the first): it only probes the sinks, for its own writes' gate. */
  readonly streams: boolean;
  /**
   * Whether this instance's writes ask accepting() (VAULT_AUDIT_REQUIRE_SINK): then the sinks are probed
   * at start and, while another instance streams, every poll interval. Without it only the streaming
   * instance learns (and reports) whether a sink accepts.
   */
  readonly probes: boolean;
}

export const DEFAULT_AUDIT_STREAM_SETTINGS: AuditStreamSettings = {
  pollIntervalMs: 1000,
  batch: 500,
  firstBackoffMs: 500,
  maxBackoffMs: 60_000,
  leaseMs: 60_000,
  streams: true,
  probes: false,
};

/** The job lock name: with several instances on one database, one of them streams (in `seq` order). */
export const AUDIT_STREAM_JOB = 'audit-stream';
/** Failures of the database (not of sinks) are logged at most this often while they last. */
const ERROR_LOG_MS = 30_000;
/** Passes prompted by records appended here start at most this often (ms). */
const NUDGE_SPACING_MS = 25;

interface SinkState {
  readonly sink: AuditSink;
  up: boolean;
  failures: number;
  retryAt: number;
  /** The cursor, where the persistence keeps none (each instance then streams from its start). */
  cursor: number;
}

/**
 * Streams the audit chain to each sink in `seq` order, after the sink's cursor, under the job lock (one
 * instance at a time on a shared database, so records of every instance arrive in one order). A batch
 * the sink accepted moves its cursor, durably; a failure is retried with exponential backoff, from the
 * cursor, so records written while a sink was down are delivered once it is back. At least once: a
 * process killed between a send and the cursor's write sends that batch again; receivers dedupe by
 * `event.sequence`. Nothing here is awaited by a write: a sink that is slow or down costs a sign nothing.
 */
export class AuditStreamer {
  private readonly states: SinkState[];
  private timer: NodeJS.Timeout | undefined;
  private leading: Promise<void> | undefined;
  private stopping = false;
  /** While another instance holds the lock: not asked again before this (Date.now()). */
  private standbyUntil = 0;
  private nudged = false;
  private wake: (() => void) | undefined;
  private unwatch: (() => void) | undefined;
  private lastErrorLogged = 0;

  constructor(
    private readonly auditLog: AuditLog,
    private readonly cursors: AuditStreamCursors | undefined,
    private readonly jobLock: JobLock,
    sinks: readonly AuditSink[],
    private readonly logger: Logger,
    private readonly metrics: AuditStreamMetrics | undefined,
    private readonly watchAudit: AuditWatch | undefined,
    private readonly settings: AuditStreamSettings = DEFAULT_AUDIT_STREAM_SETTINGS,
  ) {
    this.states = sinks.map((sink) => ({ sink, up: false, failures: 0, retryAt: 0, cursor: 0 }));
  }

  /** Whether any configured sink accepted its last delivery or probe (VAULT_AUDIT_REQUIRE_SINK refuses writes otherwise). */
  accepting(): boolean {
    return this.states.some((s) => s.up);
  }

  /** Starts streaming; with `probes`, resolves once each sink was tried once (so the first write knows whether a sink accepts). */
  async start(): Promise<void> {
    this.unwatch = this.watchAudit?.(() => this.nudge());
    this.timer = setInterval(() => this.poll(), this.settings.pollIntervalMs);
    this.timer.unref();
    if (this.settings.probes) await Promise.all(this.states.map((s) => this.probe(s)));
    this.poll();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unwatch?.();
    clearInterval(this.timer);
    this.wake?.();
    await this.leading;
    for (const s of this.states) s.sink.close();
  }

  private nudge(): void {
    if (!this.leading) return this.poll();
    this.nudged = true;
    this.wake?.();
  }

  private poll(): void {
    if (this.stopping || this.leading || Date.now() < this.standbyUntil) return;
    this.leading = (this.settings.streams ? this.jobLock.runExclusive(AUDIT_STREAM_JOB, () => this.lead()) : Promise.resolve({ ran: false as const }))
      .then(
        async (outcome) => {
          // Another instance streams: this one only asks whether a sink accepts, for its own writes' gate.
          if (outcome.ran) return;
          this.standbyUntil = Date.now() + this.settings.pollIntervalMs;
          if (this.settings.probes) await Promise.all(this.states.map((s) => this.probe(s)));
        },
        (error: unknown) => this.logger.warn({ err: describe(error) }, 'audit stream could not take its job lock; will retry'),
      )
      .finally(() => {
        this.leading = undefined;
      });
  }

  private async lead(): Promise<void> {
    const until = Date.now() + this.settings.leaseMs;
    while (!this.stopping && Date.now() < until) {
      const started = Date.now();
      this.nudged = false;
      let more = false;
      for (const s of this.states) more = (await this.deliver(s)) || more;
      if (!more) await this.pause(started);
    }
  }

  /** One batch to the sink after its cursor; true when more records may be waiting. */
  private async deliver(state: SinkState): Promise<boolean> {
    if (Date.now() < state.retryAt) return false;
    let records;
    try {
      // Read at each batch: another instance may have streamed since, or a replay moved it back.
      const cursor = this.cursors ? ((await this.cursors.read(state.sink.name)) ?? 0) : state.cursor;
      records = await this.auditLog.list({ afterSeq: cursor, limit: this.settings.batch });
    } catch (error) {
      // The database, not the sink: the next pass reads again.
      this.databaseFailed(error);
      return false;
    }
    if (records.length === 0) {
      if (!state.up) await this.probe(state);
      return false;
    }
    try {
      await state.sink.send(records);
    } catch (error) {
      this.failed(state, error);
      return false;
    }
    const last = records[records.length - 1]!.seq;
    this.metrics?.observeAuditStreamed(state.sink.name, records.length);
    this.succeeded(state);
    try {
      await this.cursors?.write(state.sink.name, last);
    } catch (error) {
      // Sent but not recorded: sent again at the next pass (at least once; receivers dedupe by seq).
      this.databaseFailed(error);
      return false;
    }
    state.cursor = last;
    return records.length === this.settings.batch;
  }

  /** Logs a failure of the database at most once every ERROR_LOG_MS while it lasts. */
  private databaseFailed(error: unknown): void {
    if (Date.now() - this.lastErrorLogged < ERROR_LOG_MS) return;
    this.lastErrorLogged = Date.now();
    this.logger.warn({ err: describe(error) }, 'audit stream could not read the trail or write its cursor; will retry');
  }

  private async probe(state: SinkState): Promise<void> {
    try {
      await state.sink.probe();
      this.succeeded(state);
    } catch (error) {
      this.failed(state, error);
    }
  }

  private succeeded(state: SinkState): void {
    if (!state.up && state.failures > 0) this.logger.info({ sink: state.sink.name }, 'audit sink accepts records again');
    state.up = true;
    state.failures = 0;
    state.retryAt = 0;
    this.metrics?.observeAuditSink(state.sink.name, true);
  }

  private failed(state: SinkState, error: unknown): void {
    if (state.failures === 0) this.logger.warn({ sink: state.sink.name, err: describe(error) }, 'audit sink does not accept records; retrying with backoff');
    state.up = false;
    state.failures++;
    state.retryAt = Date.now() + Math.min(this.settings.firstBackoffMs * 2 ** Math.min(state.failures - 1, 30), this.settings.maxBackoffMs);
    this.metrics?.observeAuditSink(state.sink.name, false);
  }

  /** Until the next pass: the poll interval, or soon after a nudge; at once when stopping. */
  private pause(passStarted: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout;
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      this.wake = () => {
        if (this.stopping) return done();
        clearTimeout(timer);
        timer = setTimeout(done, Math.max(0, passStarted + NUDGE_SPACING_MS - Date.now()));
      };
      timer = setTimeout(done, this.nextWait());
      if (this.nudged || this.stopping) this.wake();
    });
  }

  /** The poll interval, or sooner when a sink's retry falls due before it. */
  private nextWait(): number {
    const now = Date.now();
    const due = this.states.filter((s) => s.retryAt > now).map((s) => s.retryAt - now);
    return Math.min(this.settings.pollIntervalMs, ...due);
  }
}

const describe = (e: unknown) => (e instanceof Error ? { name: e.name, message: e.message } : { message: String(e) });
