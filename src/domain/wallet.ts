import { invalidArgument } from './errors.js';
import { codePoints, controlCharacterIn, hasLoneSurrogate } from './unicode.js';

/** 30 calendar days in UTC: UTC has no daylight-saving shifts, so a calendar day is always 86 400 s. */
export const EXPIRY_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const WALLET_NAME_MAX = 200;

export interface Wallet {
  readonly id: string;
  readonly accountId: string;
  readonly vaultId: string;
  readonly name: string;
  /** EIP-55 checksummed. */
  readonly address: string;
  /** Name of the key store that holds the private key (`local`, `pkcs11`, ...). */
  readonly keyStore: string;
  /** The key store's own reference to the key; opaque to the core. */
  readonly keyRef: string;
  /**
   * The wallet's own key's signature (65 bytes, 0x hex) over its binding digest (wallet-binding.ts): the
   * vault, address, key store and key reference the key was given to. Checked before every signature, so a
   * row a database writer moves to another vault, or points at another key, signs nothing. Null: not
   * bound (a wallet of a release before bindings, until the upgrade or an operator binds it), signs nothing.
   */
  readonly binding: string | null;
  /**
   * For a wallet derived from its vault's HD seed, the BIP-32 path it was derived at (`m/44'/60'/0'/0/i`):
   * the seed and this path restore its key. Null for a generated or imported key.
   */
  readonly derivationPath: string | null;
  /**
   * When the wallet's key (or, for a derived wallet, its vault's HD seed) was first exported, encrypted to a
   * recipient (docs/keystores.md#key-export): set once and never cleared, since a key that left the store
   * once is known outside it for ever. Null: never exported.
   */
  readonly exported: Date | null;
  readonly created: Date;
  readonly updated: Date;
  readonly expires: Date | null;
  /** Optimistic-concurrency counter: every write expects the version it read. */
  readonly version: number;
}

export type WalletState = 'active' | 'expiring' | 'deleted';

/** From the instant of expiry the wallet is deleted for every purpose, even before its key is destroyed. */
export function walletState(wallet: Pick<Wallet, 'expires'>, now: Date): WalletState {
  if (wallet.expires === null) return 'active';
  return now.getTime() >= wallet.expires.getTime() ? 'deleted' : 'expiring';
}

/**
 * A name as given, trimmed: 1 to 200 characters, counted as Unicode code points (an emoji is one
 * character, not two UTF-16 units). Ill-formed UTF-16 (a lone surrogate, which JSON can carry) is
 * refused: it cannot be stored as UTF-8, so it would not read back as it was written. Control characters
 * are refused too: a name is shown in lists and logs, and PostgreSQL cannot store NUL in text at all (the
 * same name must be accepted or refused alike on both databases).
 */
export function normalizeWalletName(raw: unknown, field = 'name'): string {
  if (typeof raw !== 'string') throw invalidArgument(`${field}: must be a string`);
  const name = raw.trim();
  if (name.length === 0) throw invalidArgument(`${field}: must not be empty`);
  const length = codePoints(name);
  if (length > WALLET_NAME_MAX) {
    throw invalidArgument(`${field}: must be at most ${WALLET_NAME_MAX} characters (got ${length})`);
  }
  if (hasLoneSurrogate(name)) throw invalidArgument(`${field}: must be well-formed Unicode text (it contains a lone surrogate)`);
  const control = controlCharacterIn(name);
  if (control !== null) throw invalidArgument(`${field}: must not contain control characters (it contains ${control})`);
  return name;
}

export function renameWallet(wallet: Wallet, name: string, now: Date): Wallet {
  if (name === wallet.name) return wallet;
  return { ...wallet, name, updated: now };
}

/** Idempotent: an expiring wallet keeps its original expiry date. */
export function expireWallet(wallet: Wallet, now: Date): Wallet {
  if (wallet.expires !== null) return wallet;
  return { ...wallet, expires: new Date(now.getTime() + EXPIRY_TTL_MS), updated: now };
}

/** A no-op on an active wallet. */
export function unexpireWallet(wallet: Wallet, now: Date): Wallet {
  if (wallet.expires === null) return wallet;
  return { ...wallet, expires: null, updated: now };
}
