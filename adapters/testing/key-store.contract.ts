import { randomBytes } from 'node:crypto';
import { SigningKey, Wallet, recoverAddress, computeAddress, hexlify } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WalletBindings } from '../../src/application/wallets/wallet-binding.js';
import { ErrorCode } from '../../src/domain/errors.js';
import type { Wallet as WalletRow } from '../../src/domain/wallet.js';
import type { KeyStore } from '../../src/ports/key-store.port.js';
import { FixedClock } from './clocks.js';
import { InMemoryAuditLog } from './in-memory.persistence.js';

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const CODES = new Set<string>(Object.values(ErrorCode));

/**
 * A DomainError with one of the stable codes, told by its shape rather than `instanceof`: a store built
 * from the package's source and this suite loaded from its built entry hold two copies of the class.
 */
const aDomainError = () =>
  expect.objectContaining({ name: 'DomainError', code: expect.toSatisfy((code: unknown) => typeof code === 'string' && CODES.has(code)) });

export interface KeyStoreFixture {
  readonly store: KeyStore;
  cleanup(): Promise<void>;
}

export interface KeyStoreTraits {
  /**
   * Whether destroy() alone makes the key unusable. False for stores whose key reference *is* the
   * wrapped key (vault-transit): there the key goes with the wallet record that holds the reference.
   */
  readonly destroyRevokesKeyRef: boolean;
}

/**
 * What every key store must do, checked with ethers as an independent reference. Each backend's test
 * file calls this with a factory for a fresh store; so can the author of a KeyStore of their own
 * (`import { describeKeyStoreContract } from 'wallet-vault/testing'`, run by vitest).
 */
