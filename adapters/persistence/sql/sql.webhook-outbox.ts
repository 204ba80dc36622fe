import type { AuditRecord } from '../../../src/ports/audit-log.port.js';
import {
  WEBHOOK_EVENT_TYPES,
  type UndeliverableWebhook,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookOutbox,
} from '../../../src/ports/webhook-outbox.port.js';
import { AS_IS, AUDIT, INSTANT, NUMBER, rowPlaceholders, Table } from './rows.js';
import type { SqlDatabase } from './sql-database.js';

const ENDPOINTS = new Table<WebhookEndpoint>('webhook_endpoints', {
  id: AS_IS, vaultId: AS_IS, url: AS_IS,
  // Comma-separated, read back in WEBHOOK_EVENT_TYPES order.
  events: (text: string) => {
    const listed = new Set(text.split(','));
    return WEBHOOK_EVENT_TYPES.filter((t) => listed.has(t));
  },
  created: INSTANT, deliveredSeq: NUMBER, attempts: AS_IS, nextAttempt: INSTANT, firstFailure: INSTANT, lastError: AS_IS,
});
const UNDELIVERABLE = new Table<UndeliverableWebhook>('webhook_undeliverable', {
  endpointId: AS_IS, vaultId: AS_IS, seq: NUMBER, type: AS_IS, firstFailure: INSTANT, givenUp: INSTANT, attempts: AS_IS, lastError: AS_IS,
});
const HEAD = 'SELECT COALESCE(MAX(seq), 0) FROM audit_log';
/** An endpoint's failure state, cleared: its next event has not failed yet. */
const NO_FAILURES = 'attempts = 0, next_attempt = NULL, first_failure = NULL, last_error = NULL';
// Moves the cursor from $2 to $3 (unless another instance moved it first), clearing the failures.
const ADVANCE = `UPDATE webhook_endpoints SET delivered_seq = $3, ${NO_FAILURES} WHERE id = $1 AND delivered_seq = $2`;

/**
 * The webhook outbox over the audit chain (written once for both dialects): endpoints with their cursor,
 * the events given up on, and the generated signing key. The next event of an endpoint is read from
 * audit_log through its (vault_id, seq) index.
 */
export class SqlWebhookOutbox implements WebhookOutbox {
  constructor(private readonly db: SqlDatabase) {}

  async addEndpoint(e: { id: string; vaultId: string; url: string; events: readonly WebhookEventType[]; created: Date }): Promise<WebhookEndpoint> {
    // The cursor is the head read in the same statement: events from here on are delivered, none before.
    const [row] = await this.db.all<object>(
      `INSERT INTO webhook_endpoints (id, vault_id, url, events, created, delivered_seq, attempts)
       VALUES ($1, $2, $3, $4, $5, (${HEAD}), 0)
       RETURNING ${ENDPOINTS.columns}`,
      [e.id, e.vaultId, e.url, e.events.join(','), e.created],
    );
    return ENDPOINTS.read(row!, this.db.instant);
  }

  async listEndpoints(vaultId?: string): Promise<WebhookEndpoint[]> {
    const where = vaultId === undefined ? '' : ' WHERE vault_id = $1';
    const rows = await this.db.all<object>(`${ENDPOINTS.select}${where} ORDER BY created, id`, vaultId === undefined ? [] : [vaultId]);
    return rows.map((r) => ENDPOINTS.read(r, this.db.instant));
  }

  async removeEndpoint(vaultId: string, id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM webhook_endpoints WHERE vault_id = $1 AND id = $2', [vaultId, id])) === 1;
  }

  async behind(): Promise<{ head: number; endpoints: (WebhookEndpoint & { nextSeq: number | null })[]; anyEndpoint: boolean }> {
    // The next event of each endpoint through the audit log's (vault_id, seq) index, over the records of
    // its vault since its cursor only (the dispatcher keeps that range short by moving idle cursors on).
    const rows = await this.db.all<{ id: string | null; head: number | string; any_endpoint: number | string; next_seq: number | string | null }>(
      `SELECT ${ENDPOINTS.of('e')}, h.head, h.any_endpoint,
         (SELECT MIN(a.seq) FROM audit_log a
           WHERE a.vault_id = e.vault_id AND a.seq > e.delivered_seq AND a.seq <= h.head
             AND (',' || e.events || ',') LIKE ('%,' || a.action || ',%')) AS next_seq
       FROM (SELECT (${HEAD}) AS head, CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints) THEN 1 ELSE 0 END AS any_endpoint) h
       LEFT JOIN webhook_endpoints e ON e.delivered_seq < h.head ORDER BY e.created, e.id`,
    );
    const head = rows.length > 0 ? Number(rows[0]!.head) : 0;
    return {
      head,
      endpoints: rows.filter((r) => r.id !== null).map((r) => ({ ...ENDPOINTS.read(r, this.db.instant), nextSeq: r.next_seq === null ? null : Number(r.next_seq) })),
      anyEndpoint: rows.length > 0 && Number(rows[0]!.any_endpoint) === 1,
    };
  }

