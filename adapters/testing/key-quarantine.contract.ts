import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyQuarantine, QuarantinedKey } from '../../src/ports/key-quarantine.port.js';
import { randomAddress } from './fixtures.js';

export interface KeyQuarantineFixture {
  readonly quarantine: KeyQuarantine;
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

/** What every KeyQuarantine must do: one stable deployment id, and each key held once until removed. */
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
  });
}
