import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VerifyAuditChain } from '../../src/application/audit/verify-audit-chain.use-case.js';
import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { SignatureLog, SignatureRecord } from '../../src/ports/signature-log.port.js';
import type { WalletRepository } from '../../src/ports/wallet-repository.port.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { parseCidrs } from '../../src/domain/api-key-access.js';
import { aSignatureRecord, aVault, aWallet, anApiKey, anAuditEvent, anIdempotencyRecord, randomAddress } from './fixtures.js';

export interface WalletRepositoryFixture {
  readonly repo: WalletRepository;
  readonly signatureLog: SignatureLog;
  /** The audit log of the same store, where the signature log chains signature.issued. */
  readonly auditLog: AuditLog;
  cleanup(): Promise<void>;
}

const NOW = new Date('2026-06-01T00:00:00Z');
const ms = (n: number) => new Date(NOW.getTime() + n);

/** What every persistence adapter must do; each backend's test file calls this with a fresh store. */
export function describeWalletRepositoryContract(name: string, make: () => Promise<WalletRepositoryFixture>): void {
  describe(`WalletRepository and SignatureLog contract: ${name}`, () => {
    let f: WalletRepositoryFixture;
    beforeAll(async () => {
      f = await make();
    });
    afterAll(async () => {
      await f?.cleanup();
    });

    const newVault = async () => {
      const vault = aVault();
      await f.repo.ensureAccount(vault.accountId, NOW);
      await f.repo.insertVault(vault);
      return vault;
    };

    it('creates accounts idempotently and finds and lists vaults', async () => {
      const a1 = await f.repo.ensureAccount('acct-x', NOW);
      const a2 = await f.repo.ensureAccount('acct-x', ms(5000));
      expect(a2.created).toEqual(a1.created);
      const vault = await newVault();
      expect(await f.repo.findVault(vault.id)).toEqual(vault);
      expect(await f.repo.findVault('nope')).toBeNull();
      expect((await f.repo.listVaults()).map((v) => v.id)).toContain(vault.id);
    });

    it('stores API keys, revokes once (keeping the first time) and counts active ones', async () => {
      const vault = await newVault();
      const k1 = anApiKey(vault);
      const k2 = anApiKey(vault, { created: ms(1) });
      await f.repo.insertApiKey(k1);
      await f.repo.insertApiKey(k2);
      expect(await f.repo.findApiKey(k1.id)).toEqual(k1);
      expect(await f.repo.countActiveApiKeys(vault.id)).toBe(2);
      expect(await f.repo.revokeApiKey(k1.id, ms(10))).toBe(true);
      expect(await f.repo.revokeApiKey(k1.id, ms(20))).toBe(true);
      expect((await f.repo.findApiKey(k1.id))?.revoked).toEqual(ms(10));
      expect(await f.repo.revokeApiKey('0000000000000000', ms(1))).toBe(false);
      expect(await f.repo.countActiveApiKeys(vault.id)).toBe(1);
      expect((await f.repo.listApiKeys(vault.id)).map((k) => k.id)).toEqual([k1.id, k2.id]);
    });

    it("keeps an approver key's address; setApproverAddress changes it with its audit record, and reports a missing key", async () => {
      const vault = await newVault();
      const address = randomAddress();
      const signed = anApiKey(vault, { roles: ['approver'], approverAddress: address });
      const legacy = anApiKey(vault, { roles: ['approver'], created: ms(1) });
      await f.repo.insertApiKey(signed);
      await f.repo.insertApiKey(legacy);
      expect(await f.repo.findApiKey(signed.id)).toEqual(signed);
      expect(await f.repo.findApiKey(legacy.id)).toEqual(legacy);
      const next = randomAddress();
      const recorded = { action: 'api-key.credential-set', at: ms(2), actor: 'operator', vaultId: vault.id, subject: legacy.id, details: { approverAddress: next } } as const;
      expect(await f.repo.setApproverAddress(legacy.id, next, recorded)).toBe(true);
      expect(await f.repo.findApiKey(legacy.id)).toEqual({ ...legacy, approverAddress: next });
      expect(await f.repo.setApproverAddress('0000000000000000', next, { ...recorded, subject: '0000000000000000' })).toBe(false);
      const trail = await f.auditLog.list({ afterSeq: 0, limit: 1000, vaultId: vault.id });
      expect(trail.filter((r) => r.action === 'api-key.credential-set').map((r) => r.subject)).toEqual([legacy.id]);
    });

    it('setApiKeyRoles replaces the roles of an unrevoked key with its audit record; a missing or revoked key gets nothing written', async () => {
      const vault = await newVault();
      const key = anApiKey(vault, { roles: ['reader'] });
      await f.repo.insertApiKey(key);
      const recorded = { action: 'api-key.roles-changed', at: ms(2), actor: 'operator:bob', vaultId: vault.id, subject: key.id, details: { roles: 'signer,reader', previous: 'reader' } } as const;
      expect(await f.repo.setApiKeyRoles(key.id, ['signer', 'reader'], recorded)).toBe(true);
      expect(await f.repo.findApiKey(key.id)).toEqual({ ...key, roles: ['signer', 'reader'] });
      expect(await f.repo.setApiKeyRoles('0000000000000000', ['admin'], { ...recorded, subject: '0000000000000000' })).toBe(false);
      await f.repo.revokeApiKey(key.id, ms(3));
      expect(await f.repo.setApiKeyRoles(key.id, ['admin'], recorded)).toBe(false);
      expect((await f.repo.findApiKey(key.id))!.roles).toEqual(['signer', 'reader']);
      const trail = await f.auditLog.list({ afterSeq: 0, limit: 1000, vaultId: vault.id });
      expect(trail.filter((r) => r.action === 'api-key.roles-changed').map((r) => [r.subject, r.actor])).toEqual([[key.id, 'operator:bob']]);
    });

    it("keeps an API key's label and expiry; rotateApiKey marks the old key and inserts its successor with its audit record, once; markFirstUsed keeps the first time", async () => {
      const vault = await newVault();
      const old = anApiKey(vault, { roles: ['signer'], label: 'ci deploy', expires: ms(86_400_000) });
      const gone = anApiKey(vault, { created: ms(1), revoked: ms(2) });
      await f.repo.insertApiKey(old);
      await f.repo.insertApiKey(gone);
      expect(await f.repo.findApiKey(old.id)).toEqual(old);
      const successor = anApiKey(vault, { roles: ['signer'], label: 'ci deploy', expires: old.expires!, created: ms(3), replaces: old.id });
      const recorded = { action: 'api-key.rotated', at: ms(3), actor: 'operator', vaultId: vault.id, subject: old.id, details: { replacedBy: successor.id } } as const;
      expect(await f.repo.rotateApiKey(old.id, successor, ms(3_600_003), recorded)).toBe(true);
      expect(await f.repo.findApiKey(old.id)).toEqual({ ...old, replacedBy: successor.id, overlapEnds: ms(3_600_003) });
      expect(await f.repo.findApiKey(successor.id)).toEqual(successor);
      // Rotated already, revoked, or no such key: nothing written, no record.
      const again = anApiKey(vault, { created: ms(4) });
      expect(await f.repo.rotateApiKey(old.id, again, ms(5), recorded)).toBe(false);
      expect(await f.repo.rotateApiKey(gone.id, again, ms(5), { ...recorded, subject: gone.id })).toBe(false);
      expect(await f.repo.rotateApiKey('0000000000000000', again, ms(5), { ...recorded, subject: '0000000000000000' })).toBe(false);
      expect(await f.repo.findApiKey(again.id)).toBeNull();
      const trail = await f.auditLog.list({ afterSeq: 0, limit: 1000, vaultId: vault.id });
      expect(trail.filter((r) => r.action === 'api-key.rotated').map((r) => r.subject)).toEqual([old.id]);
      await f.repo.markFirstUsed(successor.id, ms(10));
      await f.repo.markFirstUsed(successor.id, ms(20));
      expect((await f.repo.findApiKey(successor.id))?.firstUsed).toEqual(ms(10));
    });

    it("keeps an API key's roles and networks (IPv4 and IPv6 ranges) as given; none bound means null", async () => {
      const vault = await newVault();
      const bound = anApiKey(vault, { roles: ['signer', 'reader'], allowCidrs: parseCidrs('10.0.0.0/8,192.0.2.7/32,2001:db8::/32') });
      const open = anApiKey(vault, { roles: ['approver'], created: ms(1) });
      await f.repo.insertApiKey(bound);
      await f.repo.insertApiKey(open);
      expect(await f.repo.findApiKey(bound.id)).toEqual(bound);
      expect(await f.repo.findApiKey(open.id)).toEqual(open);
      expect((await f.repo.listApiKeys(vault.id)).map((k) => [k.roles, k.allowCidrs?.map((c) => c.text) ?? null])).toEqual([
        [['signer', 'reader'], ['10.0.0.0/8', '192.0.2.7/32', '2001:db8::/32']],
        [['approver'], null],
      ]);
    });

    it('finds a wallet only in its own vault', async () => {
      const a = await newVault();
      const b = await newVault();
      const w = aWallet(a);
      await f.repo.insertWallet(w);
      expect(await f.repo.findWallet(a.id, w.address, NOW)).toEqual(w);
      expect(await f.repo.findWallet(b.id, w.address, NOW)).toBeNull();
      expect(await f.repo.listWallets(b.id, NOW, 0, 100)).toEqual({ count: 0, page: [] });
    });

    it('hides a wallet from the instant of its expiry, not a millisecond before', async () => {
      const vault = await newVault();
      const w = aWallet(vault, { expires: NOW });
      await f.repo.insertWallet(w);
      expect(await f.repo.findWallet(vault.id, w.address, ms(-1))).not.toBeNull();
      expect(await f.repo.countWallets(vault.id, ms(-1))).toBe(1);
      expect(await f.repo.findWallet(vault.id, w.address, NOW)).toBeNull();
      expect(await f.repo.countWallets(vault.id, NOW)).toBe(0);
      expect((await f.repo.listWallets(vault.id, NOW, 0, 10)).page).toEqual([]);
      expect((await f.repo.findExpired(NOW, 1000)).map((x) => x.id)).toContain(w.id);
      expect((await f.repo.findExpired(ms(-1), 1000)).map((x) => x.id)).not.toContain(w.id);
    });

    it('lists by created then id, pages without skipping or repeating, and counts the whole vault', async () => {
      const vault = await newVault();
      const sameInstant = ms(-50_000);
      const wallets = [
        aWallet(vault, { created: ms(-10_000) }),
        aWallet(vault, { created: sameInstant, id: '00000000-0000-7000-8000-00000000000b' }),
        aWallet(vault, { created: sameInstant, id: '00000000-0000-7000-8000-00000000000a' }),
        aWallet(vault, { created: ms(-90_000) }),
        aWallet(vault, { created: ms(-1) }),
        aWallet(vault, { created: ms(-2), expires: ms(-1) }),
      ];
      for (const w of wallets) await f.repo.insertWallet(w);
      const expected = [wallets[3], wallets[2], wallets[1], wallets[0], wallets[4]].map((w) => w!.id);
      const seen: string[] = [];
      for (let offset = 0; offset < 6; offset += 2) {
        const page = await f.repo.listWallets(vault.id, NOW, offset, 2);
        expect(page.count).toBe(5);
        seen.push(...page.page.map((w) => w.id));
      }
      expect(seen).toEqual(expected);
      expect((await f.repo.listWallets(vault.id, NOW, 0, 0)).page).toEqual([]);
      expect((await f.repo.listWallets(vault.id, NOW, 100, 10)).count).toBe(5);
    });

    it('deep pages stay exact through inserts, expiries, the passing of an expiry instant and removals', async () => {
      const vault = await newVault();
      const base = NOW.getTime() - 10_000_000;
      const wallets = Array.from({ length: 2500 }, (_, i) => aWallet(vault, { created: new Date(base + i * 10) }));
      for (const w of wallets) await f.repo.insertWallet(w);
      const expectPage = async (at: Date, offset: number, limit: number, expected: string[]) => {
        const page = await f.repo.listWallets(vault.id, at, offset, limit);
        expect(page.page.map((w) => w.id), `offset ${offset}`).toEqual(expected.slice(offset, offset + limit));
        expect(page.count).toBe(expected.length);
      };
      let order = wallets.map((w) => w.id);
      for (const offset of [0, 999, 1000, 1001, 1500, 2000, 2499, 2500]) await expectPage(NOW, offset, 7, order);

      const earliest = aWallet(vault, { created: new Date(base - 1) });
      await f.repo.insertWallet(earliest);
      order = [earliest.id, ...order];
      await expectPage(NOW, 1500, 5, order);

      const hidden = wallets[100]!;
      expect(await f.repo.updateWallet({ ...hidden, expires: NOW, version: 2 })).toBe(true);
      order = order.filter((id) => id !== hidden.id);
      await expectPage(NOW, 1500, 5, order);

      const soon = wallets[500]!; // before the anchor at position 1000, so a stale anchor would shift the page
      expect(await f.repo.updateWallet({ ...soon, expires: ms(5), version: 2 })).toBe(true);
      await expectPage(NOW, 1500, 5, order);
      order = order.filter((id) => id !== soon.id);
      await expectPage(ms(5), 1500, 5, order);

      await f.repo.removeWallet(wallets[10]!.id);
      order = order.filter((id) => id !== wallets[10]!.id);
      await expectPage(ms(5), 2000, 5, order);
    });

    it('updates with compare-and-set on version; a stale write changes nothing', async () => {
      const vault = await newVault();
      const w = aWallet(vault);
      await f.repo.insertWallet(w);
      const renamed = { ...w, name: 'renamed', updated: ms(1), version: 2 };
      expect(await f.repo.updateWallet(renamed)).toBe(true);
      const stale = { ...w, name: 'lost', expires: ms(5), version: 2 };
      expect(await f.repo.updateWallet(stale)).toBe(false);
      expect(await f.repo.findWallet(vault.id, w.address, NOW)).toEqual(renamed);
    });

    it('marks a wallet deleted only if it is still expired at that moment, moving its version on', async () => {
      const vault = await newVault();
      const expired = aWallet(vault, { expires: ms(-1) });
      const atInstant = aWallet(vault, { expires: NOW });
      const later = aWallet(vault, { expires: ms(1) });
      const active = aWallet(vault);
      for (const w of [expired, atInstant, later, active]) await f.repo.insertWallet(w);
      expect(await f.repo.markDeleted(expired.id, NOW)).toBe(true);
      expect(await f.repo.markDeleted(atInstant.id, NOW)).toBe(true);
      expect(await f.repo.markDeleted(later.id, NOW)).toBe(false);
      expect(await f.repo.markDeleted(active.id, NOW)).toBe(false);
      expect(await f.repo.markDeleted('no-such-wallet', NOW)).toBe(false);
      expect(await f.repo.findRecord(expired.id)).toEqual({ ...expired, version: expired.version + 1 });
      expect(await f.repo.findRecord(later.id)).toEqual(later);
      expect(await f.repo.findRecord(active.id)).toEqual(active);
    });

    it('an unexpire written after the purge read the wallet wins: the mark finds it no longer expired', async () => {
      const vault = await newVault();
      const w = aWallet(vault, { expires: NOW });
      await f.repo.insertWallet(w);
      expect((await f.repo.findExpired(NOW, 1000)).map((x) => x.id)).toContain(w.id);
      const unexpired = { ...w, expires: null, version: w.version + 1 };
      expect(await f.repo.updateWallet(unexpired)).toBe(true);
      expect(await f.repo.markDeleted(w.id, NOW)).toBe(false);
      expect(await f.repo.findRecord(w.id)).toEqual(unexpired);
    });

    it('an unexpire read before the mark and written after it loses its compare-and-set', async () => {
      const vault = await newVault();
      const w = aWallet(vault, { expires: NOW });
      await f.repo.insertWallet(w);
      expect(await f.repo.markDeleted(w.id, NOW)).toBe(true);
      expect(await f.repo.updateWallet({ ...w, expires: null, version: w.version + 1 })).toBe(false);
      expect((await f.repo.findRecord(w.id))?.expires).toEqual(NOW);
    });

    it('lists the records of one key store by id, in batches, deleted ones included', async () => {
      const vault = await newVault();
      const store = `store-${Math.random().toString(16).slice(2)}`;
      const mine = [aWallet(vault, { keyStore: store }), aWallet(vault, { keyStore: store, expires: ms(-1) }), aWallet(vault, { keyStore: store })];
      for (const w of [...mine, aWallet(vault)]) await f.repo.insertWallet(w);
      const ids = mine.map((w) => w.id).sort();
      const first = await f.repo.listByKeyStore(store, null, 2);
      expect(first.map((w) => w.id)).toEqual(ids.slice(0, 2));
      expect((await f.repo.listByKeyStore(store, first[1]!.id, 2)).map((w) => w.id)).toEqual(ids.slice(2));
      expect(await f.repo.findRecord(mine[1]!.id)).toEqual(mine[1]);
      await f.repo.removeWallet(mine[1]!.id);
      expect(await f.repo.findRecord(mine[1]!.id)).toBeNull();
    });

    it("keeps a wallet's binding; an update writes it; listUnbound pages the records without one, by vault or in all", async () => {
      const [vault, other] = [await newVault(), await newVault()];
      const bound = aWallet(vault, { binding: `0x${'ab'.repeat(65)}` });
      const unbound = aWallet(vault);
      const expiredUnbound = aWallet(vault, { expires: ms(-1) });
      const elsewhere = aWallet(other);
      for (const w of [bound, unbound, expiredUnbound, elsewhere]) await f.repo.insertWallet(w);
      expect(await f.repo.findRecord(bound.id)).toEqual(bound);
      expect(await f.repo.findWallet(vault.id, bound.address, NOW)).toEqual(bound);
      const ids = [unbound.id, expiredUnbound.id].sort();
      expect((await f.repo.listUnbound({ vaultId: vault.id, afterId: null, limit: 10 })).map((w) => w.id)).toEqual(ids);
      expect((await f.repo.listUnbound({ vaultId: vault.id, afterId: ids[0]!, limit: 1 })).map((w) => w.id)).toEqual([ids[1]]);
      const everywhere = (await f.repo.listUnbound({ afterId: null, limit: 100_000 })).map((w) => w.id);
      expect(everywhere).toEqual(expect.arrayContaining([...ids, elsewhere.id]));
      expect(everywhere).not.toContain(bound.id);
      const binding = `0x${'cd'.repeat(65)}`;
      expect(await f.repo.updateWallet({ ...unbound, binding, version: 2 })).toBe(true);
      expect(await f.repo.findRecord(unbound.id)).toEqual({ ...unbound, binding, version: 2 });
      expect((await f.repo.listUnbound({ vaultId: vault.id, afterId: null, limit: 10 })).map((w) => w.id)).toEqual([expiredUnbound.id]);
      // Once finished, nothing waits for the upgrade (a store created at this schema never waited; one
      // upgraded from a release before bindings, as the shipped-schema suites run this, waits until then).
      await f.repo.finishBindingUpgrade();
      expect(await f.repo.bindingUpgradePending()).toBe(false);
    });

    it('refuses a second wallet with the same address', async () => {
      const vault = await newVault();
      const address = randomAddress();
      await f.repo.insertWallet(aWallet(vault, { address }));
      await expect(f.repo.insertWallet(aWallet(vault, { address }))).rejects.toThrow();
    });

    it('finds a record by address in any vault, deleted or not, until it is removed', async () => {
      const [one, other] = [await newVault(), await newVault()];
      const live = aWallet(one);
      const expired = aWallet(other, { expires: ms(-1) });
      for (const w of [live, expired]) await f.repo.insertWallet(w);
      expect(await f.repo.findWalletByAddress(live.address)).toEqual(live);
      expect(await f.repo.findWalletByAddress(expired.address)).toEqual(expired);
      expect(await f.repo.findWalletByAddress(randomAddress())).toBeNull();
      await f.repo.removeWallet(expired.id);
      expect(await f.repo.findWalletByAddress(expired.address)).toBeNull();
    });

    it('removes records idempotently and knows which key references are in use', async () => {
      const vault = await newVault();
      const w = aWallet(vault);
      await f.repo.insertWallet(w);
      expect(await f.repo.keyRefInUse('local', w.keyRef)).toBe(true);
      expect(await f.repo.keyRefInUse('aws-kms', w.keyRef)).toBe(false);
      await f.repo.removeWallet(w.id);
      await f.repo.removeWallet(w.id);
      expect(await f.repo.keyRefInUse('local', w.keyRef)).toBe(false);
      expect(await f.repo.countWallets(vault.id, NOW)).toBe(0);
      await expect(f.repo.ping()).resolves.toBeUndefined();
    });

    describe('a change with its audit record (the webhooks\' outbox)', () => {
      const trail = async (vaultId: string) => (await f.auditLog.list({ afterSeq: 0, limit: 10_000, vaultId })).map((r) => [r.action, r.subject, r.details]);
      /** An event the audit log refuses (assertAuditEvent: an invalid date): its append fails. */
      const refused = (vaultId: string) => anAuditEvent({ action: 'wallet.expired', vaultId, at: new Date(Number.NaN) });

      it('writes an update and its record together, once; a lost compare-and-set records nothing', async () => {
        const vault = await newVault();
        const w = aWallet(vault);
        await f.repo.insertWallet(w);
        const expired = { ...w, expires: ms(30), updated: ms(1), version: 2 };
        const recorded = anAuditEvent({ action: 'wallet.expired', vaultId: vault.id, subject: w.address, details: { walletId: w.id } });
        expect(await f.repo.updateWallet(expired, recorded)).toBe(true);
        expect(await f.repo.updateWallet(expired, { ...recorded, actor: 'api-key:stale' })).toBe(false);
        expect(await f.repo.findRecord(w.id)).toEqual(expired);
        expect(await trail(vault.id)).toEqual([['wallet.expired', w.address, { walletId: w.id }]]);
        expect((await new VerifyAuditChain(f.auditLog).execute()).ok).toBe(true);
      });

      it('an update whose record cannot be written is not written either', async () => {
        const vault = await newVault();
        const w = aWallet(vault);
        await f.repo.insertWallet(w);
        await expect(f.repo.updateWallet({ ...w, expires: ms(30), version: 2 }, refused(vault.id))).rejects.toThrow();
        expect(await f.repo.findRecord(w.id)).toEqual(w);
        expect(await trail(vault.id)).toEqual([]);
        // The failed write held nothing: the same change goes through with a good record.
        const recorded = anAuditEvent({ action: 'wallet.expired', vaultId: vault.id, subject: w.address });
        expect(await f.repo.updateWallet({ ...w, expires: ms(30), version: 2 }, recorded)).toBe(true);
        expect(await trail(vault.id)).toEqual([['wallet.expired', w.address, {}]]);
      });

      it('removes a record with its record together, once; removing it again records nothing', async () => {
        const vault = await newVault();
        const w = aWallet(vault, { expires: ms(-1) });
        await f.repo.insertWallet(w);
        const deleted = anAuditEvent({ action: 'wallet.deleted', vaultId: vault.id, subject: w.address, details: { walletId: w.id } });
        await f.repo.removeWallet(w.id, deleted);
        await f.repo.removeWallet(w.id, { ...deleted, actor: 'operator' });
        expect(await f.repo.findRecord(w.id)).toBeNull();
        expect(await trail(vault.id)).toEqual([['wallet.deleted', w.address, { walletId: w.id }]]);
        expect((await f.auditLog.list({ afterSeq: 0, limit: 10_000, vaultId: vault.id })).map((r) => r.actor)).toEqual(['system']);
      });

      it('a removal whose record cannot be written keeps the wallet record', async () => {
        const vault = await newVault();
        const w = aWallet(vault, { expires: ms(-1) });
        await f.repo.insertWallet(w);
        await expect(f.repo.removeWallet(w.id, { ...refused(vault.id), action: 'wallet.deleted' })).rejects.toThrow();
        expect(await f.repo.findRecord(w.id)).toEqual(w);
        expect(await f.repo.keyRefInUse(w.keyStore, w.keyRef)).toBe(true);
        expect(await trail(vault.id)).toEqual([]);
      });
    });

    describe('idempotency records', () => {
      it('refuses a second insert under the same key: conflict, nothing written, the first record intact', async () => {
        const vault = await newVault();
        const first = aWallet(vault);
        const record = anIdempotencyRecord(vault, { created: NOW });
        await f.repo.insertWallet(first, record);
        expect(await f.repo.findIdempotency(vault.id, record.key, NOW)).toEqual(record);

        const second = aWallet(vault);
        const retry = anIdempotencyRecord(vault, { key: record.key, created: ms(1) });
        await expect(f.repo.insertWallet(second, retry)).rejects.toMatchObject({ code: ErrorCode.IDEMPOTENCY_CONFLICT });
        // The same body (same request hash) conflicts too: the caller decides by re-reading.
        await expect(f.repo.insertWallet(second, { ...retry, requestHash: record.requestHash })).rejects.toMatchObject({
          code: ErrorCode.IDEMPOTENCY_CONFLICT,
        });
        expect(await f.repo.findRecord(second.id)).toBeNull();
        expect(await f.repo.countWallets(vault.id, NOW)).toBe(1);
        expect(await f.repo.findIdempotency(vault.id, record.key, ms(2))).toEqual(record);
      });

      it('writes neither the wallet nor the record when the wallet is refused', async () => {
        const vault = await newVault();
        const address = randomAddress();
        await f.repo.insertWallet(aWallet(vault, { address }));
        const record = anIdempotencyRecord(vault, { created: NOW });
        await expect(f.repo.insertWallet(aWallet(vault, { address }), record)).rejects.toThrow();
        expect(await f.repo.findIdempotency(vault.id, record.key, NOW)).toBeNull();
        // The key is still free.
        await f.repo.insertWallet(aWallet(vault), record);
        expect(await f.repo.findIdempotency(vault.id, record.key, NOW)).toEqual(record);
      });

      it('replaces a record that has expired at the new one\'s creation, and only then', async () => {
        const vault = await newVault();
        const old = anIdempotencyRecord(vault, { created: ms(-10_000), expires: NOW });
        await f.repo.insertWallet(aWallet(vault), old);
        const early = anIdempotencyRecord(vault, { key: old.key, created: ms(-1) });
        const wallet = aWallet(vault);
        await expect(f.repo.insertWallet(wallet, early)).rejects.toMatchObject({ code: ErrorCode.IDEMPOTENCY_CONFLICT });
        const fresh = anIdempotencyRecord(vault, { key: old.key, created: NOW });
        await f.repo.insertWallet(wallet, fresh);
        expect(await f.repo.findIdempotency(vault.id, old.key, NOW)).toEqual(fresh);
        expect(await f.repo.findRecord(wallet.id)).toEqual(wallet);
      });

      it('keeps the same key in another vault independent', async () => {
        const a = await newVault();
        const b = await newVault();
        const inA = anIdempotencyRecord(a, { key: 'same-key', created: NOW });
        const inB = anIdempotencyRecord(b, { key: 'same-key', created: NOW });
        await f.repo.insertWallet(aWallet(a), inA);
        await f.repo.insertWallet(aWallet(b), inB);
        expect(await f.repo.findIdempotency(a.id, 'same-key', NOW)).toEqual(inA);
        expect(await f.repo.findIdempotency(b.id, 'same-key', NOW)).toEqual(inB);
        expect(await f.repo.findIdempotency(a.id, 'other-key', NOW)).toBeNull();
      });

      it('hides a record from the instant of its expiry, not a millisecond before', async () => {
        const vault = await newVault();
        const record = anIdempotencyRecord(vault, { created: ms(-1000), expires: NOW });
        await f.repo.insertWallet(aWallet(vault), record);
        expect(await f.repo.findIdempotency(vault.id, record.key, ms(-1))).toEqual(record);
        expect(await f.repo.findIdempotency(vault.id, record.key, NOW)).toBeNull();
      });

      it('deletes only expired records, oldest expiry first, at most `limit`', async () => {
        // Long before every other test's records, so the counts are this test's alone.
        const T = new Date('2001-01-01T00:00:00Z').getTime();
        const at = (n: number) => new Date(T + n);
        const vault = await newVault();
        const records = [3, 1, 2, 50].map((n) => anIdempotencyRecord(vault, { created: at(0), expires: at(n) }));
        for (const r of records) await f.repo.insertWallet(aWallet(vault), r);
        const present = async () =>
          (await Promise.all(records.map((r) => f.repo.findIdempotency(vault.id, r.key, at(0))))).map((r) => r !== null);

        expect(await f.repo.deleteExpiredIdempotency(at(0), 100)).toBe(0);
        expect(await f.repo.deleteExpiredIdempotency(at(3), 2)).toBe(2);
        expect(await present()).toEqual([true, false, false, true]);
        expect(await f.repo.deleteExpiredIdempotency(at(3), 2)).toBe(1);
        expect(await f.repo.deleteExpiredIdempotency(at(3), 2)).toBe(0);
        expect(await present()).toEqual([false, false, false, true]);
        expect(await f.repo.findIdempotency(vault.id, records[3]!.key, at(49))).toEqual(records[3]);
      });
    });

    it('records signatures per vault and attaches a transaction once', async () => {
      const vault = await newVault();
      const record: SignatureRecord = {
        submissionHash: `0x${'1'.repeat(64)}`,
        vaultId: vault.id,
        walletId: 'w',
        walletAddress: randomAddress(),
        chain: 'local',
        contract: randomAddress(),
        sender: randomAddress(),
        selector: '0x12345678',
        created: NOW,
        transactionHash: null,
        submitted: null,
      };
      await f.signatureLog.record(record);
      expect(await f.signatureLog.find(vault.id, record.submissionHash)).toEqual(record);
      expect(await f.signatureLog.find('other-vault', record.submissionHash)).toBeNull();
      const tx = `0x${'2'.repeat(64)}`;
      expect(await f.signatureLog.attachTransaction(vault.id, record.submissionHash, tx, ms(1))).toBe('attached');
      expect(await f.signatureLog.attachTransaction(vault.id, record.submissionHash, tx, ms(2))).toBe('unchanged');
      expect(await f.signatureLog.attachTransaction(vault.id, record.submissionHash, `0x${'3'.repeat(64)}`, ms(3))).toBe('conflict');
      expect(await f.signatureLog.attachTransaction('other-vault', record.submissionHash, tx, ms(3))).toBe('missing');
      expect(await f.signatureLog.find(vault.id, record.submissionHash)).toMatchObject({ transactionHash: tx, submitted: ms(1) });
    });

    it('records concurrent signatures together: each durable when answered, a duplicate fails alone', async () => {
      const vault = await newVault();
      const base = 0x5000;
      const records = Array.from({ length: 40 }, (_, i) => aSignatureRecord(base + i, { vaultId: vault.id }));
      const results = await Promise.allSettled([...records.map((r) => f.signatureLog.record(r)), f.signatureLog.record(records[7]!)]);
      expect(results.slice(0, 40).every((r) => r.status === 'fulfilled')).toBe(true);
      expect(results[40]!.status).toBe('rejected');
      for (const r of records) expect(await f.signatureLog.find(vault.id, r.submissionHash)).toEqual(r);
    });

    it('chains a signature and its signature.issued record together: both stored, or neither', async () => {
      const vault = await newVault();
      const records = Array.from({ length: 10 }, (_, i) => aSignatureRecord(0x6000 + i, { vaultId: vault.id }));
      const issued = (r: SignatureRecord) =>
        anAuditEvent({ action: 'signature.issued', vaultId: vault.id, subject: r.submissionHash, actor: 'api-key:contract' });
      const results = await Promise.allSettled([
        ...records.map((r) => f.signatureLog.record(r, issued(r))),
        // A duplicate: its signature record fails, so its audit record must not be written either.
        f.signatureLog.record(records[3]!, { ...issued(records[3]!), actor: 'api-key:duplicate' }),
      ]);
      expect(results.map((r) => r.status)).toEqual([...records.map(() => 'fulfilled'), 'rejected']);
      const trail = await f.auditLog.list({ afterSeq: 0, limit: 10_000, vaultId: vault.id });
      const signed = trail.filter((r) => r.action === 'signature.issued');
      expect(signed.map((r) => r.subject).sort()).toEqual(records.map((r) => r.submissionHash).sort());
      expect(signed.some((r) => r.actor === 'api-key:duplicate')).toBe(false);
      expect((await new VerifyAuditChain(f.auditLog).execute()).ok).toBe(true);
    });
  });
}
