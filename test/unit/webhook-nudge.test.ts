import { describe, expect, it } from 'vitest';
import { nudgingPersistence } from '../../adapters/webhooks/nudging-persistence.js';
import type { AuditEvent } from '../../src/ports/audit-log.port.js';
import { inMemoryPersistence } from '../support/in-memory.persistence.js';
import { anAuditEvent, aVault, aWallet } from '../support/wallet-mother.js';

const NOW = new Date('2026-06-01T00:00:00Z');

async function world() {
  const inner = inMemoryPersistence();
  let nudges = 0;
  const persistence = nudgingPersistence(inner, () => nudges++);
  const vault = aVault();
  await persistence.repository.ensureAccount(vault.accountId, NOW);
  await persistence.repository.insertVault(vault);
  const event = (action: AuditEvent['action']) => anAuditEvent({ action, vaultId: vault.id, at: NOW });
  return { inner, persistence, vault, event, nudges: () => nudges };
}

describe('the webhook dispatcher is nudged by every event to deliver, whichever store writes it', () => {
  it('a wallet expired or deleted with its record nudges; a rename (not delivered) or a lost write does not', async () => {
    const t = await world();
    const w = aWallet(t.vault);
    await t.persistence.repository.insertWallet(w);
    expect(await t.persistence.repository.updateWallet({ ...w, name: 'x', version: 2 }, t.event('wallet.renamed'))).toBe(true);
    expect(t.nudges()).toBe(0);
    expect(await t.persistence.repository.updateWallet({ ...w, expires: NOW, version: 3 }, t.event('wallet.expired'))).toBe(true);
    expect(t.nudges()).toBe(1);
    await t.persistence.repository.removeWallet(w.id, t.event('wallet.deleted'));
    expect(t.nudges()).toBe(2);
    // Written through to the persistence's own stores: the same records, the same audit chain.
    expect(await t.inner.repository.findRecord(w.id)).toBeNull();
    expect((await t.inner.auditLog.list({ afterSeq: 0, limit: 10 })).map((r) => r.action)).toEqual(['wallet.renamed', 'wallet.expired', 'wallet.deleted']);
  });

  it('a key quarantined with its record nudges', async () => {
    const t = await world();
    const key = { keyStore: 'local', keyRef: 'k', address: '0x' + '1'.repeat(40), vaultId: t.vault.id, quarantined: NOW };
    expect(await t.persistence.keyQuarantine!.add(key, t.event('key.quarantined'))).toBe(true);
    expect(t.nudges()).toBe(1);
    expect(await t.persistence.keyQuarantine!.has('local', 'k')).toBe(true);
    await t.persistence.keyQuarantine!.remove('local', 'k', t.event('key.destroyed'));
    expect(t.nudges()).toBe(1);
    expect(await t.inner.keyQuarantine!.has('local', 'k')).toBe(false);
  });
});
