import type { PreparedAuditEvent } from '../../../src/domain/audit-chain.js';
import type { AuditAction } from '../../../src/ports/audit-log.port.js';
import type { AuditWatch } from '../../../src/ports/persistence.port.js';
import type { SqlDatabase } from './sql-database.js';

type Listener = (action: AuditAction) => void;
type Actions = Pick<ReadonlySet<AuditAction>, 'has'>;
const EVERY: Actions = { has: () => true };

/**
 * The listeners of Persistence.watchAudit, each with the actions it asked for (none given: every action),
 * and the union of those actions, kept as listeners come and go so that a record no listener wants costs
 * one look-up (`asks`). The SQL watch below and the in-memory twin's audit log both tell through it.
 */
export class AuditListeners {
  private readonly listeners = new Map<Listener, ReadonlySet<AuditAction> | undefined>();
  private asked: Actions = new Set<AuditAction>();

  get size(): number {
    return this.listeners.size;
  }

  /** Persistence.watchAudit's shape: subscribes, and returns the unsubscribe. */
  readonly watch: AuditWatch = (listener, actions) => {
    this.listeners.set(listener, actions);
    this.update();
    return () => {
      this.listeners.delete(listener);
      this.update();
    };
  };

  /** Whether some listener wants records of `action`. */
  asks(action: AuditAction): boolean {
    return this.asked.has(action);
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

/**
 * `db` as the stores use it, telling the listeners of `watch` each audit record once its write committed.
 * Every audit record of the stores is chained through one of the two writes below (commitDurable for the
 * sign path and lone appends, auditedTransaction for a change with its record), so watching them covers
 * every store, those added later included. A record of an action no listener asked for (the sign's, while
 * no webhook endpoint wants it) costs its write one look-up; without listeners both are the database's
 * own calls.
 */
export function auditWatched(db: SqlDatabase): { db: SqlDatabase; watch: AuditWatch } {
  const listeners = new AuditListeners();
  const watched: Partial<SqlDatabase> = {
    commitDurable: (write) => {
      if (write.event === undefined || !listeners.asks(write.event.action)) return db.commitDurable(write);
      const action = write.event.action;
      return db.commitDurable(write).then(() => listeners.tell(action));
    },
    auditedTransaction: async (work) => {
      if (listeners.size === 0) return db.auditedTransaction(work);
      const actions: AuditAction[] = [];
      const value = await db.auditedTransaction((tx, audit) =>
        work(tx, (event: PreparedAuditEvent) => {
          if (listeners.asks(event.action)) actions.push(event.action);
          audit(event);
        }),
      );
      actions.forEach((action) => listeners.tell(action));
      return value;
    },
  };
  // Every other member (statements, pages, the API key cache) is the database's own, its methods bound to it
  // (once each), so they run on the database object and never on this view.
  const bound = new Map<PropertyKey, unknown>();
  const view = new Proxy(db, {
    get(target, key) {
      if (key in watched) return watched[key as keyof SqlDatabase];
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(key);
      if (method === undefined) bound.set(key, (method = (value as (...args: unknown[]) => unknown).bind(target)));
      return method;
    },
  });
  return { db: view, watch: listeners.watch };
}
