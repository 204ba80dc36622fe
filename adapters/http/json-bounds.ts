import { invalidArgument } from '../../src/domain/errors.js';

/** Shape limits on a parsed JSON value, checked before any work is done with it. */
export interface JsonBounds {
  /** Deepest nesting of arrays and objects (the value itself is depth 1 when it is an array or object). */
  readonly maxDepth: number;
  /** Most elements in one array. */
  readonly maxArrayLength: number;
  /** Most characters in one string (object keys included). */
  readonly maxStringLength: number;
}

/** The defaults of VAULT_ARGS_MAX_DEPTH, VAULT_ARGS_MAX_ARRAY_LENGTH and VAULT_ARGS_MAX_STRING_LENGTH. */
export const DEFAULT_ARGS_BOUNDS: JsonBounds = { maxDepth: 16, maxArrayLength: 10_000, maxStringLength: 131_072 };

const key = (path: string, k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k.length > 40 ? `${k.slice(0, 37)}...` : k)}]`);

/**
 * Throws INVALID_ARGUMENT naming the first place (`args[2][0].amount`) that breaks a bound. The walk stops
 * at the depth limit, so a hostile nesting of any depth costs no more than the limit.
 */
export function checkJsonBounds(value: unknown, path: string, bounds: JsonBounds, depth = 1): void {
  if (typeof value === 'string') {
    if (value.length > bounds.maxStringLength) {
      throw invalidArgument(`${path}: string of ${value.length} characters is longer than the limit of ${bounds.maxStringLength}`);
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (depth > bounds.maxDepth) throw invalidArgument(`${path}: nested deeper than the limit of ${bounds.maxDepth} levels`);
  if (Array.isArray(value)) {
    if (value.length > bounds.maxArrayLength) {
      throw invalidArgument(`${path}: array of ${value.length} elements is longer than the limit of ${bounds.maxArrayLength}`);
    }
    for (let i = 0; i < value.length; i++) checkJsonBounds(value[i], `${path}[${i}]`, bounds, depth + 1);
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k.length > bounds.maxStringLength) throw invalidArgument(`${path}: a key of ${k.length} characters is longer than the limit of ${bounds.maxStringLength}`);
    checkJsonBounds(v, key(path, k), bounds, depth + 1);
  }
}
