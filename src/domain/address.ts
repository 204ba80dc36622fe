import { keccak256 } from './keccak.js';
import { invalidArgument } from './errors.js';
import { showValue } from './show-value.js';

const HEX40 = /^0x[0-9a-fA-F]{40}$/;
const encoder = new TextEncoder();

/** Addresses repeat (contracts, senders, signers): their checksums are kept, within a bound. */
const checksums = new Map<string, string>();
const CHECKSUM_CACHE_SIZE = 10_000;

/** EIP-55 mixed-case checksum of a 20-byte address given as 40 hex digits (any case). */
export function toChecksumAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const cached = checksums.get(lower);
  if (cached !== undefined) return cached;
  const result = computeChecksum(lower);
  if (checksums.size >= CHECKSUM_CACHE_SIZE) checksums.delete(checksums.keys().next().value as string);
  checksums.set(lower, result);
  return result;
}

function computeChecksum(lower: string): string {
  const hash = keccak256(encoder.encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    const c = lower[i]!;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/**
 * Accepts all-lower, all-upper or valid EIP-55; a mixed-case address with a bad checksum is refused,
 * because it is most likely a typo.
 */
export function parseAddress(raw: unknown, field: string, options: { anyCase?: boolean } = {}): string {
  if (raw === undefined) throw invalidArgument(`${field}: is required`);
  if (typeof raw !== 'string' || !HEX40.test(raw)) {
    throw invalidArgument(`${field}: ${showValue(raw)} is not a 0x-prefixed 20-byte hex address`);
  }
  const checksummed = toChecksumAddress(raw);
  if (options.anyCase) return checksummed;
  const body = raw.slice(2);
  const uniform = body === body.toLowerCase() || body === body.toUpperCase();
  if (!uniform && raw !== checksummed) {
    throw invalidArgument(`${field}: ${JSON.stringify(raw)} has an invalid EIP-55 checksum`);
  }
  return checksummed;
}

/** The Ethereum address of an uncompressed secp256k1 public key (65 bytes, 0x04 prefix). */
export function addressFromPublicKey(publicKey: Uint8Array): string {
  if (publicKey.length !== 65 || publicKey[0] !== 0x04) {
    throw new Error('expected a 65-byte uncompressed secp256k1 public key');
  }
  const hash = keccak256(publicKey.subarray(1));
  return toChecksumAddress('0x' + Buffer.from(hash.subarray(12)).toString('hex'));
}
