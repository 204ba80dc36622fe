import type { AuditStreamCursors } from './audit-stream-cursors.port.js';
import type { ApprovalStore } from './approval-store.port.js';
import type { AuditAction, AuditLog } from './audit-log.port.js';
import type { ConsoleStore } from './console-store.port.js';
import type { DatabaseDump } from './database-dump.port.js';
import type { GovernanceStore } from './governance-store.port.js';
import type { JobLock } from './job-lock.port.js';
import type { KeyQuarantine } from './key-quarantine.port.js';
import type { OperatorStore } from './operator-store.port.js';
import type { PolicyRepository } from './policy-repository.port.js';
import type { ReplayGuard } from './replay-guard.port.js';
import type { RequestRateStore } from './request-rate-store.port.js';
import type { SignCounter } from './sign-counter.port.js';
import type { SignatureLog } from './signature-log.port.js';
import type { WalletRepository } from './wallet-repository.port.js';
import type { WebhookOutbox } from './webhook-outbox.port.js';

/** Persistence.watchAudit: subscribes `listener` to committed audit records (of `actions` only, when given). */
export type AuditWatch = (listener: (action: AuditAction) => void, actions?: ReadonlySet<AuditAction>) => () => void;

/**
 * One opened database, as the ports the application uses. A persistence factory
 * (`wallet-vault/persistence/sqlite`, `…/postgres`) returns one; whoever hands it to `createVault` hands
 * over its lifetime too (`vault.close()` closes it).
 */
export interface Persistence {
  readonly repository: WalletRepository;
  readonly signatureLog: SignatureLog;
  readonly auditLog: AuditLog;
  readonly policies: PolicyRepository;
  readonly jobLock: JobLock;
  /**
   * The deployment id and the quarantined keys. Absent (a persistence written for an earlier release):
   * keys are created without a deployment id and the orphan sweep finds nothing, so no key is ever
   * quarantined, let alone destroyed.
   */
  readonly keyQuarantine?: KeyQuarantine;
  /**
   * Sign counts for the policies' limits per window, shared by every process on the database. Absent (a
   * persistence written for an earlier release): a sign under a policy with limits is refused, since
   * nothing could count it.
   */
  readonly signCounter?: SignCounter;
  /**
   * Signs held for a quorum. Absent (a persistence written for an earlier release): a sign an
   * approval rule holds is refused, since nothing could hold it.
   */
  readonly approvals?: ApprovalStore;
  /**
   * Webhook endpoints and their delivery cursors over the audit chain (docs/webhooks.md). Absent (a
   * persistence written for an earlier release): no endpoint can be added and nothing is delivered.
   */
  readonly webhooks?: WebhookOutbox;
  /** The audit sinks' cursors (docs/operations.md "Audit streaming"). Absent: each instance streams from its start. */
  readonly auditStreamCursors?: AuditStreamCursors;
  /**
   * Governed vaults, their proposals and freezes (docs/governance.md). Absent (a persistence written for
   * an earlier release): no vault can be governed or frozen, and every vault is read as ungoverned.
   */
  readonly governance?: GovernanceStore;
  /**
   * The approvers' console (docs/console.md): passkeys, invites, sessions, sign-in challenges. Absent (a
   * persistence written for an earlier release, the in-memory twin): the console answers 503.
   */
  readonly console?: ConsoleStore;
  /**
   * Named operators and their credentials (docs/operators.md). Absent (a persistence written for an
   * earlier release, the in-memory twin): no operator can be made, and the admin API refuses every call.
   */
  readonly operators?: OperatorStore;
  /**
   * A replay guard shared by every process on the same database, made with the vault's clock; absent
   * when one process owns the store, which then keeps nonces in memory.
   */
  readonly replayGuard?: (now: () => number) => ReplayGuard;
  /**
   * Request counts for the per-API-key rate limit, shared by every process on the database (PostgreSQL);
   * absent when the store is one host's file (SQLite), whose processes then count in memory each.
   */
  readonly requestRates?: RequestRateStore;
  /**
   * Calls `listener` with the action of each audit record this process wrote, once it is committed,
   * whichever store wrote it (alone, or with the change it reports); returns the unsubscribe. With
   * `actions`, only records of those actions are told: a record no listener asked for costs its write no
   * more than a look-up in those sets (the webhook dispatcher asks for the actions it delivers only while
   * an endpoint may want them). A hint for whoever reads the trail (the webhook dispatcher sends at once
   * instead of at its next poll), never the record itself: the trail is. Absent (a persistence written for
   * an earlier release): no hint.
   */
  readonly watchAudit?: AuditWatch;
  /**
   * A logical copy of every table, and its restore into an empty database of this dialect
   * (`wallet-vault backup`). Absent (a persistence written for an earlier release, the in-memory twin):
   * `backup create` and `backup restore` refuse it.
   */
  readonly databaseDump?: DatabaseDump;
  /** `SQLite <path>` or `PostgreSQL database "name" on host:port`, for logs (never a password). */
  readonly description: string;
  close(): Promise<void>;
}
