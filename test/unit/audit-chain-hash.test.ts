import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditRecordHash, canonicalDetails, preparedRecordHash, prepareAuditEvent } from '../../src/domain/audit-chain.js';
import type { AuditDetails, AuditEvent } from '../../src/ports/audit-log.port.js';

/** The chain's hash as docs/architecture.md defines it, written the slow and obvious way. */
function definedHash(seq: number, prevHash: string, event: AuditEvent): string {
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(event.details).sort()) sorted[k] = event.details[k];
  const canonical = JSON.stringify([seq, prevHash, event.action, event.at.toISOString(), event.actor, event.vaultId, event.subject, JSON.stringify(sorted)]);
  return createHash('sha256').update(canonical).digest('hex');
}

const scalar = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
// Integer-like keys ("7", "10") are ordered numerically by every JS object, whatever the insertion order.
const key = fc.oneof(fc.string({ maxLength: 8 }), fc.nat({ max: 200 }).map(String));
const details = fc.dictionary(key, scalar, { maxKeys: 8 }) as fc.Arbitrary<AuditDetails>;
const event = fc.record({
  action: fc.constantFrom('signature.issued', 'wallet.created', 'sign.denied') as fc.Arbitrary<AuditEvent['action']>,
  at: fc.date({ min: new Date(0), max: new Date('2100-01-01'), noInvalidDate: true }),
  actor: fc.string({ minLength: 1 }),
  vaultId: fc.option(fc.string()),
  subject: fc.option(fc.string()),
  details,
});

describe('audit record hash', () => {
  it('is the defined sha256 over the canonical record, through both the prepared and the plain path', () => {
    fc.assert(
      fc.property(fc.nat(), fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')), event, (seq, prev, e) => {
        const expected = definedHash(seq, prev, e);
        expect(auditRecordHash(seq, prev, e)).toBe(expected);
        expect(preparedRecordHash(seq, prev, prepareAuditEvent(e))).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('stores what it hashes: the canonical details parse back to the same details', () => {
    fc.assert(
      fc.property(details, (d) => {
        const json = canonicalDetails(d);
        expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(d)));
        expect(canonicalDetails(JSON.parse(json) as AuditDetails)).toBe(json);
      }),
    );
  });

  it('is a snapshot: changing the event after preparing it changes nothing', () => {
    const e: AuditEvent = { action: 'wallet.created', at: new Date(0), actor: 'a', vaultId: null, subject: null, details: { b: 1, a: 2 } };
    const prepared = prepareAuditEvent(e);
    const before = preparedRecordHash(1, '0'.repeat(64), prepared);
    (e.details as Record<string, unknown>).a = 3;
    e.at.setTime(5);
    expect(preparedRecordHash(1, '0'.repeat(64), prepared)).toBe(before);
    expect(prepared.detailsJson).toBe('{"a":2,"b":1}');
  });
});
