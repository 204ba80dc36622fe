import { describe, expect, it } from 'vitest';
import { CreateWallet } from '../../src/application/wallets/create-wallet.use-case.js';
import { IDEMPOTENCY_TTL_MS, parseIdempotencyKey, requestHash } from '../../src/application/shared/idempotency.js';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { InMemoryAuditLog, InMemoryWalletRepository } from '../support/in-memory.persistence.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { FixedClock } from '../support/movable-clock.js';
import { aVault } from '../support/wallet-mother.js';
import { ALL_ROLES } from '../../src/domain/api-key-access.js';
import { bindingsOver } from '../support/wallet-bindings.js';

/** A key store whose create() waits until released, so two requests can be made to race. */
class GatedKeyStore extends InMemoryKeyStore {
  private gates: (() => void)[] = [];
  readonly destroyed: string[] = [];
  gated = false;
  override async create() {
    if (this.gated) await new Promise<void>((resolve) => this.gates.push(resolve));
    return super.create();
  }
  override async destroy(keyRef: string) {
    this.destroyed.push(keyRef);
    return super.destroy(keyRef);
  }
  release(): void {
    this.gates.splice(0).forEach((open) => open());
  }
  waiting(): number {
    return this.gates.length;
  }
}

async function setup() {
  const repo = new InMemoryWalletRepository();
  const store = new GatedKeyStore('local');
  const clock = new FixedClock(new Date('2026-05-01T00:00:00Z'));
  const auditLog = new InMemoryAuditLog();
  let n = 0;
  const ids = { next: () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}` };
  const vault = aVault();
  await repo.ensureAccount(vault.accountId, clock.now());
  await repo.insertVault(vault);
  const registry = new MapKeyStoreRegistry([store], 'local');
  const create = new CreateWallet(repo, registry, bindingsOver(registry, auditLog, clock), clock, ids, auditLog);
  const principal = { apiKeyId: '0123456789abcdef', vaultId: vault.id, roles: ALL_ROLES };
  const run = (key: string, body: { name: string }, vaultId = vault.id) =>
    create.execute({ principal: { ...principal, vaultId }, name: body.name, idempotency: { key, body } });
  return { repo, store, clock, auditLog, vault, run, create, principal };
}

/** A replay carries every field the client sees; the key reference and the binding are never kept with the answer. */
const replayOf = (w: { keyRef: string; binding: string | null }) => ({ ...w, keyRef: '', binding: null });

describe('idempotent create', () => {
  it('returns the first wallet for a retry within 24 hours and creates nothing; a new one from the 24th hour on', async () => {
    const t = await setup();
    const first = await t.run('k1', { name: 'a' });
    t.clock.advance(IDEMPOTENCY_TTL_MS - 1);
    expect(await t.run('k1', { name: 'a' })).toEqual(replayOf(first));
    expect(t.repo.wallets.size).toBe(1);
    expect(t.store.size).toBe(1);
    expect(t.auditLog.records.filter((r) => r.action === 'wallet.created')).toHaveLength(1);
    t.clock.advance(1);
    const fresh = await t.run('k1', { name: 'a' });
    expect(fresh.id).not.toBe(first.id);
    expect(t.repo.wallets.size).toBe(2);
  });

  it('answers a retry with the wallet as it was created, even after a rename', async () => {
    const t = await setup();
    const first = await t.run('k', { name: 'a' });
    await t.repo.updateWallet({ ...first, name: 'renamed', version: 2 });
    expect(await t.run('k', { name: 'a' })).toEqual(replayOf(first));
  });

  it('keeps no copy of the key reference (for vault-transit, the wrapped key) nor the binding with the stored answer', async () => {
    const t = await setup();
    const first = await t.run('k', { name: 'a' });
    const [record] = [...t.repo.idempotency.values()];
    expect(first.keyRef).not.toBe('');
    expect(record!.response).not.toContain(first.keyRef);
    expect(first.binding).toMatch(/^0x[0-9a-f]{130}$/);
    expect(record!.response).not.toContain(first.binding!.slice(2));
  });

  it('refuses the same key with another body, and keys are per vault', async () => {
    const t = await setup();
    await t.run('k', { name: 'a' });
    await expect(t.run('k', { name: 'b' })).rejects.toMatchObject({
      code: ErrorCode.IDEMPOTENCY_CONFLICT,
      message: expect.stringMatching(/^Idempotency-Key: already used with a different request body/),
    });
    expect(t.store.size).toBe(1);
    const other = aVault();
    await t.repo.ensureAccount(other.accountId, t.clock.now());
    await t.repo.insertVault(other);
    const elsewhere = await t.run('k', { name: 'b' }, other.id);
    expect(elsewhere.vaultId).toBe(other.id);
  });

  it('a race with one key makes one wallet; the losers destroy their keys and answer with the winner', async () => {
    const t = await setup();
    t.store.gated = true;
    const racing = [1, 2, 3].map(() => t.run('race', { name: 'r' }));
    while (t.store.waiting() < 3) await new Promise((r) => setImmediate(r));
    // All three passed the idempotency lookup before any of them committed.
    t.store.release();
    const answers = await Promise.all(racing);
    expect(replayOf(answers[1]!)).toEqual(replayOf(answers[0]!));
    expect(replayOf(answers[2]!)).toEqual(replayOf(answers[0]!));
    expect(t.repo.wallets.size).toBe(1);
    expect(t.store.size).toBe(1);
    expect(t.store.destroyed).toHaveLength(2);
    expect(t.store.destroyed).not.toContain([...t.repo.wallets.values()][0]!.keyRef);
    expect(t.auditLog.records.filter((r) => r.action === 'wallet.created')).toHaveLength(1);
  });

  it('a racing request with another body gets the conflict, not the wallet', async () => {
    const t = await setup();
    t.store.gated = true;
    const a = t.run('race', { name: 'a' });
    const b = t.run('race', { name: 'b' });
    while (t.store.waiting() < 2) await new Promise((r) => setImmediate(r));
    t.store.release();
    const [ra, rb] = await Promise.allSettled([a, b]);
    expect(ra.status).toBe('fulfilled');
    expect(rb).toMatchObject({ status: 'rejected', reason: { code: ErrorCode.IDEMPOTENCY_CONFLICT } });
    expect(t.store.size).toBe(1);
  });

  it('without a key, every create makes a wallet', async () => {
    const t = await setup();
    await t.create.execute({ principal: t.principal, name: 'x' });
    await t.create.execute({ principal: t.principal, name: 'x' });
    expect(t.repo.wallets.size).toBe(2);
  });
});

describe('idempotency key and body', () => {
  it('accepts 1 to 255 characters and names the header otherwise', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('x')).toBe('x');
    expect(parseIdempotencyKey('k'.repeat(255))).toHaveLength(255);
    expect(() => parseIdempotencyKey('')).toThrow(/^Idempotency-Key: must be 1 to 255 characters \(got 0\)$/);
    expect(() => parseIdempotencyKey('k'.repeat(256))).toThrow(/Idempotency-Key: must be 1 to 255 characters \(got 256\)/);
    // Stored as text: PostgreSQL cannot store NUL (a library caller's value has no HTTP parser in front).
    expect(() => parseIdempotencyKey('a\u0000b')).toThrow(/^Idempotency-Key: must not contain control characters \(it contains U\+0000\)$/);
  });

  it('treats bodies as the same JSON value: key order and whitespace do not matter, values do', () => {
    expect(requestHash({ name: 'a', x: { b: 1, a: [1, 2] } })).toBe(requestHash(JSON.parse('{ "x": {"a":[1, 2], "b":1}, "name":"a" }')));
    expect(requestHash({ name: 'a' })).not.toBe(requestHash({ name: ' a' }));
    expect(requestHash({ name: 'a' })).not.toBe(requestHash({ name: 'a', extra: null }));
    expect(requestHash({ x: [1, 2] })).not.toBe(requestHash({ x: [2, 1] }));
    expect(requestHash({ name: 'a' })).toMatch(/^[0-9a-f]{64}$/);
  });
});
