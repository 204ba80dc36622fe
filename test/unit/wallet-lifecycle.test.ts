import { describe, expect, it } from 'vitest';
import {
  EXPIRY_TTL_MS,
  expireWallet,
  normalizeWalletName,
  renameWallet,
  unexpireWallet,
  walletState,
  type Wallet,
} from '../../src/domain/wallet.js';
import { DomainError } from '../../src/domain/errors.js';

const T0 = new Date('2026-01-31T10:00:00.000Z');
const wallet: Wallet = {
  id: 'w1',
  accountId: 'a',
  vaultId: 'v',
  name: 'alice',
  address: '0x0000000000000000000000000000000000000001',
  keyStore: 'local',
  keyRef: 'ref',
  binding: null,
  derivationPath: null, exported: null,
  created: T0,
  updated: T0,
  expires: null,
  version: 1,
};
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('wallet lifecycle', () => {
  it('expires exactly 30 calendar days (UTC) after the expire call', () => {
    const expired = expireWallet(wallet, T0);
    expect(expired.expires?.toISOString()).toBe('2026-03-02T10:00:00.000Z');
    expect(EXPIRY_TTL_MS).toBe(2_592_000_000);
    expect(expired.updated).toEqual(T0);
  });

  it('is expiring one millisecond before the expiry instant and deleted at it', () => {
    const expired = expireWallet(wallet, T0);
    expect(walletState(expired, at(EXPIRY_TTL_MS - 1))).toBe('expiring');
    expect(walletState(expired, at(EXPIRY_TTL_MS))).toBe('deleted');
    expect(walletState(wallet, at(10 * EXPIRY_TTL_MS))).toBe('active');
  });

  it('keeps the original expiry (and updated) when expired twice', () => {
    const first = expireWallet(wallet, T0);
    const second = expireWallet(first, at(86_400_000));
    expect(second).toBe(first);
  });

  it('unexpire clears the expiry and touches updated; on an active wallet it is a no-op', () => {
    const expiring = expireWallet(wallet, T0);
    const back = unexpireWallet(expiring, at(1000));
    expect(back.expires).toBeNull();
    expect(back.updated).toEqual(at(1000));
    expect(unexpireWallet(wallet, at(5))).toBe(wallet);
  });

  it('rename changes only the name and updated; the same name is a no-op', () => {
    const renamed = renameWallet(wallet, 'bob', at(7));
    expect(renamed).toMatchObject({ name: 'bob', updated: at(7), created: T0, address: wallet.address });
    expect(renameWallet(wallet, 'alice', at(7))).toBe(wallet);
  });

  it('names are trimmed and must be 1 to 200 characters of text', () => {
    expect(normalizeWalletName('  treasury  ')).toBe('treasury');
    expect(normalizeWalletName('x'.repeat(200))).toHaveLength(200);
    expect(() => normalizeWalletName('x'.repeat(201))).toThrow(/name: must be at most 200 characters/);
    expect(() => normalizeWalletName('   ')).toThrow(/name: must not be empty/);
    expect(() => normalizeWalletName(42)).toThrow(DomainError);
    expect(() => normalizeWalletName(undefined)).toThrow(/name: must be a string/);
  });
});
