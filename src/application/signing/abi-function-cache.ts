import { createHash } from 'node:crypto';
import { parseAbiFunction, type AbiParam, type ParsedFunction } from '../../domain/signing/abi-function.js';

/** What the parsed ABI items of a process may hold at most, by the estimate below. */
export const DEFAULT_ABI_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * What a cached function holds on the V8 heap, in bytes, beside its strings. Measured on Node 20 (x64)
 * with the sign path's own structures: a function is remembered only after a sign with it, by then its
 * arguments' checkers (argument-coercion.ts) and its encoder (signable-digest.ts) are compiled, and
 * they live as long as the function does. test/unit/abi-cache-heap.test.ts fills a cache to its bound
 * and checks that the heap it takes is within 20 % of this estimate.
 */
const HEAP = Object.freeze({
  /** The entry and its Map slot, the frozen function, its selector, argParams, encoder and checker list. */
  function: 1300,
  /** A parameter: its object, checker, codec and their closures. */
  param: 450,
  /** A tuple's own: its checker's component list and name set, its sequence codec. */
  tuple: 600,
  /** Each array dimension: the element's checker and codec again, and a sequence codec. */
  arrayDimension: 800,
});

/** A flat V8 string: a 16-byte header, then a byte a character (two if any is past Latin-1), in 8-byte steps. */
export function stringBytes(s: string): number {
  const bytes = /^[\x00-\xff]*$/.test(s) ? s.length : 2 * s.length;
  return 16 + Math.ceil(bytes / 8) * 8;
}

const arrayDimensions = (type: string): number => {
  let n = 0;
  for (let i = type.indexOf('['); i !== -1; i = type.indexOf('[', i + 1)) n++;
  return n;
};

function paramBytes(p: AbiParam): number {
  const own = HEAP.param + stringBytes(p.name) + stringBytes(p.type) + HEAP.arrayDimension * arrayDimensions(p.type);
  return p.components ? own + HEAP.tuple + p.components.reduce((sum, c) => sum + paramBytes(c), 0) : own;
}

/**
 * The heap a cached function keeps alive, by the measured figures above: the function with its checkers
 * and encoder, its strings, and each parameter's. What the request carried beside the parameters
 * (unknown fields, long texts) is not kept and does not count; its key does (`entryBytes`).
 */
export function retainedBytes(fn: ParsedFunction): number {
  return HEAP.function + stringBytes(fn.name) + stringBytes(fn.signature) + fn.argParams.reduce((sum, p) => sum + paramBytes(p), 0);
}

/** What one entry of the cache costs: the function and the key it is found by. */
export function entryBytes(key: string, fn: ParsedFunction): number {
  return retainedBytes(fn) + stringBytes(key);
}

/**
 * Longest JSON text of an ABI item that is its own key; a longer one is keyed by its SHA-256. Real items
 * are a few hundred characters; a key is paid for in the cache's bytes (`stringBytes`), and V8 hashes a
 * string of at most 16 383 characters by its content (a longer one by its length alone).
 */
export const MAX_TEXT_KEY = 4096;

/**
 * Parsed ABI items by their JSON text (clients send the same few items over and over), least recently
 * used first out, bounded by bytes rather than entries: one entry may be a few hundred bytes or a few
 * hundred kilobytes. The caller stores an item only once a sign with it succeeded, so refused requests,
 * however many and however large, leave nothing behind.
 *
 * The text itself is the key up to MAX_TEXT_KEY characters: a Map compares the whole key on a hit, so
 * two items share an entry only if their texts are equal, and the text costs no digest per sign. A
 * longer text is keyed by its SHA-256 (`#` and base64url, which no JSON text starts with), as every
 * item was before.
 */
export class AbiFunctionCache {
  private readonly entries = new Map<string, { fn: ParsedFunction; bytes: number }>();
  private bytes = 0;
  /** The entry last in `entries`, which a hit need not move. */
  private newest: { fn: ParsedFunction; bytes: number } | undefined;

  constructor(private readonly maxBytes = DEFAULT_ABI_CACHE_BYTES) {}

  /** The cached parse of `abi`, or a fresh one (not stored: see `remember`) with the key to store it by. */
  parse(abi: unknown): { fn: ParsedFunction; key: string; cached: boolean } {
    const key = abiKey(abi);
    const hit = this.entries.get(key);
    if (hit) {
      // Most recently used last; the usual hit is already there (one item signed over and over).
      if (hit !== this.newest) {
        this.entries.delete(key);
        this.entries.set(key, hit);
        this.newest = hit;
      }
      return { fn: hit.fn, key, cached: true };
    }
    return { fn: parseAbiFunction(abi), key, cached: false };
  }

  remember(key: string, fn: ParsedFunction): void {
    if (this.entries.has(key)) return;
    const bytes = entryBytes(key, fn);
    if (bytes > this.maxBytes) return;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes + bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
    const entry = { fn, bytes };
    this.entries.set(key, entry);
    this.newest = entry;
    this.bytes += bytes;
  }

  /** The estimated bytes held, always at most the bound. */
  get byteSize(): number {
    return this.bytes;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The key of an ABI item in the cache: its JSON text, or `#` and the SHA-256 of a text over MAX_TEXT_KEY. */
export function abiKey(abi: unknown): string {
  const text = JSON.stringify(abi) ?? '';
  return text.length <= MAX_TEXT_KEY ? text : `#${createHash('sha256').update(text).digest('base64url')}`;
}
