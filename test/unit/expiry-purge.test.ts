import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CreateWallet } from '../../src/application/wallets/create-wallet.use-case.js';
import { ExpireWallet } from '../../src/application/wallets/expire-wallet.use-case.js';
import { GetVaultStatus } from '../../src/application/vaults/get-vault-status.use-case.js';
import { GetWallet } from '../../src/application/wallets/get-wallet.use-case.js';
import { ListWallets } from '../../src/application/wallets/list-wallets.use-case.js';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import { PurgeExpiredWallets } from '../../src/application/wallets/purge-expired-wallets.use-case.js';
import { UnexpireWallet } from '../../src/application/wallets/unexpire-wallet.use-case.js';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { EXPIRY_TTL_MS } from '../../src/domain/wallet.js';
import type { AuditEvent } from '../../src/ports/audit-log.port.js';
import { InMemoryAuditLog, InMemoryWalletRepository } from '../support/in-memory.persistence.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { FixedClock } from '../support/movable-clock.js';
import { aVault } from '../support/wallet-mother.js';
import { ALL_ROLES } from '../../src/domain/api-key-access.js';
import { bindingsOver } from '../support/wallet-bindings.js';

/** The audit log, with its next appends failing on demand (the database refusing the record's write). */
class FlakyAuditLog extends InMemoryAuditLog {
  failNext = 0;
  override async append(event: AuditEvent): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new DomainError(ErrorCode.DATABASE_UNAVAILABLE, 'database unavailable');
    }
    return super.append(event);
  }
}

