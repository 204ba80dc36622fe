import { describe, expect, it } from 'vitest';
import { UuidV7IdGenerator } from '../../adapters/system/uuid-v7.id-generator.js';
import { createVault } from '../../adapters/main/create-vault.js';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import { ManageQuarantine } from '../../src/application/keys/manage-quarantine.use-case.js';
import { SweepOrphanKeys } from '../../src/application/keys/sweep-orphan-keys.use-case.js';
import { addressFromPublicKey } from '../../src/domain/address.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { inMemoryPersistence, InMemoryAuditLog, InMemoryKeyQuarantine, InMemoryWalletRepository } from '../support/in-memory.persistence.js';
import { FixedClock } from '../support/movable-clock.js';
import { aVault, aWallet } from '../support/wallet-mother.js';
import { bindingsOver } from '../support/wallet-bindings.js';

const LATER = new Date(Date.now() + 3_600_000);

async function world() {
  const audit = new InMemoryAuditLog();
  const repo = new InMemoryWalletRepository(audit);
  const store = new InMemoryKeyStore('local');
  const registry = new MapKeyStoreRegistry([store], 'local');
  const quarantine = new InMemoryKeyQuarantine(undefined, audit);
  const clock = new FixedClock(LATER);
  const vault = aVault();
  await repo.ensureAccount(vault.accountId, LATER);
  await repo.insertVault(vault);
  const deploymentId = await quarantine.deploymentId();
  /** A key of this deployment that no wallet names, made for `vaultId`. */
  const orphan = async (vaultId = vault.id) => {
    const key = await store.create({ accountId: vault.accountId, vaultId, walletId: 'lost', deploymentId });
    return { ...key, address: addressFromPublicKey(key.publicKey) };
  };
  return {
    repo,
    store,
    quarantine,
    audit,
    vault,
    orphan,
    sweep: new SweepOrphanKeys(repo, registry, quarantine, clock),
    manage: new ManageQuarantine(repo, registry, bindingsOver(registry, audit, clock), quarantine, clock, new UuidV7IdGenerator()),
  };
}

describe('quarantined keys', () => {
  it('needs --vault when the store recorded none, and refuses a vault other than the recorded one', async () => {
    const t = await world();
    const unlabelled = await t.store.create();
    const address = addressFromPublicKey(unlabelled.publicKey);
    await t.quarantine.add({ keyStore: 'local', keyRef: unlabelled.keyRef, address: address.toLowerCase(), vaultId: null, quarantined: LATER });
    await expect(t.manage.restore({ address })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^vault: required/) });
    const wallet = await t.manage.restore({ address, vaultId: t.vault.id, name: 'back' });
    expect(wallet).toMatchObject({ address, vaultId: t.vault.id, keyRef: unlabelled.keyRef, name: 'back', expires: null });

    const labelled = await t.orphan();
    await t.sweep.execute();
    await expect(t.manage.restore({ address: labelled.address, vaultId: 'another-vault' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: `vault: this key was created for vault ${t.vault.id}, not another-vault`,
    });
    expect(await t.manage.list()).toHaveLength(1);

    // Made for a vault this (restored) database does not hold: --vault chooses one, recorded.
    const ofGoneVault = await t.orphan('vault-created-after-the-backup');
    await t.sweep.execute();
    await expect(t.manage.restore({ address: ofGoneVault.address })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'vault: required, the key was created for vault vault-created-after-the-backup, which this database does not hold',
    });
    expect(await t.manage.restore({ address: ofGoneVault.address, vaultId: t.vault.id })).toMatchObject({ vaultId: t.vault.id });
    expect(t.audit.records.at(-1)).toMatchObject({ action: 'key.restored', details: { recordedVault: 'vault-created-after-the-backup' } });
  });

  it('is recorded once however often the sweep runs, and leaves quarantine (recorded) once a wallet names it again', async () => {
    const t = await world();
    const key = await t.orphan();
    expect(await t.sweep.execute()).toEqual({ quarantined: 1, held: 1 });
    expect(await t.sweep.execute()).toEqual({ quarantined: 0, held: 1 });
    expect(t.audit.records.map((r) => r.action)).toEqual(['key.quarantined']);
    // A newer backup restored over the database: the wallet naming the key is back.
    await t.repo.insertWallet(aWallet(t.vault, { address: key.address, keyRef: key.keyRef, keyStore: 'local' }));
    await expect(t.manage.destroy({ address: key.address })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(t.store.has(key.keyRef)).toBe(true);
    expect(await t.sweep.execute()).toEqual({ quarantined: 0, held: 0 });
    expect(t.audit.records.map((r) => [r.action, r.actor])).toEqual([
      ['key.quarantined', 'system'],
      ['key.restored', 'system'],
    ]);
  });

  it('a key whose key.quarantined cannot be written is not held; the next sweep holds and records it, once', async () => {
    const t = await world();
    const key = await t.orphan();
    const append = t.audit.append.bind(t.audit);
    t.audit.append = async () => {
      t.audit.append = append; // only the next append fails
      throw new Error('database unavailable');
    };
    await expect(t.sweep.execute()).rejects.toThrow('database unavailable');
    expect(await t.quarantine.has('local', key.keyRef)).toBe(false);
    expect(t.audit.records).toEqual([]);
    expect(await t.sweep.execute()).toEqual({ quarantined: 1, held: 1 });
    expect(await t.sweep.execute()).toEqual({ quarantined: 0, held: 1 });
    expect(t.audit.records.map((r) => [r.action, r.subject])).toEqual([['key.quarantined', key.address]]);
  });

  it('never touches a key of another deployment, or one carrying none', async () => {
    const t = await world();
    await t.store.create({ accountId: 'a', vaultId: t.vault.id, walletId: 'w', deploymentId: 'someone-else' });
    await t.store.create();
    expect(await t.sweep.execute()).toEqual({ quarantined: 0, held: 0 });
    expect(t.store.size).toBe(2);
    expect(t.audit.records).toEqual([]);
  });

  it('a persistence without a quarantine (written for an earlier release): keys carry no deployment, nothing is swept', async () => {
    const { keyQuarantine: _dropped, ...older } = inMemoryPersistence();
    const store = new InMemoryKeyStore('local');
    const vault = await createVault({ persistence: older, keyStores: [store], jobs: false, clock: new FixedClock(LATER) });
    try {
      expect(vault.deploymentId).toBeNull();
      const id = (await vault.manageVaults.create({ name: 'old' })).id;
      const principal = await vault.authenticate.execute((await vault.manageVaults.createApiKey(id)).apiKey, id);
      const wallet = await vault.createWallet.execute({ principal, name: 'w' });
      await store.destroy(wallet.keyRef); // not an orphan yet: made one by hand
      await store.create();
      expect(await vault.sweepOrphanKeys.execute()).toEqual({ quarantined: 0, held: 0 });
      expect(store.size).toBe(1);
      expect(await vault.manageQuarantine.list()).toEqual([]);
    } finally {
      await vault.close();
    }
  });
});
