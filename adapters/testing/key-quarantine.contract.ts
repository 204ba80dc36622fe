import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VerifyAuditChain } from '../../src/application/audit/verify-audit-chain.use-case.js';
import type { AuditEvent, AuditLog } from '../../src/ports/audit-log.port.js';
import type { KeyQuarantine, QuarantinedKey } from '../../src/ports/key-quarantine.port.js';
import { anAuditEvent, randomAddress } from './fixtures.js';

export interface KeyQuarantineFixture {
  readonly quarantine: KeyQuarantine;
  /** The audit log of the same store as `quarantine`, where it chains the records handed with a change. */
  readonly auditLog: AuditLog;
  /** Another database's quarantine (a second deployment), or undefined where there is no such thing. */
  readonly other?: KeyQuarantine;
  cleanup(): Promise<void>;
}

const held = (keyRef: string, quarantined: Date, vaultId: string | null = 'vault-1'): QuarantinedKey => ({
  keyStore: 'local',
  keyRef,
  address: randomAddress().toLowerCase(),
  vaultId,
  quarantined,
});

const recordOf = (action: AuditEvent['action'], key: QuarantinedKey, overrides: Partial<AuditEvent> = {}): AuditEvent =>
  anAuditEvent({ action, vaultId: key.vaultId, subject: key.address, details: { keyStore: key.keyStore, keyRef: key.keyRef }, ...overrides });

/**
 * What every KeyQuarantine must do: one stable deployment id, each key held once until removed, and a
 * change handed an audit record written with it, in one transaction, once.
 */
export function describeKeyQuarantineContract(name: string, make: () => Promise<KeyQuarantineFixture>): void {
  describe(`KeyQuarantine contract: ${name}`, () => {
    let f: KeyQuarantineFixture;
    beforeAll(async () => {
      f = await make();
    });
    afterAll(async () => {
      await f?.cleanup();
    });

    it('has one deployment id, the same on every read, and another database has another', async () => {
      const id = await f.quarantine.deploymentId();
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(await f.quarantine.deploymentId()).toBe(id);
      if (f.other) expect(await f.other.deploymentId()).not.toBe(id);
    });

    it('holds a key once, lists keys in quarantine order, forgets on remove', async () => {
      const first = held('k1', new Date('2026-06-01T00:00:00Z'));
      const second = held('k2', new Date('2026-06-01T00:01:00Z'), null);
      expect(await f.quarantine.add(second)).toBe(true);
      expect(await f.quarantine.add(first)).toBe(true);
      expect(await f.quarantine.add({ ...first, address: randomAddress().toLowerCase() })).toBe(false);
      expect(await f.quarantine.has('local', 'k1')).toBe(true);
      expect(await f.quarantine.has('pkcs11', 'k1')).toBe(false);
      expect(await f.quarantine.list()).toEqual([first, second]);
      await f.quarantine.remove('local', 'k1');
      await f.quarantine.remove('local', 'k1');
      expect(await f.quarantine.has('local', 'k1')).toBe(false);
      expect(await f.quarantine.list()).toEqual([second]);
      await f.quarantine.remove('local', 'k2');
    });

    it('holds a key with its key.quarantined record together, once; releases it with its record, once', async () => {
      const key = held(`audited-${randomAddress()}`, new Date('2026-06-02T00:00:00Z'));
      const records = async () =>
        (await f.auditLog.list({ afterSeq: 0, limit: 10_000, vaultId: 'vault-1' })).filter((r) => r.details.keyRef === key.keyRef).map((r) => [r.action, r.actor]);
      expect(await f.quarantine.add(key, recordOf('key.quarantined', key))).toBe(true);
      expect(await f.quarantine.add(key, recordOf('key.quarantined', key, { actor: 'operator' }))).toBe(false);
      expect(await records()).toEqual([['key.quarantined', 'system']]);
      await f.quarantine.remove(key.keyStore, key.keyRef, recordOf('key.destroyed', key));
      await f.quarantine.remove(key.keyStore, key.keyRef, recordOf('key.destroyed', key, { actor: 'operator' }));
      expect(await f.quarantine.has(key.keyStore, key.keyRef)).toBe(false);
      expect(await records()).toEqual([['key.quarantined', 'system'], ['key.destroyed', 'system']]);
      expect((await new VerifyAuditChain(f.auditLog).execute()).ok).toBe(true);
    });

    it('a change whose record cannot be written is not made: the key is not held, or stays held', async () => {
      const key = held(`refused-${randomAddress()}`, new Date('2026-06-03T00:00:00Z'));
      // An invalid date: assertAuditEvent refuses the event, so its append fails.
      const refused = (action: AuditEvent['action']) => recordOf(action, key, { at: new Date(Number.NaN) });
      const records = async () => (await f.auditLog.list({ afterSeq: 0, limit: 10_000 })).filter((r) => r.details.keyRef === key.keyRef);
      await expect(f.quarantine.add(key, refused('key.quarantined'))).rejects.toThrow();
      expect(await f.quarantine.has(key.keyStore, key.keyRef)).toBe(false);
      expect(await records()).toEqual([]);
      expect(await f.quarantine.add(key, recordOf('key.quarantined', key))).toBe(true);
      await expect(f.quarantine.remove(key.keyStore, key.keyRef, refused('key.restored'))).rejects.toThrow();
      expect(await f.quarantine.has(key.keyStore, key.keyRef)).toBe(true);
      expect((await records()).map((r) => r.action)).toEqual(['key.quarantined']);
      await f.quarantine.remove(key.keyStore, key.keyRef);
    });
  });
}
