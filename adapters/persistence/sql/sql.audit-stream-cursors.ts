import type { AuditStreamCursors } from '../../../src/ports/audit-stream-cursors.port.js';
import type { SqlDatabase } from './sql-database.js';

/** The audit sinks' cursors, one row per sink in `audit_stream_cursors`. */
export class SqlAuditStreamCursors implements AuditStreamCursors {
  constructor(private readonly db: SqlDatabase) {}

  async read(sink: string): Promise<number | null> {
    const rows = await this.db.all<{ delivered_seq: number | string }>('SELECT delivered_seq FROM audit_stream_cursors WHERE sink = $1', [sink]);
    return rows[0] === undefined ? null : Number(rows[0].delivered_seq);
  }

  async write(sink: string, seq: number): Promise<void> {
    await this.db.run('INSERT INTO audit_stream_cursors (sink, delivered_seq) VALUES ($1, $2) ON CONFLICT (sink) DO UPDATE SET delivered_seq = excluded.delivered_seq', [sink, seq]);
  }
}
