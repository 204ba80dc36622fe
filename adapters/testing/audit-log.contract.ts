import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditRecordHash, GENESIS_HASH } from '../../src/domain/audit-chain.js';
import type { AuditLog, AuditRecord } from '../../src/ports/audit-log.port.js';
import { anAuditEvent } from './fixtures.js';

export interface AuditLogFixture {
  /** An empty log. */
  readonly log: AuditLog;
  cleanup(): Promise<void>;
}

const NOW = new Date('2026-06-01T00:00:00Z');

/** The whole chain, read in pages of `page`. */
async function readAll(log: AuditLog, page = 1000): Promise<AuditRecord[]> {
  const all: AuditRecord[] = [];
  for (;;) {
    const next = await log.list({ afterSeq: all.at(-1)?.seq ?? 0, limit: page });
    all.push(...next);
    if (next.length < page) return all;
  }
}

/** Numbered 1..n without gaps, chained from GENESIS_HASH, every hash recomputed from the record's own fields. */
export function expectValidChain(records: readonly AuditRecord[]): void {
  let prevHash = GENESIS_HASH;
  records.forEach((r, i) => {
    expect(r.seq, `record ${i}`).toBe(i + 1);
    expect(r.prevHash, `prevHash of seq ${r.seq}`).toBe(prevHash);
    expect(r.hash, `hash of seq ${r.seq}`).toBe(auditRecordHash(r.seq, r.prevHash, r));
    expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
    prevHash = r.hash;
  });
}

