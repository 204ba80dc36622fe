import { parseAddress } from '../address.js';
import { DomainError, invalidArgument } from '../errors.js';
import { showValue } from '../show-value.js';
import { hasLoneSurrogate } from '../unicode.js';
import { signatureType, type AbiParam } from './abi-function.js';

/** A value ready for the ABI encoder: bigint, boolean, string (hex, address or text), or arrays of these. */
export type AbiValue = bigint | boolean | string | readonly AbiValue[];

const DECIMAL = /^-?\d+$/;
const HEX = /^-?0x[0-9a-fA-F]+$/;
const HEX_BYTES = /^0x([0-9a-fA-F]{2})*$/;
const INT = /^(u?)int(\d+)$/;
const BYTES_N = /^bytes(\d+)$/;

const show = showValue;

/**
 * A refused value, thrown from where it is found and given its place (`[3].amount`) while it travels up:
 * the place is written only for the one value refused, never for each of the (up to millions of) values
 * accepted.
 */
class Refused {
  /** Path segments, innermost first. */
  readonly segments: string[] = [];
  constructor(
    readonly type: () => string,
    readonly problem: string,
  ) {}
}

type Coerce = (raw: unknown) => AbiValue;

/**
 * Each parameter is turned once (per parsed function) into a function that checks a value of it: the
 * type string is read here, not for every element, so checking the arguments costs one visit per value.
 */
function compile(param: AbiParam): Coerce {
  const type = param.type;
  if (type.endsWith(']')) return compileArray(param);
  if (type === 'tuple') return compileTuple(param);
  return compileElementary(type);
}

function compileArray(param: AbiParam): Coerce {
  const open = param.type.lastIndexOf('[');
  const size = param.type.slice(open + 1, -1);
  const length = size === '' ? undefined : Number(size);
  const element = compile({ ...param, type: param.type.slice(0, open) });
  const type = () => signatureType(param);
  return (raw) => {
    if (!Array.isArray(raw)) throw new Refused(type, `${show(raw)} is not an array`);
    if (length !== undefined && raw.length !== length) throw new Refused(type, `has ${raw.length} elements, expected ${length}`);
    const out = new Array<AbiValue>(raw.length);
    for (let i = 0; i < raw.length; i++) {
      try {
        out[i] = element(raw[i]);
      } catch (error) {
        throw at(error, `[${i}]`);
      }
    }
    return out;
  };
}

/** Tuples come as arrays in component order, or as objects keyed by component name. */
function compileTuple(param: AbiParam): Coerce {
  const components = param.components!;
  const coercers = components.map(compile);
  const names = new Set(components.map((c) => c.name));
  const unnamed = names.has('');
  const type = () => signatureType(param);
  return (raw) => {
    if (Array.isArray(raw)) {
      if (raw.length !== components.length) throw new Refused(type, `has ${raw.length} fields, expected ${components.length}`);
      return coercers.map((coerce, i) => {
        try {
          return coerce(raw[i]);
        } catch (error) {
          throw at(error, `[${i}]`);
        }
      });
    }
    if (typeof raw !== 'object' || raw === null) throw new Refused(type, `${show(raw)} is not an object or array`);
    if (unnamed) throw new Refused(type, 'has unnamed components: give it as an array');
    const record = raw as Record<string, unknown>;
    // Every key known means no more keys than components (keys are unique): this stops at the first
    // unknown one, so an object of 60 000 keys costs no more than one of the tuple's width.
    for (const k in record) {
      if (!names.has(k)) throw new Refused(type, `unknown field ${show(k)}`);
    }
    return components.map((c, i) => {
      const field = `.${c.name}`;
      if (!Object.hasOwn(record, c.name)) throw at(new Refused(() => signatureType(c), 'is missing'), field);
      try {
        return coercers[i]!(record[c.name]);
      } catch (error) {
        throw at(error, field);
      }
    });
  };
}

function compileElementary(type: string): Coerce {
  const fail = (problem: string) => new Refused(() => type, problem);
  const int = INT.exec(type);
  if (int) {
    const signed = int[1] === '';
    const bits = BigInt(int[2]!);
    const min = signed ? -(1n << (bits - 1n)) : 0n;
    const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
    return (raw) => {
      let value: bigint;
      if (typeof raw === 'number') {
        if (!Number.isSafeInteger(raw)) throw fail(`${show(raw)} is not a safe integer (send large values as a decimal string)`);
        value = BigInt(raw);
      } else if (typeof raw === 'string' && (DECIMAL.test(raw) || HEX.test(raw))) {
        const negative = raw.startsWith('-');
        const magnitude = BigInt(negative ? raw.slice(1) : raw);
        value = negative ? -magnitude : magnitude;
      } else {
        throw fail(`${show(raw)} is not an integer`);
      }
      if (value < min || value > max) throw fail(`${show(raw)} is out of range`);
      return value;
    };
  }
  if (type === 'bool') {
    return (raw) => {
      if (typeof raw !== 'boolean') throw fail(`${show(raw)} is not true or false`);
      return raw;
    };
  }
  if (type === 'address') {
    return (raw) => {
      try {
        return parseAddress(raw, '');
      } catch (error) {
        // parseAddress names the field first (`: ...`); the place is added on the way up.
        if (error instanceof DomainError) throw fail(error.message.slice(2));
        throw error;
      }
    };
  }
  if (type === 'string') {
    return (raw) => {
      if (typeof raw !== 'string') throw fail(`${show(raw)} is not a string`);
      // Encoders disagree on a lone surrogate (replaced here, refused by ethers): the contract could see
      // other bytes than were signed.
      if (hasLoneSurrogate(raw)) throw fail('is not well-formed Unicode text (it contains a lone surrogate)');
      return raw;
    };
  }
  const size = BYTES_N.exec(type);
  const bytes = size ? Number(size[1]) : undefined;
  return (raw) => {
    if (typeof raw !== 'string' || !HEX_BYTES.test(raw)) throw fail(`${show(raw)} is not 0x-prefixed hex bytes`);
    if (bytes !== undefined && (raw.length - 2) / 2 !== bytes) throw fail(`${show(raw)} is ${(raw.length - 2) / 2} bytes, expected ${bytes}`);
    return raw.toLowerCase();
  };
}

function at(error: unknown, segment: string): unknown {
  if (error instanceof Refused) error.segments.push(segment);
  return error;
}

/** Compiled once per parameter list: a ParsedFunction keeps its `argParams` array for its lifetime. */
const compiled = new WeakMap<readonly AbiParam[], Coerce[]>();

/** Checks the JSON arguments against the function's parameters (signature parameter excluded). */
export function coerceArguments(raw: unknown, params: readonly AbiParam[]): AbiValue[] {
  if (!Array.isArray(raw)) throw invalidArgument('args: must be an array');
  if (raw.length !== params.length) {
    throw invalidArgument(
      `args: expected ${params.length} argument${params.length === 1 ? '' : 's'} (the function's inputs without the signature parameter), got ${raw.length}`,
    );
  }
  let coercers = compiled.get(params);
  if (!coercers) {
    coercers = params.map(compile);
    compiled.set(params, coercers);
  }
  return coercers.map((coerce, i) => {
    try {
      return coerce(raw[i]);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const path = `args[${i}]${error.segments.reverse().join('')}`;
      throw invalidArgument(`${path} (${error.type()}): ${error.problem}`);
    }
  });
}
