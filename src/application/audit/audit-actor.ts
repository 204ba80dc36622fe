import type { AuditAction, AuditDetails, AuditEvent, AuditLog } from '../../ports/audit-log.port.js';
import type { Principal } from '../access/principal.js';

/**
 * The break-glass local operator: the CLI run without an operator credential, by whoever can open the
 * store. The same word as every operator record before named operators existed, which were all this.
 */
export const OPERATOR = 'operator';
/** A named operator (docs/operators.md), by its name: one person for good (names are never reused). */
export const operatorActor = (name: string): string => `operator:${name}`;
/** Background jobs (the expiry purge). */
export const SYSTEM = 'system';
/** A refused request whose credentials did not even parse. */
export const ANONYMOUS = 'anonymous';

/** An API key is named by its id, never by its value. */
export const apiKeyActor = (apiKeyId: string): string => `api-key:${apiKeyId}`;
export const actorOf = (principal: Principal): string => apiKeyActor(principal.apiKeyId);

/** One event, for a store that writes it in the same transaction as the change it reports. */
export function auditEvent(
  action: AuditAction,
  at: Date,
  actor: string,
  vaultId: string | null,
  subject: string | null,
  details: AuditDetails = {},
): AuditEvent {
  return { action, at, actor, vaultId, subject, details };
}

/**
 * Appends one event on its own. Callers record after their action has committed and before they answer:
 * a crash between the two can lose the record of an action, but a record never describes an action that
 * did not happen. When the append fails the caller's request fails too, so nothing is answered unrecorded.
 * A change whose record must survive any crash (what webhooks deliver, docs/webhooks.md) hands the event
 * built by auditEvent to its store instead, which writes both in one transaction.
 */
export function audit(log: AuditLog, ...event: Parameters<typeof auditEvent>): Promise<void> {
  return log.append(auditEvent(...event));
}
