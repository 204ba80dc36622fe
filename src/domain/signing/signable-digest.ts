import { keccak256 } from '../keccak.js';
import { abiEncoder } from './abi-encoder.js';
import type { AbiParam, ParsedFunction } from './abi-function.js';
import type { AbiValue } from './argument-coercion.js';

/** A 0x-prefixed hex string, as the ABI and the interface write bytes. */
export type Hex = `0x${string}`;

/** The structure appended to the arguments, exactly what the contract's signature parameter takes. */
export interface SignatureStruct {
  readonly nonce: Hex;
  readonly r: Hex;
  readonly s: Hex;
  readonly v: 27 | 28;
}

const encoders = new WeakMap<ParsedFunction, (values: readonly AbiValue[]) => Buffer>();

/** 0x-prefixed lower-case hex; a Uint8Array that is not a Buffer is read through a view, not copied. */
export const toHex = (bytes: Uint8Array): Hex =>
  `0x${(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('hex')}`;

/** message = abi.encode(bytes4 selector, ...args): what the contract rebuilds from msg.sig and its arguments. */
export function encodeMessage(fn: ParsedFunction, args: readonly AbiValue[]): Hex {
  let encode = encoders.get(fn);
  if (!encode) {
    encode = abiEncoder([{ name: '', type: 'bytes4' }, ...fn.argParams]);
    encoders.set(fn, encode);
  }
  return toHex(encode([fn.selector, ...args]));
}

/**
 * digest = keccak256(abi.encode(bytes32 uniq, bytes32 nonce, address sender, bytes message)), signed as
 * is: three words, the offset of `message` (4 words), its length, and the message padded to a word.
 */
export function signableDigest(input: { uniq: Hex; nonce: Hex; sender: Hex; message: Hex }): Uint8Array {
  const length = (input.message.length - 2) / 2;
  const buf = Buffer.alloc(5 * 32 + Math.ceil(length / 32) * 32);
  buf.write(input.uniq.slice(2), 0, 32, 'hex');
  buf.write(input.nonce.slice(2), 32, 32, 'hex');
  buf.write(input.sender.slice(2), 64 + 12, 20, 'hex');
  buf.writeUInt32BE(4 * 32, 3 * 32 + 28);
  buf.writeUInt32BE(length, 4 * 32 + 28);
  buf.write(input.message.slice(2), 5 * 32, length, 'hex');
  return keccak256(buf);
}

/**
 * keccak256(abi.encode(nonce, r, s, v)): the key a signable contract records to refuse a second use.
 * Four static words: nonce, r, s, and v right-aligned in the last.
 */
export function submissionHash(sig: SignatureStruct): Hex {
  const buf = Buffer.alloc(4 * 32);
  writeBytes32(buf, sig.nonce, 0, 'nonce');
  writeBytes32(buf, sig.r, 32, 'r');
  writeBytes32(buf, sig.s, 64, 's');
  if (!Number.isInteger(sig.v) || sig.v < 0 || sig.v > 255) throw new Error(`signature v must be a uint8, got ${String(sig.v)}`);
  buf[4 * 32 - 1] = sig.v;
  return toHex(keccak256(buf));
}

/** Buffer.write stops silently at a bad hex digit; the ABI encoder this replaced refused those, and so does this. */
function writeBytes32(buf: Buffer, hex: Hex, offset: number, name: string): void {
  if (hex.length !== 66 || !hex.startsWith('0x') || buf.write(hex.slice(2), offset, 32, 'hex') !== 32) {
    throw new Error(`signature ${name} must be 0x-prefixed 32-byte hex, got ${JSON.stringify(hex)}`);
  }
}

/** The signature parameter as the ABI encodes it: the tuple `(bytes32 nonce, bytes32 r, bytes32 s, uint8 v)`. */
export const SIGNATURE_PARAM: AbiParam = {
  name: 'sig',
  type: 'tuple',
  components: [
    { name: 'nonce', type: 'bytes32' },
    { name: 'r', type: 'bytes32' },
    { name: 's', type: 'bytes32' },
    { name: 'v', type: 'uint8' },
  ],
};
const callEncoders = new WeakMap<ParsedFunction, (values: readonly AbiValue[]) => Buffer>();

/** The calldata of the signed call: selector ‖ abi.encode(args with the signature struct in place), what the sender sends. */
export function encodeSignedCall(fn: ParsedFunction, args: readonly AbiValue[], sig: SignatureStruct): Hex {
  let encode = callEncoders.get(fn);
  if (!encode) {
    const params = [...fn.argParams];
    params.splice(fn.signatureIndex, 0, SIGNATURE_PARAM);
    encode = abiEncoder(params);
    callEncoders.set(fn, encode);
  }
  const values = [...args];
  values.splice(fn.signatureIndex, 0, [sig.nonce, sig.r, sig.s, BigInt(sig.v)]);
  return `${fn.selector}${encode(values).toString('hex')}` as Hex;
}

/** The supplied arguments, untouched, with the signature at the signature parameter's position. */
export function argsWithSignature(fn: ParsedFunction, args: readonly unknown[], sig: SignatureStruct): unknown[] {
  const out = [...args];
  out.splice(fn.signatureIndex, 0, { nonce: sig.nonce, r: sig.r, s: sig.s, v: sig.v });
  return out;
}