  async nextEvent(endpoint: WebhookEndpoint, upTo: number): Promise<AuditRecord | null> {
    const [row] = await this.db.all<object>(
      `${AUDIT.select} WHERE vault_id = $1 AND seq > $2 AND seq <= $3 AND action IN ${rowPlaceholders(1, endpoint.events.length, 4)} ORDER BY seq LIMIT 1`,
      [endpoint.vaultId, endpoint.deliveredSeq, upTo, ...endpoint.events],
    );
    return row ? AUDIT.read(row, this.db.instant) : null;
  }

  async advance(endpointId: string, from: number, to: number): Promise<boolean> {
    return (await this.db.run(ADVANCE, [endpointId, from, to])) === 1;
  }

  async recordFailure(endpointId: string, at: number, f: { attempts: number; nextAttempt: Date; firstFailure: Date; lastError: string }): Promise<void> {
    await this.db.run(
      `UPDATE webhook_endpoints SET attempts = $3, next_attempt = $4, first_failure = $5, last_error = $6
       WHERE id = $1 AND delivered_seq = $2`,
      [endpointId, at, f.attempts, f.nextAttempt, f.firstFailure, f.lastError],
    );
  }

  async giveUp(endpoint: WebhookEndpoint, event: AuditRecord, givenUp: Date, lastError: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if ((await tx.run(ADVANCE, [endpoint.id, endpoint.deliveredSeq, event.seq])) !== 1) return false;
      await tx.run(`${UNDELIVERABLE.insert} ON CONFLICT (endpoint_id, seq) DO NOTHING`, [
        endpoint.id, endpoint.vaultId, event.seq, event.action, endpoint.firstFailure ?? givenUp, givenUp, endpoint.attempts + 1, lastError,
      ]);
      return true;
    });
  }

  async rewind(vaultId: string, endpointId: string, fromSeq: number): Promise<{ previousSeq: number } | null> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.all<{ delivered_seq: number | string }>('SELECT delivered_seq FROM webhook_endpoints WHERE vault_id = $1 AND id = $2', [vaultId, endpointId]);
      if (!row) return null;
      const previousSeq = Number(row.delivered_seq);
      if (fromSeq - 1 > previousSeq) return { previousSeq };
      // Backwards of whatever the dispatcher moved it to since the read: a drain under way finds its cursor
      // moved (advance, recordFailure and giveUp compare it) and stops; the next pass starts from here.
      await tx.run(`UPDATE webhook_endpoints SET delivered_seq = $3, ${NO_FAILURES} WHERE vault_id = $1 AND id = $2`, [vaultId, endpointId, fromSeq - 1]);
      await tx.run('DELETE FROM webhook_undeliverable WHERE endpoint_id = $1 AND seq >= $2', [endpointId, fromSeq]);
      return { previousSeq };
    });
  }

  async listUndeliverable(query: { vaultId?: string; limit: number }): Promise<UndeliverableWebhook[]> {
    const where = query.vaultId === undefined ? '' : ' WHERE vault_id = $2';
    const params = query.vaultId === undefined ? [query.limit] : [query.limit, query.vaultId];
    const rows = await this.db.all<object>(`${UNDELIVERABLE.select}${where} ORDER BY given_up DESC, seq DESC LIMIT $1`, params);
    return rows.map((r) => UNDELIVERABLE.read(r, this.db.instant));
  }

  async storedSigningKey(generate: () => string, now: Date): Promise<string> {
    const read = async () => (await this.db.all<{ private_key: string }>('SELECT private_key FROM webhook_signing_key WHERE singleton = 1'))[0]?.private_key;
    const found = await read();
    if (found !== undefined) return found;
    // Two instances starting together: one insert wins, both then sign with the row that is stored.
    await this.db.run('INSERT INTO webhook_signing_key (singleton, private_key, created) VALUES (1, $1, $2) ON CONFLICT (singleton) DO NOTHING', [generate(), now]);
    return (await read())!;
  }
}
