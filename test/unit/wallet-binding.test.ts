import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Signature, Wallet as EthersWallet, hexlify } from 'ethers';
import { concat, keccak256, stringToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { readingPayloads } from '../support/read-payloads.js';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import { WalletBindings } from '../../src/application/wallets/wallet-binding.js';
import { addressFromPublicKey } from '../../src/domain/address.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { walletBindingDigest } from '../../src/domain/wallet-binding.js';
import type { Wallet } from '../../src/domain/wallet.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { InMemoryAuditLog } from '../support/in-memory.persistence.js';
import { FixedClock } from '../support/movable-clock.js';
import { aVault, aWallet } from '../support/wallet-mother.js';

const payloads = readingPayloads();
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const N = 2n * HALF_ORDER + 1n;

/** A store, the bindings over it (recovery counted), and a wallet row made of a key of the store, unbound. */
async function world() {
  const store = new InMemoryKeyStore('local');
  const other = new InMemoryKeyStore('other');
  const auditLog = new InMemoryAuditLog();
  let recoveries = 0;
  const recovery = { recoverDigestSigner: (d: Uint8Array, s: string) => (recoveries++, payloads.recoverDigestSigner(d, s)) };
  const bindings = new WalletBindings({ keyStores: new MapKeyStoreRegistry([store, other], 'local'), recovery, auditLog, clock: new FixedClock(new Date('2026-05-01T00:00:00Z')) });
  const rowOf = async (s = store): Promise<Wallet> => {
    const key = await s.create();
    return aWallet(aVault(), { address: addressFromPublicKey(key.publicKey), keyStore: s.name, keyRef: key.keyRef });
  };
  const bound = async (s = store): Promise<Wallet> => {
    const row = await rowOf(s);
    return { ...row, binding: await bindings.bind(row) };
  };
  const digest = new Uint8Array(32).fill(7);
  const codeOf = (p: Promise<unknown>) => p.then(() => 'signed', (e: { code?: string }) => e.code);
  return { store, other, auditLog, bindings, rowOf, bound, digest, codeOf, recoveries: () => recoveries };
}

describe("a wallet's binding digest", () => {
  it('is keccak256(0x19 0x57 "wallet-vault wallet binding" keccak(vault) keccak(store) keccak(ref) address), computed here with viem', () => {
    const w = { vaultId: '0190a1b2-0000-7000-8000-000000000001', address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', keyStore: 'local', keyRef: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' };
    const expected = keccak256(
      concat([
        '0x1957',
        stringToHex('wallet-vault wallet binding'),
        keccak256(stringToHex(w.vaultId)),
        keccak256(stringToHex(w.keyStore)),
        keccak256(stringToHex(w.keyRef)),
        w.address as `0x${string}`,
      ]),
    );
    expect(hexlify(walletBindingDigest(w))).toBe(expected);
  });

  it('changes with each field it covers, and is none of the digests the signing routes make of the same bytes', () => {
    const w = { vaultId: 'v', address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', keyStore: 'local', keyRef: 'r' };
    const base = hexlify(walletBindingDigest(w));
    for (const changed of [{ vaultId: 'v2' }, { address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' }, { keyStore: 'aws-kms' }, { keyRef: 'r2' }]) {
      expect(hexlify(walletBindingDigest({ ...w, ...changed }))).not.toBe(base);
    }
    // Fixed widths: moving text from one field to the next is another digest.
    expect(hexlify(walletBindingDigest({ ...w, vaultId: 'vl', keyStore: 'ocal' }))).not.toBe(hexlify(walletBindingDigest({ ...w, vaultId: 'v', keyStore: 'local' })));
    // A personal message of any text is framed with 0x19 0x45: never this digest, whatever the text.
    expect(hexlify(payloads.messageDigest({ raw: base }))).not.toBe(base);
  });
});

describe('recoverDigestSigner (libsecp256k1)', () => {
  it('recovers what ethers recovers, with v 27/28 or 0/1; refuses the high-S twin, a bad v and malformed input', () => {
    const signer = EthersWallet.createRandom();
    const digest = new Uint8Array(32).fill(9);
    const sig = Signature.from(signer.signingKey.sign(digest));
    expect(payloads.recoverDigestSigner(digest, sig.serialized)).toBe(signer.address);
    const zeroOne = `${sig.serialized.slice(0, 130)}${(sig.v - 27).toString(16).padStart(2, '0')}`;
    expect(payloads.recoverDigestSigner(digest, zeroOne)).toBe(signer.address);
    const twinS = (N - BigInt(sig.s)).toString(16).padStart(64, '0');
    const twin = `${sig.r}${twinS}${(sig.v === 27 ? 28 : 27).toString(16)}`;
    expect(payloads.recoverDigestSigner(digest, twin)).toBeNull();
    expect(payloads.recoverDigestSigner(digest, `${sig.serialized.slice(0, 130)}1d`)).toBeNull();
    expect(payloads.recoverDigestSigner(digest, '0x1234')).toBeNull();
    expect(payloads.recoverDigestSigner(new Uint8Array(31), sig.serialized)).toBeNull();
    expect(payloads.recoverDigestSigner(digest, `0x${'00'.repeat(64)}1b`)).toBeNull();
  });
});

describe('WalletBindings', () => {
  it('a bound row signs, its check paid once: later signs of the same row recover nothing', async () => {
    const t = await world();
    const w = await t.bound();
    const before = t.recoveries();
    for (let i = 0; i < 3; i++) await t.bindings.sign(w, t.digest);
    expect(t.recoveries() - before).toBe(1);
    expect(t.bindings.problemOf(w)).toBeNull();
  });

  it('a row changed in any field its binding covers signs nothing: WALLET_BINDING_INVALID, recorded once per row state', async () => {
    const t = await world();
    const w = await t.bound();
    const someoneElse = await t.bound();
    const changed: Wallet[] = [
      { ...w, vaultId: 'another-vault' },
      { ...w, keyRef: someoneElse.keyRef },
      { ...someoneElse, binding: w.binding },
      { ...w, keyStore: 'other' },
      { ...w, binding: someoneElse.binding },
      { ...w, address: 'not an address' },
    ];
    for (const row of changed) expect(await t.codeOf(t.bindings.sign(row, t.digest))).toBe(ErrorCode.WALLET_BINDING_INVALID);
    expect(await t.codeOf(t.bindings.sign(changed[0]!, t.digest))).toBe(ErrorCode.WALLET_BINDING_INVALID);
    const records = t.auditLog.records.filter((r) => r.action === 'wallet.binding-invalid');
    expect(records).toHaveLength(changed.length);
    expect(records[0]).toMatchObject({ actor: 'system', vaultId: 'another-vault', subject: w.address, details: { walletId: w.id, keyStore: 'local', problem: 'mismatch' } });
    // The row as it was still signs.
    expect(await t.codeOf(t.bindings.sign(w, t.digest))).toBe('signed');
  });

  it('an unbound row signs nothing, naming the problem; bind refuses a row whose key reference names another key', async () => {
    const t = await world();
    const row = await t.rowOf();
    await expect(t.bindings.sign(row, t.digest)).rejects.toMatchObject({
      code: ErrorCode.WALLET_BINDING_INVALID,
      message: expect.stringMatching(/^wallet 0x[0-9a-fA-F]{40}: its row carries no binding of its key to vault \S+ .*points to a change made in the database; nothing was signed/),
    });
    expect(t.auditLog.records.at(-1)).toMatchObject({ action: 'wallet.binding-invalid', details: { problem: 'unbound' } });
    const elsewhere = await t.rowOf();
    await expect(t.bindings.bind({ ...row, keyRef: elsewhere.keyRef })).rejects.toMatchObject({
      code: ErrorCode.WALLET_BINDING_INVALID,
      message: `wallet ${row.address}: the key its row names (key store local) is not the key of ${row.address}; nothing was bound`,
    });
  });
});

describe('the one way to a wallet key', () => {
  it('no file of src/ but wallet-binding.ts asks a key store to sign with a wallet key reference', () => {
    const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const signing = files.filter((f) => /\.sign\([^)]*keyRef/.test(readFileSync(path.join(src, f), 'utf8')));
    expect(signing).toEqual([path.join('application', 'wallets', 'wallet-binding.ts')]);
  });
});
