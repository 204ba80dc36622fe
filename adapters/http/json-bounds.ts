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
 * The place is kept as the keys and indexes down to the value and written out only for a refusal: a path
 * string built for every value cost several times the walk itself.
 */
export function checkJsonBounds(value: unknown, path: string, bounds: JsonBounds): void {
  new BoundsWalk(path, bounds).walk(value, 1);
}

class BoundsWalk {
  private values = 0;
  /** The keys (strings) and indexes (numbers) from the root to the value being looked at. */
  private readonly steps: (string | number)[] = [];

  constructor(
    private readonly root: string,
    private readonly bounds: JsonBounds,
  ) {}

  walk(value: unknown, depth: number): void {
    const { bounds, steps } = this;
    if (typeof value === 'string') {
      if (value.length > bounds.maxStringLength) {
        throw invalidArgument(`${this.place()}: string of ${value.length} characters is longer than the limit of ${bounds.maxStringLength}`);
      }
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (depth > bounds.maxDepth) throw invalidArgument(`${this.place()}: nested deeper than the limit of ${bounds.maxDepth} levels`);
    if (Array.isArray(value)) {
      if (value.length > bounds.maxArrayLength) {
        throw invalidArgument(`${this.place()}: array of ${value.length} elements is longer than the limit of ${bounds.maxArrayLength}`);
      }
      for (let i = 0; i < value.length; i++) {
        steps.push(i);
        this.count();
        this.walk(value[i], depth + 1);
        steps.pop();
      }
      return;
    }
    for (const k of Object.keys(value)) {
      if (k.length > bounds.maxStringLength) {
        throw invalidArgument(`${this.place()}: a key of ${k.length} characters is longer than the limit of ${bounds.maxStringLength}`);
      }
      steps.push(k);
      this.count();
      this.walk((value as Record<string, unknown>)[k], depth + 1);
      steps.pop();
    }
  }

  private count(): void {
    if (++this.values > this.bounds.maxValues) {
      throw invalidArgument(`${this.place()}: more than the limit of ${this.bounds.maxValues} values (array elements and fields at any depth)`);
    }
  }

  /** The path of the value being looked at: `root[2][0].amount`. */
  private place(): string {
    let path = this.root;
    for (const step of this.steps) path = typeof step === 'number' ? `${path}[${step}]` : fieldPath(path, step);
    return path;
  }
}
