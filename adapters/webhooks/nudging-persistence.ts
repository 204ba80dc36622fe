import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import type { SignatureLog } from '../../src/ports/signature-log.port.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/ports/webhook-outbox.port.js';

const DELIVERED: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

/**
 * The persistence as the vault's ports see it, with `nudge` called once an event to deliver was written
 * (a signature's signature.issued, an audit record of a delivered type), so the dispatcher of this
 * process sends it at once rather than at its next poll. Everything else is the persistence's own.
 */
export function nudgingPersistence(persistence: Persistence, nudge: () => void): Persistence {
  const signatures = persistence.signatureLog;
  const audit = persistence.auditLog;
  const signatureLog: SignatureLog = {
    record: async (entry, issued) => {
      await signatures.record(entry, issued);
      if (issued !== undefined) nudge();
    },
    find: (vaultId, submissionHash) => signatures.find(vaultId, submissionHash),
    attachTransaction: (vaultId, submissionHash, transactionHash, now) => signatures.attachTransaction(vaultId, submissionHash, transactionHash, now),
  };
  const auditLog: AuditLog = {
    append: async (event) => {
      await audit.append(event);
      if (DELIVERED.has(event.action)) nudge();
    },
    list: (query) => audit.list(query),
  };
  // Read through to the persistence for every other port (a factory's object or a class instance alike).
  return Object.assign(Object.create(persistence) as Persistence, { signatureLog, auditLog });
}
