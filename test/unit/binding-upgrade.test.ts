import { describe, expect, it } from 'vitest';
import { createVault } from '../../adapters/main/create-vault.js';
import { WalletBindings } from '../../src/application/wallets/wallet-binding.js';
import { addressFromPublicKey } from '../../src/domain/address.js';
import type { Wallet } from '../../src/domain/wallet.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { inMemoryPersistence, type InMemoryAuditLog, type InMemoryWalletRepository } from '../support/in-memory.persistence.js';
import { aVault, aWallet } from '../support/wallet-mother.js';

const DAY = 86_400_000;

/**
 * A database of a release before bindings, as the migration leaves it: wallets without a binding and the
 * marker (here the in-memory twin's flag), and a logger that keeps the warnings.
 */
async function legacy() {
  const persistence = inMemoryPersistence();
  const repo = persistence.repository as InMemoryWalletRepository;
  const store = new InMemoryKeyStore('local');
  const vault = aVault();
  await repo.ensureAccount(vault.accountId, new Date());
  await repo.insertVault(vault);
  const walletOf = async (overrides: Partial<Wallet> = {}) => {
    const key = await store.create();
    const w = aWallet(vault, { address: addressFromPublicKey(key.publicKey), keyStore: 'local', keyRef: key.keyRef, ...overrides });
    await repo.insertWallet(w);
    return w;
  };
  const warnings: [object, string | undefined][] = [];
  const logger = { info() {}, warn: (o: object, m?: string) => void warnings.push([o, m]), error() {} };
  const open = () => createVault({ persistence, keyStores: [store], jobs: false, logger });
  const bound = () => (persistence.auditLog as InMemoryAuditLog).records.filter((r) => r.action === 'wallet.bound');
  return { persistence, repo, store, vault, walletOf, warnings, open, bound };
}

describe('the upgrade that introduced wallet bindings (createVault)', () => {
  it('binds each live wallet once with its own key (wallet.bound), leaves deleted ones, names those it cannot bind; the marker goes', async () => {
    const t = await legacy();
    const live = await t.walletOf();
    const expiring = await t.walletOf({ expires: new Date(Date.now() + DAY) });
    const deleted = await t.walletOf({ expires: new Date(Date.now() - DAY) });
    const retired = await t.walletOf({ keyStore: 'retired-store' });
    t.repo.bindingUpgrade = true;

    const vault = await t.open();
    try {
      const bindings = vault.container.get(WalletBindings);
      for (const w of [live, expiring]) expect(bindings.problemOf(t.repo.wallets.get(w.id)!), w.address).toBeNull();
      expect([t.repo.wallets.get(deleted.id)!.binding, t.repo.wallets.get(retired.id)!.binding]).toEqual([null, null]);
      expect(t.bound().map((r) => [r.actor, r.subject, r.details.by])).toEqual(
        expect.arrayContaining([
          ['system', live.address, 'upgrade'],
          ['system', expiring.address, 'upgrade'],
        ]),
      );
      expect(t.bound()).toHaveLength(2);
      expect(t.warnings).toEqual([
        [
          expect.objectContaining({ vault: t.vault.id, wallet: retired.address, reason: expect.stringContaining('retired-store') }),
          `wallet not bound: it signs nothing until an operator binds it (wallet-vault wallets bind --vault ${t.vault.id} --address ${retired.address})`,
        ],
      ]);
      expect(t.repo.bindingUpgrade).toBe(false);
    } finally {
      await vault.close();
    }
    // The next start binds nothing: an unbound row is left to an operator.
    t.repo.wallets.set(live.id, { ...t.repo.wallets.get(live.id)!, binding: null });
    await (await t.open()).close();
    expect(t.bound()).toHaveLength(2);
  });

  it('a start whose database fails half-way keeps the marker: the next start binds what is left, each wallet once', async () => {
    const t = await legacy();
    const wallets = [await t.walletOf(), await t.walletOf(), await t.walletOf()];
    t.repo.bindingUpgrade = true;
    const update = t.repo.updateWallet.bind(t.repo);
    let writes = 0;
    t.repo.updateWallet = async (w, recorded) => {
      if (++writes === 2) throw new Error('database went away');
      return update(w, recorded);
    };
    await expect(t.open()).rejects.toThrow('database went away');
    expect(t.repo.bindingUpgrade).toBe(true);
    expect(t.bound()).toHaveLength(1);

    await (await t.open()).close();
    expect(t.repo.bindingUpgrade).toBe(false);
    expect(t.bound().map((r) => r.subject).sort()).toEqual(wallets.map((w) => w.address).sort());
  });
});
