/**
 * How far each audit sink (syslog, OTLP: docs/operations.md "Audit streaming") has received the audit
 * chain, kept beside the chain so that a restarted instance, or the next instance to take the stream's
 * job lock, resumes after the last record a sink accepted. Every write is durable when it resolves.
 */
export interface AuditStreamCursors {
  /** The `seq` up to which `sink` received the chain, or null when it never streamed. */
  read(sink: string): Promise<number | null>;
  /** Sets `sink`'s cursor to `seq` (forward after a delivery; anywhere for a replay). */
  write(sink: string, seq: number): Promise<void>;
}
