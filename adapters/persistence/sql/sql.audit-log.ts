import { prepareAuditEvent } from '../../../src/domain/audit-chain.js';
import type { AuditEvent, AuditLog, AuditRecord } from '../../../src/ports/audit-log.port.js';
import type { FreezeFence } from '../../../src/ports/freeze-fence.js';
import { AUDIT } from './rows.js';
import type { SqlDatabase } from './sql-database.js';

const LIST_ALL = `SELECT ${AUDIT.columns} FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2`;
const LIST_VAULT = `SELECT ${AUDIT.columns} FROM audit_log WHERE vault_id = $3 AND seq > $1 ORDER BY seq LIMIT $2`;

/**
 * The hash-chained audit trail. Appends go through the database's commitDurable, which chains them
 * (appendChained) after the head it reads while holding what keeps the head from moving (SQLite's write
 * lock, PostgreSQL's advisory lock): a writer on another connection or instance chains after it, so the
 * chain never forks and seq never skips.
 */
export class SqlAuditLog implements AuditLog {
  constructor(private readonly db: SqlDatabase) {}

  append(event: AuditEvent, fence?: FreezeFence | null): Promise<void> {
    try {
      // Checked now, so an event that cannot be stored fails alone rather than its whole batch.
      return this.db.commitDurable({ event: prepareAuditEvent(event), fence });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async list(query: { readonly afterSeq: number; readonly limit: number; readonly vaultId?: string }): Promise<AuditRecord[]> {
    const { afterSeq, limit, vaultId } = query;
    const rows = await this.db.all<object>(vaultId === undefined ? LIST_ALL : LIST_VAULT, vaultId === undefined ? [afterSeq, limit] : [afterSeq, limit, vaultId]);
    return rows.map((r) => AUDIT.read(r, this.db.instant));
  }
}
