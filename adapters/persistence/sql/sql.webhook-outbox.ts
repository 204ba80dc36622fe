import type { AuditRecord } from '../../../src/ports/audit-log.port.js';
import {
  WEBHOOK_EVENT_TYPES,
  type UndeliverableWebhook,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookOutbox,
} from '../../../src/ports/webhook-outbox.port.js';
import { AUDIT_COLUMNS, toAuditRecord, type AuditRow } from './rows.js';
import type { SqlDatabase } from './sql-database.js';

interface EndpointRow {
  id: string;
  vault_id: string;
  url: string;
  events: string;
  created: unknown;
  delivered_seq: number | string;
  attempts: number;
  next_attempt: unknown;
  first_failure: unknown;
  last_error: string | null;
}

interface UndeliverableRow {
  endpoint_id: string;
  vault_id: string;
  seq: number | string;
  type: string;
  first_failure: unknown;
  given_up: unknown;
  attempts: number;
  last_error: string | null;
}

const ENDPOINT_COLUMNS = 'id, vault_id, url, events, created, delivered_seq, attempts, next_attempt, first_failure, last_error';
const HEAD = 'SELECT COALESCE(MAX(seq), 0) FROM audit_log';

/**
 * The webhook outbox over the audit chain (written once for both dialects): endpoints with their cursor,
 * the events given up on, and the generated signing key. The next event of an endpoint is read from
 * audit_log through its (vault_id, seq) index.
 */
export class SqlWebhookOutbox implements WebhookOutbox {
  constructor(private readonly db: SqlDatabase) {}

