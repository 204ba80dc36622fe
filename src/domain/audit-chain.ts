import { createHash } from 'node:crypto';
import { AUDIT_ACTIONS, type AuditDetails, type AuditEvent, type AuditRecord } from '../ports/audit-log.port.js';
import { DomainError, ErrorCode } from './errors.js';

export const GENESIS_HASH = '0'.repeat(64);

/** JSON with object keys sorted, so the same event always hashes the same way whatever built it. */
function canonicalDetails(details: AuditDetails): string {
  return JSON.stringify(Object.fromEntries(Object.keys(details).sort().map((k) => [k, details[k]])));
}

/**
 * sha256 over the record's number, the previous record's hash and every field of the event. Changing,
 * removing or reordering any record breaks the chain from that record on.
 */
export function auditRecordHash(seq: number, prevHash: string, event: AuditEvent): string {
  const canonical = JSON.stringify([
    seq,
    prevHash,
    event.action,
    event.at.toISOString(),
    event.actor,
    event.vaultId,
    event.subject,
    canonicalDetails(event.details),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

const isScalar = (v: unknown) =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const isNullableString = (v: unknown) => v === null || typeof v === 'string';

function auditEventProblem(event: AuditEvent): string | null {
  if (!(AUDIT_ACTIONS as readonly string[]).includes(event.action)) return 'unknown action';
  if (!(event.at instanceof Date) || Number.isNaN(event.at.getTime())) return '`at` is not a valid date';
  if (typeof event.actor !== 'string' || event.actor === '') return '`actor` is empty';
  if (!isNullableString(event.vaultId) || !isNullableString(event.subject)) return '`vaultId` and `subject` must be strings or null';
  if (typeof event.details !== 'object' || event.details === null || Array.isArray(event.details)) return '`details` is not an object';
  const bad = Object.entries(event.details).find(([, v]) => !isScalar(v));
  return bad ? `details.${bad[0]} is not a string, finite number, boolean or null` : null;
}

/**
 * Refuses an event that could not be hashed canonically or would not read back as written (an invalid
 * date, a non-finite number, a nested value). Audit logs call it before chaining, so such an event fails
 * alone (a bug in its caller) instead of breaking the chain for the events around it.
 */
export function assertAuditEvent(event: AuditEvent): void {
  const problem = auditEventProblem(event);
  if (problem !== null) throw new DomainError(ErrorCode.INTERNAL, `audit event ${String(event.action)}: ${problem}`);
}

/** What is hashed and stored: the event as it was when handed to a log, whatever its caller does next. */
export const snapshotEvent = (event: AuditEvent): AuditEvent => ({ ...event, at: new Date(event.at.getTime()), details: { ...event.details } });

/** The last record of a chain: where the next append continues from. */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/**
 * Numbers and chains `events` after `head` (null for an empty log). Adapters call it while they hold
 * whatever keeps the head from moving (a write lock), then store the records as returned.
 */
export function extendChain(head: ChainHead | null, events: readonly AuditEvent[]): AuditRecord[] {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  return events.map((event) => {
    seq++;
    const hash = auditRecordHash(seq, prevHash, event);
    const record: AuditRecord = { ...event, seq, prevHash, hash };
    prevHash = hash;
    return record;
  });
}
