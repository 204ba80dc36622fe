import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CreateWallet } from '../../src/application/create-wallet.use-case.js';
import { ExpireWallet } from '../../src/application/expire-wallet.use-case.js';
import { GetVaultStatus } from '../../src/application/get-vault-status.use-case.js';
import { GetWallet } from '../../src/application/get-wallet.use-case.js';
import { ListWallets } from '../../src/application/list-wallets.use-case.js';
import { MapKeyStoreRegistry } from '../../src/application/key-store-registry.js';
import { PurgeExpiredWallets } from '../../src/application/purge-expired-wallets.use-case.js';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { EXPIRY_TTL_MS } from '../../src/domain/wallet.js';
import { InMemoryAuditLog, InMemoryWalletRepository } from '../support/in-memory.persistence.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { FixedClock } from '../support/movable-clock.js';
import { aVault } from '../support/wallet-mother.js';

async function setup() {
  const repo = new InMemoryWalletRepository();
  const store = new InMemoryKeyStore('local');
  const clock = new FixedClock(new Date('2026-03-01T00:00:00Z'));
  const registry = new MapKeyStoreRegistry([store], 'local');
  let n = 0;
  const ids = { next: () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}` };
  const vault = aVault();
  await repo.ensureAccount(vault.accountId, clock.now());
  await repo.insertVault(vault);
  const auditLog = new InMemoryAuditLog();
  const principal = { apiKeyId: '0123456789abcdef', vaultId: vault.id };
  const create = new CreateWallet(repo, registry, clock, ids, auditLog);
  return {
    repo,
    auditLog,
    principal,
    store,
    clock,
    vault,
    create: () => create.execute({ principal, name: 'w' }),
    expire: new ExpireWallet(repo, clock, auditLog),
    get: new GetWallet(repo, clock),
    list: new ListWallets(repo, clock),
    status: new GetVaultStatus(repo, clock, 'test'),
    purge: new PurgeExpiredWallets(repo, registry, clock, auditLog),
    registry,
  };
}

describe('purging expired wallets', () => {
  it('destroys the key and then the record, once the expiry instant has passed', async () => {
    const t = await setup();
    const w = await t.create();
    const other = await t.create();
    const expired = await t.expire.execute(t.principal, w.address);
    expect(expired.expires?.getTime()).toBe(t.clock.now().getTime() + EXPIRY_TTL_MS);
    t.clock.advance(EXPIRY_TTL_MS - 1);
    expect(await t.purge.execute()).toEqual({ destroyed: 0, failed: 0 });
    await expect(t.get.execute(t.vault.id, w.address)).resolves.toMatchObject({ id: w.id });
    expect((await t.list.execute(t.vault.id)).count).toBe(2);

    t.clock.advance(1);
    await expect(t.get.execute(t.vault.id, w.address)).rejects.toMatchObject({ code: ErrorCode.WALLET_NOT_FOUND });
    const page = await t.list.execute(t.vault.id);
    expect(page.count).toBe(1);
    expect(page.page.map((x) => x.id)).toEqual([other.id]);
    expect((await t.status.execute(t.vault.id)).wallets).toBe(1);
    // Invisible, but the key still exists until the purge runs.
    await expect(t.store.sign(w.keyRef, randomBytes(32))).resolves.toMatchObject({ v: expect.any(Number) });

    expect(await t.purge.execute()).toEqual({ destroyed: 1, failed: 0 });
    expect(t.store.has(w.keyRef)).toBe(false);
    await expect(t.store.sign(w.keyRef, randomBytes(32))).rejects.toMatchObject({ code: ErrorCode.KEYSTORE_UNAVAILABLE });
    await expect(t.store.sign(other.keyRef, randomBytes(32))).resolves.toBeDefined();
    expect(t.repo.wallets.has(w.id)).toBe(false);
    expect(t.store.has(other.keyRef)).toBe(true);
    expect(await t.purge.execute()).toEqual({ destroyed: 0, failed: 0 });
  });

  it('keeps the record for the next run when the key store fails, and the wallet stays invisible', async () => {
    const t = await setup();
    const w = await t.create();
    await t.expire.execute(t.principal, w.address);
    t.clock.advance(EXPIRY_TTL_MS);
    t.store.failNext = 1;
    expect(await t.purge.execute()).toEqual({ destroyed: 0, failed: 1 });
    expect(t.repo.wallets.has(w.id)).toBe(true);
    expect(t.store.has(w.keyRef)).toBe(true);
    await expect(t.get.execute(t.vault.id, w.address)).rejects.toMatchObject({ code: ErrorCode.WALLET_NOT_FOUND });
    expect((await t.list.execute(t.vault.id)).count).toBe(0);
    expect(await t.purge.execute()).toEqual({ destroyed: 1, failed: 0 });
    expect(t.repo.wallets.has(w.id)).toBe(false);
  });

  it('works through more expired wallets than one batch, skipping a failed one without looping on it', async () => {
    const t = await setup();
    const purge = new PurgeExpiredWallets(t.repo, t.registry, t.clock, t.auditLog, 2);
    const doomed = [];
    for (let i = 0; i < 5; i++) doomed.push(await t.create());
    for (const w of doomed) await t.expire.execute(t.principal, w.address);
    t.clock.advance(EXPIRY_TTL_MS);
    t.store.failNext = 1;
    expect(await purge.execute()).toEqual({ destroyed: 4, failed: 1 });
    expect(t.store.size).toBe(1);
    expect(await purge.execute()).toEqual({ destroyed: 1, failed: 0 });
    expect(t.store.size).toBe(0);
    expect(t.repo.wallets.size).toBe(0);
  });

  it('finishes after a crash between destroying the key and removing the record', async () => {
    const t = await setup();
    const w = await t.create();
    await t.expire.execute(t.principal, w.address);
    t.clock.advance(EXPIRY_TTL_MS);
    await t.store.destroy(w.keyRef); // the step before the crash
    expect(await t.purge.execute()).toEqual({ destroyed: 1, failed: 0 });
    expect(t.repo.wallets.has(w.id)).toBe(false);
  });

  it('a create whose record cannot be written leaves no key behind', async () => {
    const t = await setup();
    t.repo.insertWallet = async () => {
      throw new DomainError(ErrorCode.DATABASE_UNAVAILABLE, 'database unavailable');
    };
    await expect(t.create()).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    expect(t.store.size).toBe(0);
  });
});
