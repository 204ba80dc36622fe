import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CreateWallet } from '../../src/application/wallets/create-wallet.use-case.js';
import { ExpireWallet } from '../../src/application/wallets/expire-wallet.use-case.js';
import { ReadThroughCache } from '../../src/application/signing/read-through-cache.js';
import { SignCall } from '../../src/application/signing/sign-call.use-case.js';
import { SIGNER_CACHE_TTL_MS } from '../../src/application/wallets/wallet-lookup.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { InMemoryPolicyRepository, InMemorySignatureLog } from '../support/in-memory.persistence.js';
import { CONTRACT, SENDER, SIGNER_ABI } from '../support/sign-fixtures.js';
import { signWorld } from '../support/sign-world.js';
import { gateOver } from '../support/policy-gate.js';
import { bindingsOver } from '../support/wallet-bindings.js';

const UNIQ = `0x${'ab'.repeat(32)}`;

/** Sign with its signer cache over a repository that tests also change directly, as another process would. */
async function world() {
  const { repo, registry, clock, auditLog, ids, principal } = await signWorld();
  const sign = new SignCall({
    repository: repo,
    bindings: bindingsOver(registry, auditLog, clock),
    chainReader: { hasRpc: () => false, readSignable: () => Promise.reject(new Error('no rpc')) },
    signatureLog: new InMemorySignatureLog(auditLog),
    clock,
    random: (k) => randomBytes(k),
    gate: gateOver(new InMemoryPolicyRepository(), auditLog, clock),
  });
  const create = new CreateWallet(repo, registry, bindingsOver(registry, auditLog, clock), clock, ids, auditLog);
  const signWith = (signer: string) =>
    sign.execute({ principal, ...{ chain: 'local', contract: CONTRACT, sender: SENDER, uniq: UNIQ, signer, abi: SIGNER_ABI, args: ['1'] } });
  return { repo, clock, principal, create, signWith };
}

describe('signer cache', () => {
  it('stops signing with a wallet expired by another process at its expiry instant exactly', async () => {
    const w = await world();
    const wallet = await w.create.execute({ principal: w.principal, name: 's' });
    await w.signWith(wallet.address); // cached, not expiring
    const expired = await new ExpireWallet(w.repo, w.clock).execute(w.principal, wallet.address);
    // Expiry is always 30 days out, so a cached copy (at most a TTL old) that shows no expiry is never
    // wrong about the instant; past the TTL the lookup sees it.
    w.clock.set(new Date(expired.expires!.getTime() - 1));
    await expect(w.signWith(wallet.address)).resolves.toMatchObject({ submissionHash: expect.any(String) });
    w.clock.set(expired.expires!);
    await expect(w.signWith(wallet.address)).rejects.toMatchObject({ code: ErrorCode.WALLET_NOT_FOUND });
  });

  it('refuses a cached expiring wallet at its expiry instant even within the TTL', async () => {
    const w = await world();
    const wallet = await w.create.execute({ principal: w.principal, name: 's' });
    const expires = new Date(w.clock.now().getTime() + SIGNER_CACHE_TTL_MS / 2);
    w.repo.wallets.set(wallet.id, { ...w.repo.wallets.get(wallet.id)!, expires });
    await w.signWith(wallet.address); // cached with its expiry
    w.clock.set(new Date(expires.getTime() - 1));
    await expect(w.signWith(wallet.address.toLowerCase())).resolves.toMatchObject({ submissionHash: expect.any(String) });
    w.clock.set(expires);
    await expect(w.signWith(wallet.address)).rejects.toMatchObject({ code: ErrorCode.WALLET_NOT_FOUND });
  });

  it('looks an expired cached wallet up again: unexpired elsewhere, it signs', async () => {
    const w = await world();
    const wallet = await w.create.execute({ principal: w.principal, name: 's' });
    const expires = new Date(w.clock.now().getTime() + 1000);
    w.repo.wallets.set(wallet.id, { ...w.repo.wallets.get(wallet.id)!, expires });
    await w.signWith(wallet.address);
    w.repo.wallets.set(wallet.id, { ...w.repo.wallets.get(wallet.id)!, expires: null });
    w.clock.set(expires);
    await expect(w.signWith(wallet.address)).resolves.toMatchObject({ submissionHash: expect.any(String) });
  });

  it('never caches a miss: a wallet created elsewhere signs at once', async () => {
    const w = await world();
    const wallet = await w.create.execute({ principal: w.principal, name: 's' });
    const stored = w.repo.wallets.get(wallet.id)!;
    w.repo.wallets.delete(wallet.id);
    await expect(w.signWith(wallet.address)).rejects.toMatchObject({ code: ErrorCode.WALLET_NOT_FOUND });
    w.repo.wallets.set(wallet.id, stored);
    await expect(w.signWith(wallet.address)).resolves.toMatchObject({ submissionHash: expect.any(String) });
  });
});

