import { invalidArgument } from '../../src/domain/errors.js';

/** Shape limits on a parsed JSON value, checked before any work is done with it. */
export interface JsonBounds {
  /** Deepest nesting of arrays and objects (the value itself is depth 1 when it is an array or object). */
  readonly maxDepth: number;
  /** Most elements in one array. */
  readonly maxArrayLength: number;
  /** Most characters in one string (object keys included). */
  readonly maxStringLength: number;
  /**
   * Most values in the whole value (array elements and object fields at any depth). Each becomes at least
   * one 32-byte word of the ABI encoding that is built and hashed, so this bounds a sign's work where the
   * body limit alone does not (`[0,0,…]` is 2 bytes of JSON per 32 bytes encoded).
   */
  readonly maxValues: number;
}

/** The defaults of VAULT_ARGS_MAX_DEPTH, _ARRAY_LENGTH, _STRING_LENGTH and _VALUES. */
export const DEFAULT_ARGS_BOUNDS: JsonBounds = { maxDepth: 16, maxArrayLength: 10_000, maxStringLength: 131_072, maxValues: 16_384 };

/** `path.k`, or `path["k…"]` for a key that is not an identifier (shortened: keys can be long). */
export function fieldPath(path: string, k: string): string {
  if (/^[A-Za-z_$][\w$]*$/.test(k)) return path ? `${path}.${k}` : k;
  return `${path}[${JSON.stringify(k.length > 40 ? `${k.slice(0, 37)}...` : k)}]`;
}

/**
 * Throws INVALID_ARGUMENT naming the first place (`args[2][0].amount`) that breaks a bound. The walk stops
 * at the depth limit and at the value count, so a hostile shape of any size costs no more than the limits.
 */
export function checkJsonBounds(value: unknown, path: string, bounds: JsonBounds): void {
  const seen = { values: 0 };
  walk(value, path, bounds, 1, seen);
}

/**
 * Whether checkJsonBounds would accept `value`: the same walk, in the same order, without the place of
 * each value (built for every value, the paths cost several times the walk itself). A caller runs
 * checkJsonBounds for its message only when this says no.
 */
export function withinJsonBounds(value: unknown, bounds: JsonBounds): boolean {
  const seen = { values: 0 };
  return within(value, bounds, 1, seen);
}

function within(value: unknown, bounds: JsonBounds, depth: number, seen: { values: number }): boolean {
  if (typeof value === 'string') return value.length <= bounds.maxStringLength;
  if (typeof value !== 'object' || value === null) return true;
  if (depth > bounds.maxDepth) return false;
  if (Array.isArray(value)) {
    if (value.length > bounds.maxArrayLength) return false;
    for (let i = 0; i < value.length; i++) {
      if (++seen.values > bounds.maxValues || !within(value[i], bounds, depth + 1, seen)) return false;
    }
    return true;
  }
  for (const k of Object.keys(value)) {
    if (k.length > bounds.maxStringLength || ++seen.values > bounds.maxValues) return false;
    if (!within((value as Record<string, unknown>)[k], bounds, depth + 1, seen)) return false;
  }
  return true;
}

function walk(value: unknown, path: string, bounds: JsonBounds, depth: number, seen: { values: number }): void {
  if (typeof value === 'string') {
    if (value.length > bounds.maxStringLength) {
      throw invalidArgument(`${path}: string of ${value.length} characters is longer than the limit of ${bounds.maxStringLength}`);
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (depth > bounds.maxDepth) throw invalidArgument(`${path}: nested deeper than the limit of ${bounds.maxDepth} levels`);
  const count = (at: string) => {
    if (++seen.values > bounds.maxValues) {
      throw invalidArgument(`${at}: more than the limit of ${bounds.maxValues} values (array elements and fields at any depth)`);
    }
  };
  if (Array.isArray(value)) {
    if (value.length > bounds.maxArrayLength) {
      throw invalidArgument(`${path}: array of ${value.length} elements is longer than the limit of ${bounds.maxArrayLength}`);
    }
    for (let i = 0; i < value.length; i++) {
      const at = `${path}[${i}]`;
      count(at);
      walk(value[i], at, bounds, depth + 1, seen);
    }
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k.length > bounds.maxStringLength) throw invalidArgument(`${path}: a key of ${k.length} characters is longer than the limit of ${bounds.maxStringLength}`);
    const at = fieldPath(path, k);
    count(at);
    walk(v, at, bounds, depth + 1, seen);
  }
}
