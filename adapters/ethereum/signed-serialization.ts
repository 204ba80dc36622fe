import type { RecoverableSignature } from '../../src/ports/key-store.port.js';
import type { TransactionType } from '../../src/ports/standard-payloads.port.js';

/*
 * A signed transaction built from its unsigned serialisation (ethers' `unsignedSerialized`, already
 * checked) by appending the signature's RLP items, rather than by ethers serialising the whole
 * transaction again: that measured ~45 µs a sign-transaction (bench:standard-sign), this a few. Typed
 * (EIP-2718) transactions sign `type ‖ rlp([fields…])` and are sent as `type ‖ rlp([fields…, yParity, r, s])`;
 * an EIP-155 legacy one signs `rlp([fields…, chainId, 0, 0])` and is sent as `rlp([fields…, v, r, s])`
 * with v = chainId × 2 + 35 + yParity. test/unit/standard-payloads.test.ts holds the result to viem's
 * parse and to ethers' re-serialisation, byte for byte.
 */

/** `unsigned` (the bytes of an unsigned serialisation of `type` on `chainId`) with `signature`. */
export function signedSerialization(unsigned: Uint8Array, type: TransactionType, chainId: bigint, signature: RecoverableSignature): Uint8Array {
  const yParity = BigInt(signature.v - 27);
  const rs = [rlpString(signature.r), rlpString(signature.s)];
  if (type !== 'legacy') {
    const fields = listPayload(unsigned, 1);
    return list([unsigned.subarray(0, 1)], [fields, rlpInteger(yParity), ...rs]);
  }
  const fields = listPayload(unsigned, 0);
  const chainIdItem = rlpInteger(chainId);
  const suffix = chainIdItem.length + 2; // rlp(chainId) ‖ rlp(0) ‖ rlp(0)
  if (fields.length < suffix || fields[fields.length - 1] !== 0x80 || fields[fields.length - 2] !== 0x80) {
    throw new Error('an EIP-155 unsigned serialisation ends with chainId, 0, 0');
  }
  return list([], [fields.subarray(0, fields.length - suffix), rlpInteger(chainId * 2n + 35n + yParity), ...rs]);
}

/** The payload of the RLP list that starts at `offset` and runs to the end. */
function listPayload(bytes: Uint8Array, offset: number): Uint8Array {
  const first = bytes[offset]!;
  if (first < 0xc0) throw new Error('not an RLP list');
  if (first <= 0xf7) return bytes.subarray(offset + 1);
  return bytes.subarray(offset + 1 + (first - 0xf7));
}

/** `prefix` ‖ an RLP list of the already encoded `items`. */
function list(prefix: Uint8Array[], items: Uint8Array[]): Uint8Array {
  const length = items.reduce((n, item) => n + item.length, 0);
  return concat([...prefix, length < 56 ? Uint8Array.of(0xc0 + length) : lengthHeader(0xf7, length), ...items]);
}

function lengthHeader(base: number, length: number): Uint8Array {
  const digits = bigEndian(BigInt(length));
  return concat([Uint8Array.of(base + digits.length), digits]);
}

/** An integer as RLP: its minimal big-endian bytes (none for 0). */
function rlpInteger(value: bigint): Uint8Array {
  return rlpString(bigEndian(value));
}

/** Bytes of an integer (r, s) as RLP, leading zeros dropped; at most 55 bytes here. */
function rlpString(raw: Uint8Array): Uint8Array {
  let start = 0;
  while (start < raw.length && raw[start] === 0) start++;
  const bytes = raw.subarray(start);
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes;
  return concat([Uint8Array.of(0x80 + bytes.length), bytes]);
}

function bigEndian(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  const hex = value.toString(16);
  return Uint8Array.from(Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex'));
}

function concat(parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}
