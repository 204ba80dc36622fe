import { encodeAbiParameters, type AbiParameter, type Hex } from 'viem';
import { keccak256 } from '../keccak.js';
import type { AbiParam, ParsedFunction } from './abi-function.js';
import type { AbiValue } from './argument-coercion.js';

/** The structure appended to the arguments, exactly what the contract's signature parameter takes. */
export interface SignatureStruct {
  readonly nonce: Hex;
  readonly r: Hex;
  readonly s: Hex;
  readonly v: 27 | 28;
}

const DIGEST_PARAMS = [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'address' }, { type: 'bytes' }] as const;
const SUBMISSION_PARAMS = [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint8' }] as const;

const toViemParam = (p: AbiParam): AbiParameter =>
  (p.components ? { name: p.name, type: p.type, components: p.components.map(toViemParam) } : { name: p.name, type: p.type }) as AbiParameter;

const viemParams = new WeakMap<ParsedFunction, AbiParameter[]>();

export const keccak = (hex: Hex): Uint8Array => keccak256(Buffer.from(hex.slice(2), 'hex'));
export const toHex = (bytes: Uint8Array): Hex => `0x${Buffer.from(bytes).toString('hex')}`;

/** message = abi.encode(bytes4 selector, ...args): what the contract rebuilds from msg.sig and its arguments. */
export function encodeMessage(fn: ParsedFunction, args: readonly AbiValue[]): Hex {
  let params = viemParams.get(fn);
  if (!params) {
    params = [{ type: 'bytes4' }, ...fn.argParams.map(toViemParam)];
    viemParams.set(fn, params);
  }
  return encodeAbiParameters(params, [fn.selector, ...args] as never);
}

/** digest = keccak256(abi.encode(bytes32 uniq, bytes32 nonce, address sender, bytes message)), signed as is. */
export function signableDigest(input: { uniq: Hex; nonce: Hex; sender: Hex; message: Hex }): Uint8Array {
  return keccak(encodeAbiParameters(DIGEST_PARAMS, [input.uniq, input.nonce, input.sender, input.message]));
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
