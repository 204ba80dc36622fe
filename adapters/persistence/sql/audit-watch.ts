import type { PreparedAuditEvent } from '../../../src/domain/audit-chain.js';
import type { AuditAction } from '../../../src/ports/audit-log.port.js';
import type { AuditWatch } from '../../../src/ports/persistence.port.js';
import type { SqlDatabase } from './sql-database.js';

type Listener = (action: AuditAction) => void;
type Actions = Pick<ReadonlySet<AuditAction>, 'has'>;
const EVERY: Actions = { has: () => true };

/**
 * `db` as the stores use it, telling the listeners of `watch` each audit record once its write committed.
 * Every audit record of the stores is chained through one of the two writes below (commitDurable for the
 * sign path and lone appends, auditedTransaction for a change with its record), so watching them covers
 * every store, those added later included. A record of an action no listener asked for (the sign's, while
 * no webhook endpoint wants it) costs its write one look-up in `asked`; without listeners both are the
 * database's own calls.
 */
export function auditWatched(db: SqlDatabase): { db: SqlDatabase; watch: AuditWatch } {
  const listeners = new Map<Listener, ReadonlySet<AuditAction> | undefined>();
  /** The actions some listener asked for, kept as listeners come and go. */
  let asked: Actions = new Set<AuditAction>();
  const listen = () => {
    const sets = [...listeners.values()];
    asked = sets.includes(undefined) ? EVERY : new Set(sets.flatMap((s) => [...s!]));
  };
  const tell = (actions: readonly AuditAction[]) => {
    for (const action of actions) for (const [listener, only] of listeners) if (only === undefined || only.has(action)) listener(action);
  };
  const watched: Partial<SqlDatabase> = {
    commitDurable: (write) => {
      if (write.event === undefined || !asked.has(write.event.action)) return db.commitDurable(write);
      const action = write.event.action;
      return db.commitDurable(write).then(() => tell([action]));
    },
    auditedTransaction: async (work) => {
      if (listeners.size === 0) return db.auditedTransaction(work);
      const actions: AuditAction[] = [];
      const value = await db.auditedTransaction((tx, audit) =>
        work(tx, (event: PreparedAuditEvent) => {
          if (asked.has(event.action)) actions.push(event.action);
          audit(event);
        }),
      );
      tell(actions);
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
  return {
    db: view,
    watch: (listener, actions) => {
      listeners.set(listener, actions);
      listen();
      return () => {
        listeners.delete(listener);
        listen();
      };
    },
  };
}
