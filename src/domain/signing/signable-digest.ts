import { encodeAbiParameters, type Hex } from 'viem';
import { keccak256 } from '../keccak.js';
import { abiEncoder } from './abi-encoder.js';
import type { ParsedFunction } from './abi-function.js';
import type { AbiValue } from './argument-coercion.js';

/** The structure appended to the arguments, exactly what the contract's signature parameter takes. */
export interface SignatureStruct {
  readonly nonce: Hex;
  readonly r: Hex;
  readonly s: Hex;
  readonly v: 27 | 28;
}

const SUBMISSION_PARAMS = [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint8' }] as const;

const encoders = new WeakMap<ParsedFunction, (values: readonly AbiValue[]) => Buffer>();

export const keccak = (hex: Hex): Uint8Array => keccak256(Buffer.from(hex.slice(2), 'hex'));
export const toHex = (bytes: Uint8Array): Hex => `0x${Buffer.from(bytes).toString('hex')}`;

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

/** keccak256(abi.encode(nonce, r, s, v)): the key a signable contract records to refuse a second use. */
export function submissionHash(sig: SignatureStruct): Hex {
  return toHex(keccak(encodeAbiParameters(SUBMISSION_PARAMS, [sig.nonce, sig.r, sig.s, sig.v])));
}

/** The supplied arguments, untouched, with the signature at the signature parameter's position. */
export function argsWithSignature(fn: ParsedFunction, args: readonly unknown[], sig: SignatureStruct): unknown[] {
  const out = [...args];
  out.splice(fn.signatureIndex, 0, { nonce: sig.nonce, r: sig.r, s: sig.s, v: sig.v });
  return out;
}
