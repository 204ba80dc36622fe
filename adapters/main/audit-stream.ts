import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import type { JobLock } from '../../src/ports/job-lock.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import type { AuditSink } from '../audit-stream/audit-stream-schema.js';
import { AuditStreamer, DEFAULT_AUDIT_STREAM_SETTINGS, type AuditStreamMetrics } from '../audit-stream/audit-streamer.js';
import { OtlpSink, parseOtlpUrl } from '../audit-stream/otlp.sink.js';
import { parseSyslogUrl, SyslogSink } from '../audit-stream/syslog.sink.js';

/** createVault's `auditStream` (VAULT_AUDIT_SYSLOG_URL, VAULT_AUDIT_OTLP_URL, VAULT_AUDIT_REQUIRE_SINK). */
export interface AuditStreamOptions {
  /** `udp://host:port` or `tcp://host:port`: RFC 5424 syslog. */
  readonly syslogUrl?: string;
  /** The OTLP/HTTP logs URL (`http://collector:4318/v1/logs`). */
  readonly otlpUrl?: string;
  /** Refuse writes (503 AUDIT_SINK_UNAVAILABLE) while no sink accepts records. */
  readonly requireSink?: boolean;
  /** How often the trail is read for new records (ms; default 1000); records this process writes prompt a read at once. */
  readonly pollIntervalMs?: number;
  /** Bound on one delivery (ms; default 5000). */
  readonly timeoutMs?: number;
  readonly metrics?: AuditStreamMetrics & { observeAuditSinkRefusal(): void };
}

interface Logger {
  warn(o: object, m?: string): void;
  info(o: object, m?: string): void;
}

/** The configured sinks, in a fixed order (their names are their cursors' names). */
export function auditSinksOf(options: AuditStreamOptions): AuditSink[] {
  const timeoutMs = options.timeoutMs ?? 5000;
  const sinks: AuditSink[] = [];
  if (options.syslogUrl !== undefined) sinks.push(new SyslogSink(parseSyslogUrl(options.syslogUrl), timeoutMs));
  if (options.otlpUrl !== undefined) sinks.push(new OtlpSink(parseOtlpUrl(options.otlpUrl), timeoutMs));
  return sinks;
}

/** The stream of the audit trail to the configured sinks; undefined when none is configured. */
/** `streams`: false where no background job runs (a worker past the first), which only probes the sinks for its gate. */
export function auditStreamerOf(options: AuditStreamOptions, persistence: Persistence, jobLock: JobLock, logger: Logger, streams: boolean): AuditStreamer | undefined {
  const sinks = auditSinksOf(options);
  // A process that neither streams nor refuses writes has nothing to do with the sinks.
  if (sinks.length === 0 || (!streams && options.requireSink !== true)) return undefined;
  return new AuditStreamer(persistence.auditLog, persistence.auditStreamCursors, jobLock, sinks, logger, options.metrics, persistence.watchAudit?.bind(persistence), {
    ...DEFAULT_AUDIT_STREAM_SETTINGS,
    pollIntervalMs: options.pollIntervalMs ?? DEFAULT_AUDIT_STREAM_SETTINGS.pollIntervalMs,
    streams,
    probes: options.requireSink === true,
  });
}

/** VAULT_AUDIT_REQUIRE_SINK's refusal, asked by the HTTP pipeline before a write. */
export function auditSinkGate(streamer: AuditStreamer, metrics: { observeAuditSinkRefusal(): void } | undefined): () => void {
  return () => {
    if (streamer.accepting()) return;
    metrics?.observeAuditSinkRefusal();
    throw new DomainError(ErrorCode.AUDIT_SINK_UNAVAILABLE, 'no audit sink accepts records (VAULT_AUDIT_REQUIRE_SINK is set): writes are refused until one does; nothing was written');
  };
}
