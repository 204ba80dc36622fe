import type { AbiFunction, AbiParameter } from './types.js';

/*
 * The answer's `args` in the types abitype gives the ABI item (SignedArgs): the vault answers JSON, whose
 * integers are the decimal strings or numbers the request sent; viem's writeContract is typed to take
 * `bigint` (and `number` up to 48 bits), as abitype maps `uintN`/`intN`. Converted here by the item's
 * types, so the typed answer is also the value it says it is. Nothing else changes: addresses, bytes
 * and strings stay as they came.
 */

const INTEGER = /^u?int(\d*)$/;
const ARRAY = /^(.*)\[(\d*)\]$/;

/** One value of ABI type `parameter`, integers as abitype types them. */
function asTyped(parameter: AbiParameter, value: unknown): unknown {
  const array = ARRAY.exec(parameter.type);
  if (array) return Array.isArray(value) ? value.map((v) => asTyped({ ...parameter, type: array[1]! }, v)) : value;
  if (parameter.type === 'tuple') {
    const components = parameter.components ?? [];
    if (Array.isArray(value)) return value.map((v, i) => (components[i] ? asTyped(components[i], v) : v));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => {
        const component = components.find((c) => c.name === k);
        return [k, component ? asTyped(component, v) : v];
      }));
    }
    return value;
  }
  const integer = INTEGER.exec(parameter.type);
  if (!integer || (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'bigint')) return value;
  const bits = integer[1] === '' ? 256 : Number(integer[1]);
  try {
    const big = typeof value === 'bigint' ? value : BigInt(value);
    return bits <= 48 ? Number(big) : big;
  } catch {
    // Not an integer after all: the vault refused such a value, so this is not reached; kept as it came.
    return value;
  }
}

/** The call's arguments (the signature struct at its place) in the types of `abi`'s inputs. */
export function typedArgs(abi: AbiFunction, args: readonly unknown[]): unknown[] {
  return args.map((value, i) => (abi.inputs[i] ? asTyped(abi.inputs[i], value) : value));
}
