import { AbiCoder, getAddress, Result } from 'ethers';
import { signatureType, type AbiParam, type ParsedFunction } from '../../src/domain/signing/abi-function.js';
import type { AbiValue } from '../../src/domain/signing/argument-coercion.js';
import { SIGNATURE_PARAM } from '../../src/domain/signing/signable-digest.js';
import type { HexString } from '../../src/ports/standard-payloads.port.js';


/**
 * A transaction's calldata as `fn`'s arguments, for policy conditions: strictly decoded (ethers refuses
 * calldata too short for the types, or a value out of its type's range), then shaped as Sign's coerced
 * arguments so the same rules judge both. Null when it does not decode: the policy then cannot judge it.
 */
export function decodeArguments(fn: ParsedFunction, data: HexString): readonly AbiValue[] | null {
  if (!data.toLowerCase().startsWith(fn.selector)) return null;
  const inputs = [...fn.argParams];
  if (fn.signatureIndex >= 0) inputs.splice(fn.signatureIndex, 0, SIGNATURE_PARAM);
  try {
    const decoded = AbiCoder.defaultAbiCoder().decode(inputs.map(signatureType), `0x${data.slice(10)}`);
    const values = inputs.map((param, i) => shaped(param, decoded[i]));
    if (fn.signatureIndex >= 0) values.splice(fn.signatureIndex, 1);
    return values;
  } catch {
    return null;
  }
}

function shaped(param: AbiParam, value: unknown): AbiValue {
  if (param.type.endsWith(']')) {
    const element: AbiParam = { ...param, type: param.type.slice(0, param.type.lastIndexOf('[')) };
    return [...(value as Result)].map((item) => shaped(element, item)) as AbiValue;
  }
  if (param.type === 'tuple') return param.components!.map((c, i) => shaped(c, (value as Result)[i])) as AbiValue;
  if (param.type === 'address') return getAddress(value as string);
  if (param.type.startsWith('bytes')) return (value as string).toLowerCase();
  return value as AbiValue;
}
