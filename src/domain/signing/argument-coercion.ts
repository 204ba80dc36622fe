import { parseAddress } from '../address.js';
import { invalidArgument } from '../errors.js';
import { hasLoneSurrogate } from '../unicode.js';
import { signatureType, type AbiParam } from './abi-function.js';

/** A value ready for the ABI encoder: bigint, boolean, string (hex, address or text), or arrays of these. */
export type AbiValue = bigint | boolean | string | readonly AbiValue[];

const DECIMAL = /^-?\d+$/;
const HEX = /^-?0x[0-9a-fA-F]+$/;
const HEX_BYTES = /^0x([0-9a-fA-F]{2})*$/;
const ARRAY_SUFFIX = /^(.*)\[(\d*)\]$/;
const INT = /^(u?)int(\d+)$/;
const BYTES_N = /^bytes(\d+)$/;

const show = (v: unknown) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};
const fail = (path: string, type: string, problem: string) => invalidArgument(`${path} (${type}): ${problem}`);

function coerceInteger(raw: unknown, path: string, type: string, signed: boolean, bits: number): bigint {
  let value: bigint;
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw)) throw fail(path, type, `${show(raw)} is not a safe integer (send large values as a decimal string)`);
    value = BigInt(raw);
  } else if (typeof raw === 'string' && (DECIMAL.test(raw) || HEX.test(raw))) {
    const negative = raw.startsWith('-');
    const magnitude = BigInt(negative ? raw.slice(1) : raw);
    value = negative ? -magnitude : magnitude;
  } else {
    throw fail(path, type, `${show(raw)} is not an integer`);
  }
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (value < min || value > max) throw fail(path, type, `${show(raw)} is out of range`);
  return value;
}

function coerceElementary(raw: unknown, path: string, type: string): AbiValue {
  const int = INT.exec(type);
  if (int) return coerceInteger(raw, path, type, int[1] === '', Number(int[2]));
  if (type === 'bool') {
    if (typeof raw !== 'boolean') throw fail(path, type, `${show(raw)} is not true or false`);
    return raw;
  }
  if (type === 'address') return parseAddress(raw, `${path} (${type})`);
  if (type === 'string') {
    if (typeof raw !== 'string') throw fail(path, type, `${show(raw)} is not a string`);
    // Encoders disagree on a lone surrogate (replaced here, refused by ethers): the contract could see
    // other bytes than were signed.
    if (hasLoneSurrogate(raw)) throw fail(path, type, 'is not well-formed Unicode text (it contains a lone surrogate)');
    return raw;
  }
  if (typeof raw !== 'string' || !HEX_BYTES.test(raw)) throw fail(path, type, `${show(raw)} is not 0x-prefixed hex bytes`);
  const size = BYTES_N.exec(type);
  if (size && (raw.length - 2) / 2 !== Number(size[1])) {
    throw fail(path, type, `${show(raw)} is ${(raw.length - 2) / 2} bytes, expected ${size[1]}`);
  }
  return raw.toLowerCase();
}

function coerce(raw: unknown, param: AbiParam, path: string): AbiValue {
  const array = ARRAY_SUFFIX.exec(param.type);
  if (array) {
    if (!Array.isArray(raw)) throw fail(path, signatureType(param), `${show(raw)} is not an array`);
    if (array[2] !== '' && raw.length !== Number(array[2])) {
      throw fail(path, signatureType(param), `has ${raw.length} elements, expected ${array[2]}`);
    }
    const element: AbiParam = { ...param, type: array[1]! };
    return raw.map((item, i) => coerce(item, element, `${path}[${i}]`));
  }
  if (param.type === 'tuple') return coerceTuple(raw, param, path);
  return coerceElementary(raw, path, param.type);
}

/** Tuples come as arrays in component order, or as objects keyed by component name. */
function coerceTuple(raw: unknown, param: AbiParam, path: string): AbiValue[] {
  const components = param.components!;
  if (Array.isArray(raw)) {
    if (raw.length !== components.length) {
      throw fail(path, signatureType(param), `has ${raw.length} fields, expected ${components.length}`);
    }
    return components.map((c, i) => coerce(raw[i], c, `${path}[${i}]`));
  }
  if (typeof raw === 'object' && raw !== null) {
    const record = raw as Record<string, unknown>;
    const unnamed = components.findIndex((c) => c.name === '');
    if (unnamed >= 0) throw fail(path, signatureType(param), 'has unnamed components: give it as an array');
    const extra = Object.keys(record).filter((k) => !components.some((c) => c.name === k));
    if (extra.length > 0) throw fail(path, signatureType(param), `unknown field ${show(extra[0])}`);
    return components.map((c) => {
      if (!(c.name in record)) throw fail(`${path}.${c.name}`, signatureType(c), 'is missing');
      return coerce(record[c.name], c, `${path}.${c.name}`);
    });
  }
  throw fail(path, signatureType(param), `${show(raw)} is not an object or array`);
}

/** Checks the JSON arguments against the function's parameters (signature parameter excluded). */
export function coerceArguments(raw: unknown, params: readonly AbiParam[]): AbiValue[] {
  if (!Array.isArray(raw)) throw invalidArgument('args: must be an array');
  if (raw.length !== params.length) {
    throw invalidArgument(
      `args: expected ${params.length} argument${params.length === 1 ? '' : 's'} (the function's inputs without the signature parameter), got ${raw.length}`,
    );
  }
  return params.map((p, i) => coerce(raw[i], p, `args[${i}]`));
}