export function describeKeyStoreContract(
  name: string,
  make: () => Promise<KeyStoreFixture>,
  traits: KeyStoreTraits = { destroyRevokesKeyRef: true },
): void {
  describe(`KeyStore contract: ${name}`, () => {
    let fixture: KeyStoreFixture;
    beforeAll(async () => {
      fixture = await make();
    });
    afterAll(async () => {
      await fixture?.store.close();
      await fixture?.cleanup();
    });

    it('creates distinct keys with 65-byte uncompressed public keys', async () => {
      const a = await fixture.store.create();
      const b = await fixture.store.create();
      for (const k of [a, b]) {
        expect(k.publicKey).toHaveLength(65);
        expect(k.publicKey[0]).toBe(0x04);
      }
      expect(a.keyRef).not.toBe(b.keyRef);
      expect(hexlify(a.publicKey)).not.toBe(hexlify(b.publicKey));
    });

    it('signs digests with recoverable, low-s signatures of the created key', async () => {
      const key = await fixture.store.create();
      const address = computeAddress(hexlify(key.publicKey));
      for (let i = 0; i < 20; i++) {
        const digest = randomBytes(32);
        const sig = await fixture.store.sign(key.keyRef, digest);
        expect(sig.r).toHaveLength(32);
        expect(sig.s).toHaveLength(32);
        expect([27, 28]).toContain(sig.v);
        expect(BigInt(hexlify(sig.s)) <= HALF_N).toBe(true);
        const parts = { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v };
        expect(recoverAddress(digest, parts)).toBe(address);
        expect(SigningKey.recoverPublicKey(digest, parts)).toBe(hexlify(key.publicKey));
      }
    });

    it('refuses to sign with an unknown key reference', async () => {
      await expect(fixture.store.sign('0x' + 'ab'.repeat(20), randomBytes(32))).rejects.toEqual(aDomainError());
    });

    it(traits.destroyRevokesKeyRef ? 'destroys keys idempotently; a destroyed key no longer signs' : 'destroys keys idempotently', async () => {
      const key = await fixture.store.create();
      await fixture.store.sign(key.keyRef, randomBytes(32));
      await fixture.store.destroy(key.keyRef);
      if (traits.destroyRevokesKeyRef) {
        await expect(fixture.store.sign(key.keyRef, randomBytes(32))).rejects.toEqual(aDomainError());
      }
      await expect(fixture.store.destroy(key.keyRef)).resolves.toBeUndefined();
    });

    it('answers ping', async () => {
      await expect(fixture.store.ping()).resolves.toBeUndefined();
    });

    it('lists keys created before a date, not destroyed ones (or nothing, for stores that cannot list)', async () => {
      const listKeyRefs = fixture.store.listKeyRefs?.bind(fixture.store);
      if (!listKeyRefs) return; // no longer part of the port: a store written for this release need not have it
      const kept = await fixture.store.create();
      const gone = await fixture.store.create();
      await fixture.store.destroy(gone.keyRef);
      const refs = await listKeyRefs(new Date(Date.now() + 60_000));
      expect(refs).not.toContain(gone.keyRef);
      if (refs.length > 0) expect(refs).toContain(kept.keyRef);
      expect(await listKeyRefs(new Date(0))).toEqual([]);
    });

    it("lists for the orphan sweep only its own deployment's keys, never another's or one carrying none", async () => {
      const listKeys = fixture.store.listKeys?.bind(fixture.store);
      if (!listKeys) return; // a store that cannot list is never swept
      const [mine, theirs] = [`dep-${randomBytes(8).toString('hex')}`, `dep-${randomBytes(8).toString('hex')}`];
      const owner = (deploymentId?: string) => ({ accountId: 'acc', vaultId: 'vault-1', walletId: 'w', deploymentId });
      const own = await fixture.store.create(owner(mine));
      const other = await fixture.store.create(owner(theirs));
      const unlabelled = await fixture.store.create(owner());
      const later = new Date(Date.now() + 60_000);
      const listed = await listKeys({ deploymentId: mine, createdBefore: later });
      expect(listed).toEqual([{ keyRef: own.keyRef, address: computeAddress(hexlify(own.publicKey)).toLowerCase(), vaultId: 'vault-1' }]);
      const refs = (await listKeys({ deploymentId: theirs, createdBefore: later })).map((k) => k.keyRef);
      expect(refs).toEqual([other.keyRef]);
      expect(refs).not.toContain(unlabelled.keyRef);
      expect(await listKeys({ deploymentId: mine, createdBefore: new Date(0) })).toEqual([]);
    });

    it("binds a wallet of a created key, and of an imported one, to its vault: the key signs the wallet's binding, which the vault's check then accepts for that row only", async () => {
      const store = fixture.store;
      // The vault's check over this store alone, recovering with ethers (an independent reference).
      const recovery = { recoverDigestSigner: (digest: Uint8Array, signature: string) => recoverAddress(digest, signature) };
      const bindings = new WalletBindings({ keyStores: { default: store, get: () => store, all: () => [store] }, recovery, auditLog: new InMemoryAuditLog(), clock: new FixedClock(new Date(0)) });
      const keys = [await store.create()];
      if (store.importKey) keys.push(await store.importKey(Buffer.from(Wallet.createRandom().privateKey.slice(2), 'hex')));
      for (const key of keys) {
        const at = new Date(0);
        const unbound: WalletRow = { id: 'w', accountId: 'a', vaultId: 'vault-1', name: 'w', address: computeAddress(hexlify(key.publicKey)), keyStore: store.name, keyRef: key.keyRef, binding: null, derivationPath: null, exported: null, created: at, updated: at, expires: null, version: 1 };
        const wallet = { ...unbound, binding: await bindings.bind(unbound) };
        const digest = randomBytes(32);
        const sig = await bindings.sign(wallet, digest);
        expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v })).toBe(wallet.address);
        await expect(bindings.sign({ ...wallet, vaultId: 'vault-2' }, digest)).rejects.toMatchObject({ code: ErrorCode.WALLET_BINDING_INVALID });
        await store.destroy(key.keyRef);
      }
    });

    describe('key import (stores with importKey; a store without it is refused by the vault, naming it)', () => {
      it("keeps a key it is given: the key's own public key, and it signs as that key after the caller zeroed its buffer", async () => {
        const importKey = fixture.store.importKey?.bind(fixture.store);
        if (!importKey) return;
        const wallet = Wallet.createRandom();
        const given = Buffer.from(wallet.privateKey.slice(2), 'hex');
        const key = await importKey(given, { accountId: 'acc', vaultId: 'vault-1', walletId: 'w' });
        given.fill(0); // the caller's buffer, zeroed after use: the store holds its own copy (or none)
        expect(hexlify(key.publicKey)).toBe(wallet.signingKey.publicKey);
        for (let i = 0; i < 3; i++) {
          const digest = randomBytes(32);
          const sig = await fixture.store.sign(key.keyRef, digest);
          expect(BigInt(hexlify(sig.s)) <= HALF_N).toBe(true);
          expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v })).toBe(wallet.address);
        }
        await fixture.store.destroy(key.keyRef);
      });

      it("records the owner's deployment and vault on an imported key as on a created one (listKeys)", async () => {
        const importKey = fixture.store.importKey?.bind(fixture.store);
        const listKeys = fixture.store.listKeys?.bind(fixture.store);
        if (!importKey || !listKeys) return;
        const deploymentId = `dep-${randomBytes(8).toString('hex')}`;
        const wallet = Wallet.createRandom();
        const key = await importKey(Buffer.from(wallet.privateKey.slice(2), 'hex'), { accountId: 'acc', vaultId: 'vault-2', walletId: 'w', deploymentId });
        const listed = await listKeys({ deploymentId, createdBefore: new Date(Date.now() + 60_000) });
        expect(listed).toEqual([{ keyRef: key.keyRef, address: wallet.address.toLowerCase(), vaultId: 'vault-2' }]);
      });

      it('refuses what is not a secp256k1 private key with a DomainError', async () => {
        const importKey = fixture.store.importKey?.bind(fixture.store);
        if (!importKey) return;
        await expect(importKey(new Uint8Array(32))).rejects.toEqual(aDomainError());
        await expect(importKey(new Uint8Array(31).fill(1))).rejects.toEqual(aDomainError());
      });
    });
  });
}