describe('ReadThroughCache (policies, signers, chains)', () => {
  const at = (ms: number) => new Date(ms);
  const counting = () => {
    let loads = 0;
    return { load: async () => ++loads, loads: () => loads };
  };

  it('answers a load again within the TTL only, and drops the oldest entry past the bound', async () => {
    const cache = new ReadThroughCache<string, number>({ ttlMs: 100, maxEntries: 2 });
    const c = counting();
    expect(await cache.read('a', at(0), c.load)).toBe(1);
    expect(await cache.read('a', at(99), c.load)).toBe(1);
    expect(await cache.read('a', at(100), c.load)).toBe(2);
    await cache.read('b', at(100), c.load);
    await cache.read('c', at(100), c.load); // drops a
    expect(await cache.read('a', at(101), c.load)).toBe(5);
  });

  it('keeps no load that began before an invalidate, and answers it all the same', async () => {
    const cache = new ReadThroughCache<string, number>({ ttlMs: 1_000, maxEntries: 10 });
    const c = counting();
    const racing = cache.read('a', at(0), async () => {
      cache.invalidate('a');
      return c.load();
    });
    expect(await racing).toBe(1);
    expect(await cache.read('a', at(1), c.load)).toBe(2);
    expect(await cache.read('a', at(2), c.load)).toBe(2);
  });

  it('makes one load of a key however many readers miss it at once, unless a reader asks for a fresh one', async () => {
    const cache = new ReadThroughCache<string, number>({ ttlMs: 1_000, maxEntries: 10 });
    const c = counting();
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const slow = async () => (await gate, c.load());
    const readers = [cache.read('a', at(0), slow), cache.read('a', at(1), slow), cache.read('a', at(2), slow)];
    const fresh = cache.read('a', at(3), c.load, { fresh: true });
    expect(await fresh).toBe(1);
    finish();
    expect(await Promise.all(readers)).toEqual([2, 2, 2]);
    // The fresh load kept its value; the slower one, begun earlier, kept its own after it (the last kept wins).
    expect(await cache.read('a', at(4), c.load)).toBe(2);
    expect(c.loads()).toBe(2);
  });

  it('lets no reader after an invalidate join a load begun before it', async () => {
    const cache = new ReadThroughCache<string, number>({ ttlMs: 1_000, maxEntries: 10 });
    const c = counting();
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const before = cache.read('a', at(0), async () => (await gate, c.load()));
    cache.invalidate('a');
    const after = cache.read('a', at(1), c.load);
    expect(await after).toBe(1);
    finish();
    expect(await before).toBe(2);
    // The load begun before the invalidate is answered but not kept: the one after it is.
    expect(await cache.read('a', at(2), c.load)).toBe(1);
  });

  it('loads again a kept value that is no longer usable, and keeps nothing of a load that throws', async () => {
    const cache = new ReadThroughCache<string, number>({ ttlMs: 1_000, maxEntries: 10, usable: (v, now) => now.getTime() < 10 || v > 1 });
    const c = counting();
    await expect(cache.read('a', at(0), () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.read('a', at(0), c.load)).toBe(1);
    expect(await cache.read('a', at(5), c.load)).toBe(1);
    expect(await cache.read('a', at(10), c.load)).toBe(2);
    expect(await cache.read('a', at(11), c.load)).toBe(2);
  });
});
