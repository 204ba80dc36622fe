import { invalidArgument } from '../../src/domain/errors.js';

/*
 * Shape limits on JSON, checked before any work is done with it: on a body's text before JSON.parse
 * (checkJsonText: depth, widths, values), and on a parsed value (checkJsonBounds: Sign's `args` and
 * `abi`). Which limits each body gets is request-body.ts's.
 */

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

/** Shape limits checked on a request body's text, before it is parsed. */
export interface JsonTextLimits {
  /** Deepest nesting of arrays and objects. */
  readonly maxDepth: number;
  /** Most elements in one array. */
  readonly maxArrayLength: number;
  /** Most members (keys) in one object. */
  readonly maxMembers: number;
  /** Most values in the whole body: array elements and object members at every depth. */
  readonly maxValues: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Refuses JSON text that nests deeper, or holds a longer array, a wider object or more values, than
 * `limits`, before anything parses it. JSON.parse itself copes with any depth, but everything after it that recurses
 * (canonical hashing, messages, the ABI walk, JSON.stringify) would overflow the stack: a 500 instead of
 * a 400; and the cost of parsing one very wide object is far from linear in practice. One pass over the
 * characters, each looked at once (a string's skipped by indexOf), with state only for the open levels up to the depth limit; the place
 * is named (`args[0].a[3]`) from that state when a limit is crossed. Malformed text is left to JSON.parse,
 * which reports it.
 */
export function checkJsonText(text: string, limits: JsonTextLimits): void {
  const { maxDepth } = limits;
  const levels = levelsFor(maxDepth);
  const { isArray, count, keyStart, keyEnd, expectKey } = levels;
  let depth = 0;
  let values = 0;
  const tooMany = (place: string) => invalidArgument(`${place}: more than the limit of ${limits.maxValues} values in a request body`);
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      i = closingQuote(text, i);
      if (depth > 0 && expectKey[depth] === 1) {
        keyStart[depth] = start;
        keyEnd[depth] = i + 1;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (depth === maxDepth) {
        throw invalidArgument(`${levels.place(text, maxDepth)}: nested deeper than the limit of ${maxDepth} levels`);
      }
      depth++;
      isArray[depth] = c === OPEN_ARRAY ? 1 : 0;
      count[depth] = 1; // an empty container closes before it matters
      keyStart[depth] = -1;
      expectKey[depth] = c === OPEN_OBJECT ? 1 : 0;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth === 0) return; // unbalanced: JSON.parse says so
      // The last member is counted here, unless the container is empty (only spaces since it opened).
      let j = i - 1;
      while (isSpace(text.charCodeAt(j))) j--;
      const opening = text.charCodeAt(j);
      if (opening !== OPEN_ARRAY && opening !== OPEN_OBJECT && ++values > limits.maxValues) throw tooMany(levels.place(text, depth));
      depth--;
    } else if (c === COMMA && depth > 0) {
      if (++values > limits.maxValues) throw tooMany(levels.place(text, depth));
      const members = count[depth]! + 1;
      count[depth] = members;
      if (isArray[depth] === 1) {
        if (members > limits.maxArrayLength) {
          throw invalidArgument(`${levels.place(text, depth - 1)}: array longer than the limit of ${limits.maxArrayLength} elements`);
        }
      } else {
        if (members > limits.maxMembers) {
          throw invalidArgument(`${levels.place(text, depth - 1)}: object with more than the limit of ${limits.maxMembers} members`);
        }
        expectKey[depth] = 1;
      }
    } else if (c === COLON) {
      expectKey[depth] = 0;
    }
  }
}

/**
 * The index of the quote that closes the string opening at `open` (`text.length` if none does): the
 * next quote not escaped, that is not preceded by an odd run of backslashes. indexOf finds candidates
 * natively (measured: faster than a loop even for a string of a few characters); each backslash is
 * looked at once more at most, when the quote after it is found.
 */
function closingQuote(text: string, open: number): number {
  // A string of a character or two ends before a call to indexOf would have returned.
  const near = Math.min(open + SHORT_STRING, text.length);
  for (let i = open + 1; i < near; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c === BACKSLASH) break;
  }
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if ((backslashes & 1) === 0) return at;
  }
}

/**
 * How far a string is looked at one character at a time before indexOf takes over. Measured on a
 * Sign body (keys of 1 to 15 characters, values of 42 to 66) and on 24 000 `{"a":i}` (a hostile body
 * the scan refuses): 2 or 3 cost the least on the first; below 3 the second costs more than the
 * character loop of old did.
 */
const SHORT_STRING = 3;

/** Per open level (1-based): array or object, its members so far, and where its current key is in the text. */
class Levels {
  readonly isArray: Uint8Array;
  readonly count: Int32Array;
  readonly keyStart: Int32Array;
  readonly keyEnd: Int32Array;
  readonly expectKey: Uint8Array;

  constructor(maxDepth: number) {
    this.isArray = new Uint8Array(maxDepth + 1);
    this.count = new Int32Array(maxDepth + 1);
    this.keyStart = new Int32Array(maxDepth + 1).fill(-1);
    this.keyEnd = new Int32Array(maxDepth + 1);
    this.expectKey = new Uint8Array(maxDepth + 1);
  }

  /** The path of the value open at `depth` (`body` for the body itself), built only for a refusal. */
  place(text: string, depth: number): string {
    let path = '';
    for (let level = 1; level <= depth; level++) {
      if (this.isArray[level] === 1) path += `[${this.count[level]! - 1}]`;
      else path = fieldPath(path, this.keyStart[level]! < 0 ? '' : decodeKey(text.slice(this.keyStart[level], this.keyEnd[level])));
    }
    return path || 'body';
  }
}

/**
 * The scan's state, kept between calls (a scan is synchronous, so never two at once): allocating five
 * typed arrays cost about as much as scanning a whole Sign body. Every level is set when it opens,
 * before it is read.
 */
let scratch: Levels | undefined;
function levelsFor(maxDepth: number): Levels {
  if (scratch === undefined || scratch.isArray.length <= maxDepth) scratch = new Levels(maxDepth);
  return scratch;
}

function decodeKey(literal: string): string {
  try {
    const key = JSON.parse(literal) as unknown;
    return typeof key === 'string' ? key : '?';
  } catch {
    return '?';
  }
}
