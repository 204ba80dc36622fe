import { keccak256 } from './keccak.js';
import type { Wallet } from './wallet.js';

/** What a wallet's binding covers: every column of its row that decides which key signs, and for whom. */
export type BoundFields = Pick<Wallet, 'vaultId' | 'address' | 'keyStore' | 'keyRef'>;

/**
 * 0x19 then a version byte, as EIP-191 frames signed data, with a version of our own: EIP-191 assigns 0x00
 * (data with an intended validator), 0x01 (EIP-712 typed data) and 0x45 (`E`, personal messages); 0x57
 * (`W`) is none of them.
 */
const PREFIX = Uint8Array.of(0x19, 0x57);
const TAG = new TextEncoder().encode('wallet-vault wallet binding');
const encoder = new TextEncoder();

/**
 * The digest a wallet's own key signs when the wallet is made (created, imported, restored, bound by the
 * upgrade or an operator): keccak256(0x19 ‖ 0x57 ‖ "wallet-vault wallet binding" ‖ keccak256(vault id) ‖
 * keccak256(key store) ‖ keccak256(key reference) ‖ address (20 bytes)). The text fields are hashed to
 * fixed widths, so the encoding is injective: no two rows share a digest.
 *
 * No signing route of the vault can be made to sign this digest for a row it was not made for, because every
 * route signs keccak256 of a preimage it builds itself, and none of those preimages can equal this one
 * (equal digests of different preimages would be a keccak256 collision):
 * - Sign: abi.encode(uniq, nonce, sender, message), whose second word (bytes 32 to 63) is a nonce the vault
 *   draws fresh for each sign (32 random bytes). The caller chooses the uniq (the first word) on chains without
 *   an RPC, but not the nonce: matching this preimage's bytes 32 to 63 is a 2^-256 chance per sign.
 * - sign-message, eth_sign, personal_sign: EIP-191 version 0x45 ("\x19Ethereum Signed Message:\n" ‖ ...).
 * - sign-typed-data, eth_signTypedData_v4: EIP-191 version 0x01 (0x1901 ‖ domain separator ‖ struct hash).
 * - Transactions (sign-transaction, eth_signTransaction, eth_sendTransaction): a legacy RLP list (first byte
 *   0xc0 or above) or an EIP-2718 typed one (first byte its type, 0x01, 0x02 or 0x04).
 * - EIP-7702 authorizations: 0x05 ‖ rlp([chainId, address, nonce]).
 * No route signs a digest a caller hands in as it is. A new signing kind must keep this true: its preimage
 * must never start with 0x19 0x57.
 */
export function walletBindingDigest(wallet: BoundFields): Uint8Array {
  const address = Buffer.from(wallet.address.slice(2), 'hex');
  if (address.length !== 20) throw new Error('walletBindingDigest: the address must be 0x and 40 hex digits');
  const text = (value: string) => keccak256(encoder.encode(value));
  return keccak256(Buffer.concat([PREFIX, TAG, text(wallet.vaultId), text(wallet.keyStore), text(wallet.keyRef), address]));
}

/**
 * The exact row a binding was checked against, as one string (JSON of the fields: injective whatever they
 * hold): what a verified binding is remembered by.
 */
export function boundRowKey(wallet: BoundFields & Pick<Wallet, 'binding'>): string {
  return JSON.stringify([wallet.vaultId, wallet.address, wallet.keyStore, wallet.keyRef, wallet.binding]);
}
