import { describe, expect, it } from 'vitest';
import { createLogger } from '../../adapters/main/logger.js';
import { PURGE_JOB, PurgeScheduler } from '../../adapters/main/purge-scheduler.js';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import { PurgeExpiredIdempotency } from '../../src/application/shared/purge-expired-idempotency.use-case.js';
import { PurgeExpiredWallets } from '../../src/application/wallets/purge-expired-wallets.use-case.js';
import { SweepOrphanKeys } from '../../src/application/keys/sweep-orphan-keys.use-case.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { InMemoryJobLock, InMemoryKeyQuarantine, InMemoryWalletRepository } from '../support/in-memory.persistence.js';
import { FixedClock } from '../support/movable-clock.js';
import { aVault, aWallet, anIdempotencyRecord } from '../support/wallet-mother.js';

/** Yields to the event loop until `condition` holds (bounded by the test's own timeout). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setImmediate(r));
}

const NOW = new Date('2026-03-01T00:00:00Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);

async function setup() {
  const repo = new InMemoryWalletRepository();
  const store = new InMemoryKeyStore('local');
  const registry = new MapKeyStoreRegistry([store], 'local');
  const clock = new FixedClock(NOW);
  const lock = new InMemoryJobLock();
  const vault = aVault();
  await repo.ensureAccount(vault.accountId, NOW);
  await repo.insertVault(vault);
  const { keyRef } = await store.create();
  const expiredWallet = aWallet(vault, { keyRef, expires: at(-1) });
  await repo.insertWallet(expiredWallet, anIdempotencyRecord(vault, { key: 'old', created: at(-10), expires: at(-1) }));
  await repo.insertWallet(aWallet(vault), anIdempotencyRecord(vault, { key: 'live', created: at(-10), expires: at(1) }));
  const sweep = new SweepOrphanKeys(repo, registry, new InMemoryKeyQuarantine(), clock);
  const jobs = { purge: new PurgeExpiredWallets(repo, registry, clock), purgeIdempotency: new PurgeExpiredIdempotency(repo, clock), sweep };
  const scheduler = new PurgeScheduler(jobs, lock, 60_000, createLogger('silent'));
  return { repo, store, lock, vault, expiredWallet, jobs, scheduler };
}

describe('the purge scheduler', () => {
  it('does nothing while another instance holds the purge lock, and purges once it is released', async () => {
    const t = await setup();
    const release = t.lock.holdElsewhere(PURGE_JOB);
    await t.scheduler.runOnce();
    expect(t.repo.wallets.has(t.expiredWallet.id)).toBe(true);
    expect(t.store.has(t.expiredWallet.keyRef)).toBe(true);
    expect(t.repo.idempotency.size).toBe(2);

    release();
    await t.scheduler.runOnce();
    expect(t.repo.wallets.has(t.expiredWallet.id)).toBe(false);
    expect(t.store.has(t.expiredWallet.keyRef)).toBe(false);
    expect(await t.repo.findIdempotency(t.vault.id, 'live', NOW)).not.toBeNull();
    expect(t.repo.idempotency.size).toBe(1);
  });

  it('runs again for a caller that asks while a run is under way, so the run sees what the caller did before asking', async () => {
    const t = await setup();
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const sweep = t.jobs.sweep.execute.bind(t.jobs.sweep);
    let sweeps = 0;
    t.jobs.sweep.execute = async () => {
      if (++sweeps === 1) await gate; // the run at start-up, still going: its purge is already done
      return sweep();
    };
    const first = t.scheduler.runOnce();
    await until(() => sweeps === 1);
    // Expires after the run under way purged: only a run that starts after this can see it.
    const { keyRef } = await t.store.create();
    const late = aWallet(t.vault, { keyRef, expires: at(-1) });
    await t.repo.insertWallet(late, anIdempotencyRecord(t.vault, { key: 'late', created: at(-10), expires: at(1) }));

    const asked = t.scheduler.runAfterNow();
    openGate();
    await Promise.all([first, asked]);
    expect(sweeps).toBe(2);
    expect(t.repo.wallets.has(late.id)).toBe(false);
    expect(t.store.has(late.keyRef)).toBe(false);
  });

  it('releases the lock when a job fails, so the next run goes ahead', async () => {
    const t = await setup();
    let sweeps = 0;
    t.jobs.sweep.execute = async () => {
      if (++sweeps === 1) throw new Error('store down');
      return { quarantined: 0, held: 0 };
    };
    await expect(t.scheduler.runOnce()).resolves.toBeUndefined();
    expect(sweeps).toBe(1);
    expect(await t.lock.runExclusive(PURGE_JOB, async () => 'free')).toEqual({ ran: true, value: 'free' });
    await t.scheduler.runOnce();
    expect(sweeps).toBe(2);
  });
});

describe('purging expired idempotency records', () => {
  it('removes every expired record over several batches and keeps the live ones', async () => {
    const repo = new InMemoryWalletRepository();
    const vault = aVault();
    for (let i = 0; i < 5; i++) await repo.insertWallet(aWallet(vault), anIdempotencyRecord(vault, { created: at(-10), expires: at(-i) }));
    await repo.insertWallet(aWallet(vault), anIdempotencyRecord(vault, { key: 'live', created: at(-10), expires: at(1) }));
    expect(await new PurgeExpiredIdempotency(repo, new FixedClock(NOW), 2).execute()).toBe(5);
    expect([...repo.idempotency.values()].map((r) => r.key)).toEqual(['live']);
  });
});