async function setup() {
  const auditLog = new FlakyAuditLog();
  const repo = new InMemoryWalletRepository(auditLog);
  const store = new InMemoryKeyStore('local');
  const clock = new FixedClock(new Date('2026-03-01T00:00:00Z'));
  const registry = new MapKeyStoreRegistry([store], 'local');
  let n = 0;
  const ids = { next: () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}` };
  const vault = aVault();
  await repo.ensureAccount(vault.accountId, clock.now());
  await repo.insertVault(vault);
  const principal = { apiKeyId: '0123456789abcdef', vaultId: vault.id, roles: ALL_ROLES };
  const create = new CreateWallet(repo, registry, bindingsOver(registry, auditLog, clock), clock, ids, auditLog);
  return {
    repo,
    auditLog,
    principal,
    store,
    clock,
    vault,
    create: () => create.execute({ principal, name: 'w' }),
    expire: new ExpireWallet(repo, clock),
    get: new GetWallet(repo, clock),
    list: new ListWallets(repo, clock),
    status: new GetVaultStatus(repo, clock, 'test'),
    purge: new PurgeExpiredWallets(repo, registry, clock),
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
    const purge = new PurgeExpiredWallets(t.repo, t.registry, t.clock, 2);
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

  it('finishes a removal whose wallet.deleted could not be written: the record stays until it is, recorded once', async () => {
    const t = await setup();
    const w = await t.create();
    await t.expire.execute(t.principal, w.address);
    t.clock.advance(EXPIRY_TTL_MS);
    t.auditLog.failNext = 1;
    expect(await t.purge.execute()).toEqual({ destroyed: 0, failed: 1 });
    // The key is gone, the record (invisible) still names it: the deletion is unfinished, not forgotten.
    expect(t.store.has(w.keyRef)).toBe(false);
    expect(t.repo.wallets.has(w.id)).toBe(true);
    await expect(t.get.execute(t.vault.id, w.address)).rejects.toMatchObject({ code: ErrorCode.WALLET_NOT_FOUND });
    expect(t.auditLog.records.map((r) => r.action)).not.toContain('wallet.deleted');
    expect(await t.purge.execute()).toEqual({ destroyed: 1, failed: 0 });
    expect(t.repo.wallets.has(w.id)).toBe(false);
    expect(await t.purge.execute()).toEqual({ destroyed: 0, failed: 0 });
    const deleted = t.auditLog.records.filter((r) => r.action === 'wallet.deleted');
    expect(deleted).toMatchObject([{ subject: w.address, actor: 'system', details: { walletId: w.id } }]);
  });

  it('an expiry whose record cannot be written is not made: the wallet stays active, and the retry records it once', async () => {
    const t = await setup();
    const w = await t.create();
    t.auditLog.failNext = 1;
    await expect(t.expire.execute(t.principal, w.address)).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    expect(t.repo.wallets.get(w.id)).toMatchObject({ expires: null, version: 1 });
    expect(t.auditLog.records.map((r) => r.action)).not.toContain('wallet.expired');
    const expired = await t.expire.execute(t.principal, w.address);
    await t.expire.execute(t.principal, w.address); // already expiring: changes and records nothing
    expect(t.auditLog.records.filter((r) => r.action === 'wallet.expired')).toMatchObject([
      { subject: w.address, details: { walletId: w.id, expires: expired.expires!.toISOString() } },
    ]);
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

/** Holds a call until released, and says when the call has reached it. */
function gate() {
  let release!: () => void;
  let reached!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const arrived = new Promise<void>((r) => (reached = r));
  return { release, arrived, wait: () => (reached(), released) };
}

describe('an unexpire racing the purge at the expiry instant', () => {
  /** An unexpire that read the wallet just before its expiry instant and is held before its write. */
  async function unexpireHeldBeforeWrite(t: Awaited<ReturnType<typeof setup>>, address: string) {
    const held = gate();
    const update = t.repo.updateWallet.bind(t.repo);
    t.repo.updateWallet = async (wallet, recorded) => {
      t.repo.updateWallet = update; // only the first write is held
      await held.wait();
      return update(wallet, recorded);
    };
    const result = new UnexpireWallet(t.repo, t.clock).execute(t.principal, address).then(
      (w) => ({ ok: true as const, w }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    await held.arrived;
    return { release: held.release, result };
  }

  it('an unexpire written before the purge claims the wallet wins: the key and the record are kept', async () => {
    const t = await setup();
    const w = await t.create();
    await t.expire.execute(t.principal, w.address);
    t.clock.advance(EXPIRY_TTL_MS - 1);
    const unexpire = await unexpireHeldBeforeWrite(t, w.address);
    t.clock.advance(1); // the expiry instant: the purge finds the wallet expired
    const findExpired = t.repo.findExpired.bind(t.repo);
    t.repo.findExpired = async (now, limit) => {
      const found = await findExpired(now, limit);
      // Between the purge's read and its claim, the unexpire's write lands.
      unexpire.release();
      await unexpire.result;
      return found;
    };
    expect(await t.purge.execute()).toEqual({ destroyed: 0, failed: 0 });
    const answered = await unexpire.result;
    expect(answered).toMatchObject({ ok: true, w: { id: w.id, expires: null } });
    expect(t.store.has(w.keyRef)).toBe(true);
    await expect(t.get.execute(t.vault.id, w.address)).resolves.toMatchObject({ id: w.id, expires: null });
    expect(t.auditLog.records.map((r) => r.action)).not.toContain('wallet.deleted');
  });

  it('an unexpire written after the purge claimed the wallet loses: it is 404, never 200 for a destroyed key', async () => {
    const t = await setup();
    const w = await t.create();
    await t.expire.execute(t.principal, w.address);
    t.clock.advance(EXPIRY_TTL_MS - 1);
    const unexpire = await unexpireHeldBeforeWrite(t, w.address);
    t.clock.advance(1);
    expect(await t.purge.execute()).toEqual({ destroyed: 1, failed: 0 });
    unexpire.release();
    expect(await unexpire.result).toMatchObject({ ok: false, error: { code: ErrorCode.WALLET_NOT_FOUND } });
    expect(t.store.has(w.keyRef)).toBe(false);
    expect(t.repo.wallets.has(w.id)).toBe(false);
  });
});