/** What every audit log adapter must do; each backend's test file calls this. Each test gets an empty log. */
export function describeAuditLogContract(name: string, make: () => Promise<AuditLogFixture>): void {
  describe(`AuditLog contract: ${name}`, () => {
    let f: AuditLogFixture;
    beforeEach(async () => {
      f = await make();
    });
    afterEach(async () => {
      await f?.cleanup();
    });

    it('numbers records from 1 and chains them from GENESIS_HASH, storing every field', async () => {
      const events = [
        anAuditEvent({ action: 'vault.created', actor: 'operator', vaultId: 'v1', at: NOW }),
        anAuditEvent({ action: 'auth.refused', actor: 'api-key:unknown', vaultId: null, subject: null, at: new Date(NOW.getTime() + 1) }),
        anAuditEvent({ action: 'wallet.renamed', actor: 'api-key:k1', vaultId: 'v1', subject: '0xAbC', at: new Date(NOW.getTime() + 2) }),
      ];
      for (const e of events) await f.log.append(e);
      const records = await readAll(f.log);
      expectValidChain(records);
      expect(records[0]!.prevHash).toBe(GENESIS_HASH);
      expect(records.map(({ seq, prevHash, hash, ...event }) => event)).toEqual(events);
    });

    it('forms one valid chain from 200 concurrent appends, each resolved once stored', async () => {
      await f.log.append(anAuditEvent({ actor: 'first' }));
      const actors = Array.from({ length: 200 }, (_, i) => `actor-${i}`);
      await Promise.all(actors.map((actor, i) => f.log.append(anAuditEvent({ actor, at: new Date(NOW.getTime() + i) }))));
      const records = await readAll(f.log, 64);
      expect(records).toHaveLength(201);
      expectValidChain(records);
      expect(records.slice(1).map((r) => r.actor).sort()).toEqual([...actors].sort());
    });

    it('keeps chaining across separate batches', async () => {
      for (let round = 0; round < 3; round++) {
        await Promise.all([0, 1, 2].map((i) => f.log.append(anAuditEvent({ actor: `r${round}-${i}` }))));
      }
      const records = await readAll(f.log);
      expect(records).toHaveLength(9);
      expectValidChain(records);
    });

    it('lists after a seq, at most `limit`, and of one vault only when asked', async () => {
      const vaults = ['va', 'vb', null, 'va', 'va', 'vb', 'va'];
      for (const vaultId of vaults) await f.log.append(anAuditEvent({ vaultId }));
      expect((await f.log.list({ afterSeq: 0, limit: 3 })).map((r) => r.seq)).toEqual([1, 2, 3]);
      expect((await f.log.list({ afterSeq: 3, limit: 3 })).map((r) => r.seq)).toEqual([4, 5, 6]);
      expect((await f.log.list({ afterSeq: 6, limit: 3 })).map((r) => r.seq)).toEqual([7]);
      expect(await f.log.list({ afterSeq: 7, limit: 3 })).toEqual([]);
      expect(await f.log.list({ afterSeq: 0, limit: 0 })).toEqual([]);

      const va = await f.log.list({ afterSeq: 0, limit: 2, vaultId: 'va' });
      expect(va.map((r) => r.seq)).toEqual([1, 4]);
      expect((await f.log.list({ afterSeq: va.at(-1)!.seq, limit: 2, vaultId: 'va' })).map((r) => r.seq)).toEqual([5, 7]);
      expect((await f.log.list({ afterSeq: 0, limit: 10, vaultId: 'vb' })).map((r) => r.seq)).toEqual([2, 6]);
      expect(await f.log.list({ afterSeq: 0, limit: 10, vaultId: 'nope' })).toEqual([]);
      // A vault's records are the same records as in the full chain: their hashes still verify.
      expectValidChain(await readAll(f.log));
    });

    it('gives details back with their types', async () => {
      const details = {
        text: 'a "quoted" \\ string ü ✓',
        empty: '',
        numeric: '42',
        int: 42,
        negative: -7,
        fraction: 0.1,
        max: Number.MAX_SAFE_INTEGER,
        yes: true,
        no: false,
        nothing: null,
      };
      await f.log.append(anAuditEvent({ details }));
      await f.log.append(anAuditEvent({ details: {} }));
      const [withDetails, empty] = await f.log.list({ afterSeq: 0, limit: 10 });
      expect(withDetails!.details).toStrictEqual(details);
      expect(typeof withDetails!.details.numeric).toBe('string');
      expect(typeof withDetails!.details.int).toBe('number');
      expect(empty!.details).toStrictEqual({});
    });

    it('refuses an event that cannot be stored, alone: its neighbours are chained without a gap', async () => {
      const results = await Promise.allSettled([
        f.log.append(anAuditEvent({ actor: 'good-1' })),
        f.log.append(anAuditEvent({ actor: 'bad-date', at: new Date(Number.NaN) })),
        f.log.append(anAuditEvent({ actor: 'good-2' })),
        f.log.append(anAuditEvent({ actor: 'bad-details', details: { nested: { a: 1 } } as never })),
        f.log.append(anAuditEvent({ actor: 'bad-number', details: { n: Number.POSITIVE_INFINITY } })),
        f.log.append(anAuditEvent({ actor: 'good-3' })),
        // PostgreSQL refuses NUL in text and jsonb: one such record used to fail its whole batch there.
        f.log.append(anAuditEvent({ actor: 'bad-nul-detail', details: { source: 'a\u0000b' } })),
        f.log.append(anAuditEvent({ actor: 'bad-nul-subject', subject: '\u0000' })),
        f.log.append(anAuditEvent({ actor: 'good-4' })),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        'fulfilled', 'rejected', 'fulfilled', 'rejected', 'rejected', 'fulfilled', 'rejected', 'rejected', 'fulfilled',
      ]);
      const records = await readAll(f.log);
      expect(records.map((r) => r.actor)).toEqual(['good-1', 'good-2', 'good-3', 'good-4']);
      expectValidChain(records);
    });

    it('stores the event as it was when appended', async () => {
      const details: Record<string, string> = { name: 'before' };
      const pending = f.log.append(anAuditEvent({ details }));
      details.name = 'after';
      await pending;
      const [record] = await f.log.list({ afterSeq: 0, limit: 1 });
      expect(record!.details).toEqual({ name: 'before' });
      expectValidChain([record!]);
    });
  });
}
