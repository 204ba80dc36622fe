import type { AuditEvent, AuditLog } from '../../src/ports/audit-log.port.js';
import type { KeyQuarantine } from '../../src/ports/key-quarantine.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import type { SignatureLog } from '../../src/ports/signature-log.port.js';
import type { WalletRepository } from '../../src/ports/wallet-repository.port.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/ports/webhook-outbox.port.js';

const DELIVERED: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

/** `write`, then `nudge` once it resolved when the audit event it was handed is of a delivered type. */
function nudgingAfter<A extends unknown[], R>(write: (...args: A) => Promise<R>, eventOf: (args: A) => AuditEvent | undefined, nudge: () => void) {
  return async (...args: A): Promise<R> => {
    const result = await write(...args);
    const event = eventOf(args);
    if (event !== undefined && DELIVERED.has(event.action)) nudge();
    return result;
  };
}

/** `port` with some of its methods replaced, every other one read through to it (a factory's object or a class instance alike). */
const overriding = <T extends object>(port: T, methods: Partial<T>): T => Object.assign(Object.create(port) as T, methods);

/**
 * The persistence as the vault's ports see it, with `nudge` called once an event to deliver was written
 * (an audit record of a delivered type, appended alone or with the change it reports: a signature's
 * signature.issued, a wallet's expiry or removal, a key's quarantine), so the dispatcher of this process
 * sends it at once rather than at its next poll. Everything else is the persistence's own.
 */
export function nudgingPersistence(persistence: Persistence, nudge: () => void): Persistence {
  const { signatureLog: signatures, auditLog: audit, repository: wallets, keyQuarantine: quarantine } = persistence;
  const signatureLog = overriding<SignatureLog>(signatures, {
    record: nudgingAfter(signatures.record.bind(signatures), ([, issued]) => issued, nudge),
  });
  const auditLog = overriding<AuditLog>(audit, { append: nudgingAfter(audit.append.bind(audit), ([event]) => event, nudge) });
  const repository = overriding<WalletRepository>(wallets, {
    updateWallet: nudgingAfter(wallets.updateWallet.bind(wallets), ([, recorded]) => recorded, nudge),
    removeWallet: nudgingAfter(wallets.removeWallet.bind(wallets), ([, deleted]) => deleted, nudge),
  });
  const keyQuarantine =
    quarantine &&
    overriding<KeyQuarantine>(quarantine, {
      add: nudgingAfter(quarantine.add.bind(quarantine), ([, quarantined]) => quarantined, nudge),
      remove: nudgingAfter(quarantine.remove.bind(quarantine), ([, , recorded]) => recorded, nudge),
    });
  return overriding<Persistence>(persistence, { signatureLog, auditLog, repository, ...(keyQuarantine ? { keyQuarantine } : {}) });
}
