import type { AuditDetails, AuditLog } from '../ports/audit-log.port.js';
import type { AuditAction } from '../ports/audit-log.port.js';
import type { Principal } from './principal.js';

/** The CLI: whoever can run `wallet-vault` against the store. */
export const OPERATOR = 'operator';
/** Background jobs (the expiry purge). */
export const SYSTEM = 'system';
/** A refused request whose credentials did not even parse. */
export const ANONYMOUS = 'anonymous';

/** An API key is named by its id, never by its value. */
export const apiKeyActor = (apiKeyId: string): string => `api-key:${apiKeyId}`;
export const actorOf = (principal: Principal): string => apiKeyActor(principal.apiKeyId);

/**
 * Appends one event. Callers record after their action has committed and before they answer: a crash
 * between the two can lose the record of an action, but a record never describes an action that did not
 * happen. When the append fails the caller's request fails too, so nothing is answered unrecorded.
 */
export function audit(
  log: AuditLog,
  action: AuditAction,
  at: Date,
  actor: string,
  vaultId: string | null,
  subject: string | null,
  details: AuditDetails = {},
): Promise<void> {
  return log.append({ action, at, actor, vaultId, subject, details });
}
