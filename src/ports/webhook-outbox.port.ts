import type { AuditAction, AuditRecord } from './audit-log.port.js';

/** The audit actions a webhook endpoint can receive (docs/webhooks.md); `approval.voted` is not delivered. */
export const WEBHOOK_EVENT_TYPES = [
  'approval.requested',
  'approval.decided',
  'signature.issued',
  'wallet.expired',
  'wallet.deleted',
  'key.quarantined',
  // The signed checkpoint of the audit chain's head (docs/security.md): kept by receivers outside the database.
  'audit.checkpoint',
] as const satisfies readonly AuditAction[];
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Where a vault's events are delivered, and how far delivery has got. */
export interface WebhookEndpoint {
  readonly id: string;
  readonly vaultId: string;
  /** `https://…` (or `http://` to a loopback host). */
  readonly url: string;
  /** The event types it receives, in WEBHOOK_EVENT_TYPES order. */
  readonly events: readonly WebhookEventType[];
  readonly created: Date;
  /**
   * The audit `seq` up to which this endpoint is done: every event of its vault and types at or below it
   * was delivered (a 2xx) or recorded undeliverable. A new endpoint starts at the head of the chain.
   */
  readonly deliveredSeq: number;
  /** Failed attempts at the event after deliveredSeq; 0 when the last attempt succeeded. */
  readonly attempts: number;
  /** When that event is tried again (null: as soon as there is one). */
  readonly nextAttempt: Date | null;
  /** When that event first failed (null: it has not). Past 24 h it is given up. */
  readonly firstFailure: Date | null;
  /** What the last failed attempt got (`HTTP 500`, `timeout`, ...), never a response body. */
  readonly lastError: string | null;
}

/** An event given up on: 24 h of failed attempts. Kept for the operator; the cursor moved past it. */
export interface UndeliverableWebhook {
  readonly endpointId: string;
  readonly vaultId: string;
  readonly seq: number;
  readonly type: string;
  readonly firstFailure: Date;
  readonly givenUp: Date;
  readonly attempts: number;
  readonly lastError: string | null;
}

/**
 * The webhook outbox: the audit chain itself (every event to deliver is an audit record, written in the
 * same transaction as the state change it reports, numbered by `seq`) plus one cursor per endpoint. So the
 * sign path writes nothing more. Every write is durable when it resolves.
 */
export interface WebhookOutbox {
  /** Stores a new endpoint whose cursor is the current head of the audit chain (no history is replayed). */
  addEndpoint(endpoint: { readonly id: string; readonly vaultId: string; readonly url: string; readonly events: readonly WebhookEventType[]; readonly created: Date }): Promise<WebhookEndpoint>;
  /** The endpoints of a vault (every vault when absent), oldest first. */
  listEndpoints(vaultId?: string): Promise<WebhookEndpoint[]>;
  /** False when the vault has no such endpoint. */
  removeEndpoint(vaultId: string, id: string): Promise<boolean>;
  /**
   * In one query: the chain's head, and each endpoint whose cursor is below it with the `seq` of its next
   * event (its vault's, of its types, up to the head), or null when the records since its cursor hold none;
   * `anyEndpoint`: whether any endpoint exists at all, behind or not (false: this process's next events
   * prompt no pass; absent, from an outbox written for an earlier release: taken as true).
   */
  behind(): Promise<{
    readonly head: number;
    readonly endpoints: (WebhookEndpoint & { readonly nextSeq: number | null })[];
    readonly anyEndpoint?: boolean;
  }>;
  /**
   * The first record of the endpoint's vault and types with `deliveredSeq < seq <= upTo`, or null.
   * Bounded by `upTo` so that a long run of other records is skipped in steps, never scanned whole.
   */
  nextEvent(endpoint: WebhookEndpoint, upTo: number): Promise<AuditRecord | null>;
  /**
   * Moves the cursor from `from` to `to` and clears the failure state; false (nothing written) when the
   * cursor is no longer `from` (the endpoint was removed, or another run moved it).
   */
  advance(endpointId: string, from: number, to: number): Promise<boolean>;
  /** Records a failed attempt at the event after the cursor `at` (ignored when the cursor moved). */
  recordFailure(endpointId: string, at: number, failure: { readonly attempts: number; readonly nextAttempt: Date; readonly firstFailure: Date; readonly lastError: string }): Promise<void>;
  /** In one transaction: records `event` undeliverable and moves the cursor past it (false when the cursor moved). */
  giveUp(endpoint: WebhookEndpoint, event: AuditRecord, givenUp: Date, lastError: string): Promise<boolean>;
  /**
   * Replays an endpoint's events from `fromSeq` on: in one transaction, moves its cursor back to
   * `fromSeq - 1`, clears its failure state and forgets its undeliverable records at or after `fromSeq`
   * (they are sent again). Never moves a cursor forward: when `fromSeq - 1` is past the cursor nothing is
   * written. Answers the cursor as it was, or null when the vault has no such endpoint. (Absent in an
   * outbox written for an earlier release: replays are refused.)
   */
  rewind?(vaultId: string, endpointId: string, fromSeq: number): Promise<{ readonly previousSeq: number } | null>;
  /** Events given up on, of a vault (every vault when absent), most recent first, at most `limit`. */
  listUndeliverable(query: { readonly vaultId?: string; readonly limit: number }): Promise<UndeliverableWebhook[]>;
  /**
   * The deployment's webhook signing key (a PKCS#8 PEM), created with `generate` on first use and kept in
   * the database, so every instance signs with the same one. Used only when no key is configured.
   */
  storedSigningKey(generate: () => string, now: Date): Promise<string>;
}
