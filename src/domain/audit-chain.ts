import { createHash } from 'node:crypto';
import type { AuditDetails, AuditEvent } from '../ports/audit-log.port.js';

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
