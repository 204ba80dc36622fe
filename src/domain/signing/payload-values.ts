import { invalidArgument } from '../errors.js';
import { showValue } from '../show-value.js';

/*
 * The values a standard payload's fields are written in, read as clients send them (JSON, or the
 * in-process API's values). Shared by the kinds' readers (kinds/<name>/<name>.input.ts): each kind's
 * field table says which field is which of these.
 */

/** A 0x-prefixed lower-case hex string. */
export type HexString = `0x${string}`;

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);

export const UINT256_MAX = (1n << 256n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;

const DECIMAL = /^(0|[1-9][0-9]{0,77})$/;
const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

/**
 * A non-negative integer as clients send one: a bigint, a safe-integer number, a decimal string or
 * 0x-hex (JSON has no bigint, and viem's JSON writes quantities as strings). At most `max`.
 */
export function quantity(raw: unknown, field: string, max: bigint = UINT256_MAX): bigint {
  let value: bigint | undefined;
  if (typeof raw === 'bigint') value = raw;
  else if (typeof raw === 'number' && Number.isSafeInteger(raw)) value = BigInt(raw);
  else if (typeof raw === 'string' && (DECIMAL.test(raw) || HEX_QUANTITY.test(raw))) value = BigInt(raw);
  if (value === undefined || value < 0n) {
    throw invalidArgument(`${field}: ${showValue(typeof raw === 'bigint' ? raw.toString() : raw)} is not a non-negative integer (a number, a decimal string or 0x-hex)`);
  }
  if (value > max) throw invalidArgument(`${field}: must be at most ${max}`);
  return value;
}

/** Bytes as 0x-prefixed hex with an even number of digits, returned lower-case. */
export function hexBytes(raw: unknown, field: string): HexString {
  if (typeof raw !== 'string' || !HEX_BYTES.test(raw)) throw invalidArgument(`${field}: must be 0x-prefixed hex bytes (an even number of hex digits)`);
  return raw.toLowerCase() as HexString;
}

/** The keys of `value` that are not in `known` and are set (an in-process caller may pass undefined ones). */
export function unknownKeys(value: Record<string, unknown>, known: ReadonlySet<string>): string[] {
  return Object.keys(value).filter((k) => !known.has(k) && value[k] !== undefined);
}
