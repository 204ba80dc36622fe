import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { entropyToMnemonic, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';

/**
 * A vault's HD seed (BIP-39) and the keys derived from it (BIP-32/BIP-44), by the audited `@scure/bip39`
 * and `@scure/bip32`: nothing of the derivation is written here. The seed is kept as its BIP-39 entropy
 * (32 bytes, a 24-word mnemonic, no passphrase), so one backup of it (the mnemonic) restores every
 * wallet derived from it, in any BIP-44 wallet, at the paths the wallets record.
 */
export const HD_SEED_BYTES = 32;
/** Ethereum's BIP-44 account 0, external chain: wallet i is `m/44'/60'/0'/0/i`. */
export const HD_PATH_PREFIX = "m/44'/60'/0'/0";
/** BIP-32 non-hardened indexes: 0 to 2^31 - 1. */
export const HD_INDEX_MAX = 2 ** 31 - 1;

export function newHdSeed(): Buffer {
  return randomBytes(HD_SEED_BYTES);
}

export function hdPath(index: number): string {
  if (!Number.isInteger(index) || index < 0 || index > HD_INDEX_MAX) throw new RangeError(`HD index must be an integer from 0 to ${HD_INDEX_MAX}`);
  return `${HD_PATH_PREFIX}/${index}`;
}

/** The private key (32 bytes, the caller zeroes it) at `path` of the seed whose BIP-39 entropy is `entropy`. */
export function deriveHdKey(entropy: Uint8Array, path: string): Buffer {
  const seed = mnemonicToSeedSync(entropyToMnemonic(entropy, wordlist));
  const root = HDKey.fromMasterSeed(seed);
  seed.fill(0);
  const node = root.derive(path);
  const key = Buffer.from(node.privateKey!);
  node.wipePrivateData();
  root.wipePrivateData();
  return key;
}
