import { createECDH } from 'node:crypto';
import { addressFromPublicKey } from './address.js';
import { invalidArgument } from './errors.js';

/** The secp256k1 group order n, big-endian: a private key is an integer in [1, n - 1]. */
const ORDER = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');

/**
 * Whether `key` is a secp256k1 private key: 32 bytes, not zero, below the group order. Compared byte by
 * byte, never turned into a number or text (which would leave a copy no one can zero).
 */
export function isPrivateKey(key: Uint8Array): boolean {
  if (key.length !== 32) return false;
  let nonZero = 0;
  for (const byte of key) nonZero |= byte;
  if (nonZero === 0) return false;
  for (let i = 0; i < 32; i++) {
    if (key[i]! !== ORDER[i]!) return key[i]! < ORDER[i]!;
  }
  return false; // equal to n
}

/**
 * The 65-byte uncompressed public key of a private key (node:crypto's secp256k1: the core loads no
 * curve library). Refused, naming `field` and never the key, when it is not a secp256k1 private key.
 * OpenSSL holds a copy inside the ECDH object until it is collected; OpenSSL clears a private key
 * when it frees it.
 */
export function publicKeyOfPrivateKey(key: Uint8Array, field: string): Uint8Array {
  if (!isPrivateKey(key)) throw invalidArgument(`${field}: not a secp256k1 private key (32 bytes, 1 to n - 1)`);
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(key);
  return new Uint8Array(ecdh.getPublicKey());
}

/** The EIP-55 address of a private key (see publicKeyOfPrivateKey). */
export const addressOfPrivateKey = (key: Uint8Array, field: string): string => addressFromPublicKey(publicKeyOfPrivateKey(key, field));
