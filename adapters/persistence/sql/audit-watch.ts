import type { PreparedAuditEvent } from '../../../src/domain/audit-chain.js';
import type { AuditAction } from '../../../src/ports/audit-log.port.js';
import type { AuditWatch } from '../../../src/ports/persistence.port.js';

type Listener = (action: AuditAction) => void;
type Actions = Pick<ReadonlySet<AuditAction>, 'has'>;
const EVERY: Actions = { has: () => true };

/**
 * The listeners of Persistence.watchAudit, each with the actions it asked for (none given: every action),
 * and the union of those actions, kept as listeners come and go so that a record no listener wants costs
 * one look-up (`asked`). Each SQL seam (SqliteSql, PostgresSql) owns one and calls its commit hooks below once
 * a write that appended audit records is durable; the in-memory twin's audit log tells through it too.
 */
export class AuditListeners {
  private readonly listeners = new Map<Listener, ReadonlySet<AuditAction> | undefined>();
  private asked: Actions = new Set<AuditAction>();

  /** Persistence.watchAudit's shape: subscribes, and returns the unsubscribe. */
  readonly watch: AuditWatch = (listener, actions) => {
    this.listeners.set(listener, actions);
    this.update();
    return () => {
      this.listeners.delete(listener);
      this.update();
    };
  };

  /**
   * The hook of the sign path's group commit (SqlDatabase.commitDurable): `durable` is the write's answer,
   * resolved once its commit is on disk; `event`, the record it appended, is told after that, and never when
   * the write fails. A record no listener asked for costs the write this one look-up.
   */
  afterDurable(durable: Promise<void>, event: PreparedAuditEvent | undefined): Promise<void> {
    if (event === undefined || !this.asked.has(event.action)) return durable;
    const action = event.action;
    return durable.then(() => this.tell(action));
  }

  /**
   * The hook of SqlDatabase.auditedTransaction: called once its transaction has committed durably with
   * `events` appended (never after a rollback, which throws past it).
   */
  afterCommit(events: readonly PreparedAuditEvent[]): void {
    for (const e of events) if (this.asked.has(e.action)) this.tell(e.action);
  }

  /** Tells each listener that wants it of a committed record of `action`. */
  tell(action: AuditAction): void {
    for (const [listener, only] of this.listeners) if (only === undefined || only.has(action)) listener(action);
  }

  private update(): void {
    const sets = [...this.listeners.values()];
    this.asked = sets.includes(undefined) ? EVERY : new Set(sets.flatMap((s) => [...s!]));
  }
}
