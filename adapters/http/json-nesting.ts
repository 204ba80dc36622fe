import { invalidArgument } from '../../src/domain/errors.js';
import { DEFAULT_ARGS_BOUNDS, fieldPath, type JsonBounds } from './json-bounds.js';

/**
 * How deep any request body may nest: Sign's `abi` (2 × VAULT_ARGS_MAX_DEPTH + 2 levels, each tuple level
 * being `components[j]`) inside the body object. One limit for every route, so no handler, hash or
 * message ever walks a deeper value.
 */
export const bodyDepthLimit = (bounds: Pick<JsonBounds, 'maxDepth'>) => 2 * bounds.maxDepth + 3;
export const DEFAULT_BODY_MAX_DEPTH = bodyDepthLimit(DEFAULT_ARGS_BOUNDS);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * Refuses JSON text that nests deeper than `maxDepth` arrays and objects, before anything parses it.
 * JSON.parse itself copes with any depth, but everything after it that recurses (canonical hashing,
 * messages, the ABI walk, JSON.stringify) would overflow the stack: a 500 instead of a 400. One pass over
 * the characters, each looked at once, with state only for the open levels up to the limit; the
 * place is named (`args[0].a[3]`) from that state when the limit is crossed. Malformed text is left to
 * JSON.parse, which reports it.
 */
export function checkJsonNesting(text: string, maxDepth: number): void {
  // Per open level (1-based): array or object, the element index, and where the current key is in `text`.
  const isArray = new Uint8Array(maxDepth + 1);
  const index = new Int32Array(maxDepth + 1);
  const keyStart = new Int32Array(maxDepth + 1).fill(-1);
  const keyEnd = new Int32Array(maxDepth + 1);
  const expectKey = new Uint8Array(maxDepth + 1);
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
      if (depth > 0 && expectKey[depth] === 1) {
        keyStart[depth] = start;
        keyEnd[depth] = i + 1;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (depth === maxDepth) throw tooDeep(text, maxDepth, isArray, index, keyStart, keyEnd);
      depth++;
      isArray[depth] = c === OPEN_ARRAY ? 1 : 0;
      index[depth] = 0;
      keyStart[depth] = -1;
      expectKey[depth] = c === OPEN_OBJECT ? 1 : 0;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth === 0) return; // unbalanced: JSON.parse says so
      depth--;
    } else if (c === COMMA) {
      if (isArray[depth] === 1) index[depth] = index[depth]! + 1;
      else expectKey[depth] = 1;
    } else if (c === COLON) {
      expectKey[depth] = 0;
    }
  }
}

function tooDeep(
  text: string,
  maxDepth: number,
  isArray: Uint8Array,
  index: Int32Array,
  keyStart: Int32Array,
  keyEnd: Int32Array,
): Error {
  let path = '';
  for (let level = 1; level <= maxDepth; level++) {
    if (isArray[level] === 1) path += `[${index[level]}]`;
    else path = fieldPath(path, keyStart[level]! < 0 ? '' : decodeKey(text.slice(keyStart[level], keyEnd[level])));
  }
  return invalidArgument(`${path || 'body'}: nested deeper than the limit of ${maxDepth} levels`);
}

function decodeKey(literal: string): string {
  try {
    const key = JSON.parse(literal) as unknown;
    return typeof key === 'string' ? key : '?';
  } catch {
    return '?';
  }
}
