import { hash } from 'node:crypto';
import { AUDIT_ACTIONS, type AuditDetails, type AuditEvent, type AuditRecord } from '../ports/audit-log.port.js';
import { DomainError, ErrorCode } from './errors.js';

export const GENESIS_HASH = '0'.repeat(64);

/**
 * JSON with object keys sorted, so the same event always hashes the same way whatever built it. Details
 * whose keys already come in order (the sign path builds them so) are stringified as they are.
 */
export function canonicalDetails(details: AuditDetails): string {
  const keys = Object.keys(details);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
  if (sorted) return JSON.stringify(details);
  const ordered: Record<string, AuditDetails[string]> = {};
  for (const k of keys.sort()) ordered[k] = details[k]!;
  return JSON.stringify(ordered);
}

/**
 * An event as it is hashed and stored: checked, its time and details turned into the strings the hash
 * covers. Being strings, it is also a snapshot: what its caller does with the event afterwards changes
 * nothing in the record.
 */
export interface PreparedAuditEvent {
  readonly action: AuditEvent['action'];
  readonly atMillis: number;
  readonly atIso: string;
  readonly actor: string;
  readonly vaultId: string | null;
  readonly subject: string | null;
  /** canonicalDetails(details): also what is stored, so the stored text is exactly what was hashed. */
  readonly detailsJson: string;
}

/** Checks `event` (assertAuditEvent) and prepares it for chaining. */
export function prepareAuditEvent(event: AuditEvent): PreparedAuditEvent {
  assertAuditEvent(event);
  return preparedOf(event);
}

/** The prepared form of an event as it is, checked or not (a stored record being verified is not). */
function preparedOf(event: AuditEvent): PreparedAuditEvent {
  return {
    action: event.action,
    atMillis: event.at.getTime(),
    atIso: event.at.toISOString(),
    actor: event.actor,
    vaultId: event.vaultId,
    subject: event.subject,
    detailsJson: canonicalDetails(event.details),
  };
}

/** auditRecordHash of a prepared event; `crypto.hash` (one call, no Hash object) is why engines.node is >=20.12. */
export function preparedRecordHash(seq: number, prevHash: string, e: PreparedAuditEvent): string {
  return hash('sha256', JSON.stringify([seq, prevHash, e.action, e.atIso, e.actor, e.vaultId, e.subject, e.detailsJson]), 'hex');
}

/**
 * sha256 over the record's number, the previous record's hash and every field of the event. Changing,
 * removing or reordering any record breaks the chain from that record on.
 */
export function auditRecordHash(seq: number, prevHash: string, event: AuditEvent): string {
  return preparedRecordHash(seq, prevHash, preparedOf(event));
}

const KNOWN_ACTIONS: ReadonlySet<string> = new Set(AUDIT_ACTIONS);
const isScalar = (v: unknown) =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const isNullableString = (v: unknown) => v === null || typeof v === 'string';
/** PostgreSQL cannot store NUL in text (nor `\u0000` in jsonb): such an event would fail its whole batch there. */
const hasNul = (v: unknown) => typeof v === 'string' && v.includes('\u0000');

function auditEventProblem(event: AuditEvent): string | null {
  if (!KNOWN_ACTIONS.has(event.action)) return 'unknown action';
  if (!(event.at instanceof Date) || Number.isNaN(event.at.getTime())) return '`at` is not a valid date';
  if (typeof event.actor !== 'string' || event.actor === '') return '`actor` is empty';
  if (!isNullableString(event.vaultId) || !isNullableString(event.subject)) return '`vaultId` and `subject` must be strings or null';
  if (typeof event.details !== 'object' || event.details === null || Array.isArray(event.details)) return '`details` is not an object';
  for (const key in event.details) {
    if (Object.hasOwn(event.details, key) && !isScalar(event.details[key])) return `details.${key} is not a string, finite number, boolean or null`;
  }
  const texts = [event.actor, event.vaultId, event.subject, ...Object.keys(event.details), ...Object.values(event.details)];
  if (texts.some(hasNul)) return 'contains a NUL character (U+0000)';
  return null;
}

/**
 * Refuses an event that could not be hashed canonically or would not read back as written (an invalid
 * date, a non-finite number, a nested value, a NUL in any text). Audit logs call it before chaining, so such an event fails
 * alone (a bug in its caller) instead of breaking the chain for the events around it.
 */
export function assertAuditEvent(event: AuditEvent): void {
  const problem = auditEventProblem(event);
  if (problem !== null) throw new DomainError(ErrorCode.INTERNAL, `audit event ${String(event.action)}: ${problem}`);
}

/** The last record of a chain: where the next append continues from. */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/** A prepared event numbered and chained: what every store writes, field for field. */
export interface ChainedEvent extends PreparedAuditEvent, ChainHead {
  readonly prevHash: string;
}

/**
 * The audit chain's append, written once for every store (SQLite, PostgreSQL, the in-memory twin): chains
 * `events` after `head` (null for an empty log). The events come prepared (prepareAuditEvent), that is
 * checked when they were handed to the log, so a bad one was refused alone there and cannot fail the
 * batch it would have joined. A store calls it while it holds whatever keeps its head from moving (a
 * write lock), then stores the records as returned; how it reads the head and locks is its own part.
 */
export function appendChained(head: ChainHead | null, events: readonly PreparedAuditEvent[]): ChainedEvent[] {
  const records: ChainedEvent[] = [];
  for (const event of events) records.push((head = chainedAfter(head, event)));
  return records;
}

/** appendChained of one event, without the arrays: the sign path chains one event per write. */
export function chainedAfter(head: ChainHead | null, event: PreparedAuditEvent): ChainedEvent {
  const seq = (head?.seq ?? 0) + 1;
  const prevHash = head?.hash ?? GENESIS_HASH;
  const hash = preparedRecordHash(seq, prevHash, event);
  // Spelled out rather than spread: one object of a fixed shape, on every sign.
  const { action, atMillis, atIso, actor, vaultId, subject, detailsJson } = event;
  return { action, atMillis, atIso, actor, vaultId, subject, detailsJson, seq, prevHash, hash };
}

/** A chained event as the port returns it (a store that keeps records as objects: the in-memory twin). */
export function auditRecordOf(r: ChainedEvent): AuditRecord {
  const details = JSON.parse(r.detailsJson) as AuditDetails;
  return { action: r.action, at: new Date(r.atMillis), actor: r.actor, vaultId: r.vaultId, subject: r.subject, details, seq: r.seq, prevHash: r.prevHash, hash: r.hash };
}