  async addEndpoint(e: { id: string; vaultId: string; url: string; events: readonly WebhookEventType[]; created: Date }): Promise<WebhookEndpoint> {
    // The cursor is the head read in the same statement: events from here on are delivered, none before.
    const [row] = await this.db.all<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, vault_id, url, events, created, delivered_seq, attempts)
       VALUES ($1, $2, $3, $4, $5, (${HEAD}), 0)
       RETURNING ${ENDPOINT_COLUMNS}`,
      [e.id, e.vaultId, e.url, e.events.join(','), e.created],
    );
    return this.endpoint(row!);
  }

  async listEndpoints(vaultId?: string): Promise<WebhookEndpoint[]> {
    const rows =
      vaultId === undefined
        ? await this.db.all<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created, id`)
        : await this.db.all<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE vault_id = $1 ORDER BY created, id`, [vaultId]);
    return rows.map((r) => this.endpoint(r));
  }

  async removeEndpoint(vaultId: string, id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM webhook_endpoints WHERE vault_id = $1 AND id = $2', [vaultId, id])) === 1;
  }

  async behind(): Promise<{ head: number; endpoints: (WebhookEndpoint & { nextSeq: number | null })[]; anyEndpoint: boolean }> {
    // The next event of each endpoint through the audit log's (vault_id, seq) index, over the records of
    // its vault since its cursor only (the dispatcher keeps that range short by moving idle cursors on).
    const rows = await this.db.all<EndpointRow & { head: number | string; any_endpoint: number | string; next_seq: number | string | null }>(
      `SELECT ${ENDPOINT_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ')}, h.head, h.any_endpoint,
         (SELECT MIN(a.seq) FROM audit_log a
           WHERE a.vault_id = e.vault_id AND a.seq > e.delivered_seq AND a.seq <= h.head
             AND (',' || e.events || ',') LIKE ('%,' || a.action || ',%')) AS next_seq
       FROM (SELECT (${HEAD}) AS head, CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints) THEN 1 ELSE 0 END AS any_endpoint) h
       LEFT JOIN webhook_endpoints e ON e.delivered_seq < h.head ORDER BY e.created, e.id`,
    );
    const head = rows.length > 0 ? Number(rows[0]!.head) : 0;
    return {
      head,
      endpoints: rows.filter((r) => r.id !== null).map((r) => ({ ...this.endpoint(r), nextSeq: r.next_seq === null ? null : Number(r.next_seq) })),
      anyEndpoint: rows.length > 0 && Number(rows[0]!.any_endpoint) === 1,
    };
  }

  async nextEvent(endpoint: WebhookEndpoint, upTo: number): Promise<AuditRecord | null> {
    const types = endpoint.events.map((_, i) => `$${i + 4}`).join(', ');
    const [row] = await this.db.all<AuditRow<unknown>>(
      `SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE vault_id = $1 AND seq > $2 AND seq <= $3 AND action IN (${types}) ORDER BY seq LIMIT 1`,
      [endpoint.vaultId, endpoint.deliveredSeq, upTo, ...endpoint.events],
    );
    return row ? toAuditRecord(row, this.db.instant) : null;
  }

  async advance(endpointId: string, from: number, to: number): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE webhook_endpoints SET delivered_seq = $3, attempts = 0, next_attempt = NULL, first_failure = NULL, last_error = NULL
       WHERE id = $1 AND delivered_seq = $2`,
      [endpointId, from, to],
    );
    return changed === 1;
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
      const moved = await tx.run(
        `UPDATE webhook_endpoints SET delivered_seq = $3, attempts = 0, next_attempt = NULL, first_failure = NULL, last_error = NULL
         WHERE id = $1 AND delivered_seq = $2`,
        [endpoint.id, endpoint.deliveredSeq, event.seq],
      );
      if (moved !== 1) return false;
      await tx.run(
        `INSERT INTO webhook_undeliverable (endpoint_id, vault_id, seq, type, first_failure, given_up, attempts, last_error)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (endpoint_id, seq) DO NOTHING`,
        [endpoint.id, endpoint.vaultId, event.seq, event.action, endpoint.firstFailure ?? givenUp, givenUp, endpoint.attempts + 1, lastError],
      );
      return true;
    });
  }

  async listUndeliverable(query: { vaultId?: string; limit: number }): Promise<UndeliverableWebhook[]> {
    const columns = 'endpoint_id, vault_id, seq, type, first_failure, given_up, attempts, last_error';
    const rows =
      query.vaultId === undefined
        ? await this.db.all<UndeliverableRow>(`SELECT ${columns} FROM webhook_undeliverable ORDER BY given_up DESC, seq DESC LIMIT $1`, [query.limit])
        : await this.db.all<UndeliverableRow>(`SELECT ${columns} FROM webhook_undeliverable WHERE vault_id = $2 ORDER BY given_up DESC, seq DESC LIMIT $1`, [
            query.limit,
            query.vaultId,
          ]);
    return rows.map((r) => ({
      endpointId: r.endpoint_id,
      vaultId: r.vault_id,
      seq: Number(r.seq),
      type: r.type,
      firstFailure: this.db.instant(r.first_failure),
      givenUp: this.db.instant(r.given_up),
      attempts: r.attempts,
      lastError: r.last_error,
    }));
  }

  async storedSigningKey(generate: () => string, now: Date): Promise<string> {
    const read = async () => (await this.db.all<{ private_key: string }>('SELECT private_key FROM webhook_signing_key WHERE singleton = 1'))[0]?.private_key;
    const found = await read();
    if (found !== undefined) return found;
    // Two instances starting together: one insert wins, both then sign with the row that is stored.
    await this.db.run('INSERT INTO webhook_signing_key (singleton, private_key, created) VALUES (1, $1, $2) ON CONFLICT (singleton) DO NOTHING', [generate(), now]);
    return (await read())!;
  }

  private endpoint(r: EndpointRow): WebhookEndpoint {
    const listed = new Set(r.events.split(','));
    return {
      id: r.id,
      vaultId: r.vault_id,
      url: r.url,
      events: WEBHOOK_EVENT_TYPES.filter((t) => listed.has(t)),
      created: this.db.instant(r.created),
      deliveredSeq: Number(r.delivered_seq),
      attempts: r.attempts,
      nextAttempt: r.next_attempt === null ? null : this.db.instant(r.next_attempt),
      firstFailure: r.first_failure === null ? null : this.db.instant(r.first_failure),
      lastError: r.last_error,
    };
  }
}
