import { createHash } from 'node:crypto';
import { parseAbiFunction, type AbiParam, type ParsedFunction } from '../domain/signing/abi-function.js';

/** What the parsed ABI items of a process may hold at most, by the estimate below. */
export const DEFAULT_ABI_CACHE_BYTES = 8 * 1024 * 1024;

/** Per object kept (a parameter, its compiled checker, the function itself): headers, fields, closures. */
const OBJECT_OVERHEAD_BYTES = 256;

/**
 * An upper estimate of what a parsed function keeps alive: its strings at two bytes a character and a
 * fixed overhead per parameter (the parameter, its checker and its encoder description). What the
 * request carried beside the parameters (unknown fields, long texts) is not kept and does not count.
 */
export function retainedBytes(fn: ParsedFunction): number {
  const param = (p: AbiParam): number =>
    OBJECT_OVERHEAD_BYTES + 2 * (p.name.length + p.type.length) + (p.components ?? []).reduce((sum, c) => sum + param(c), 0);
  return OBJECT_OVERHEAD_BYTES + 2 * (fn.name.length + fn.signature.length) + fn.argParams.reduce((sum, p) => sum + param(p), 0);
}

/**
 * Longest JSON text of an ABI item that is its own key; a longer one is keyed by its SHA-256. Real items
 * are a few hundred characters; a key is paid for twice in the cache's bytes (UTF-16), and V8 hashes a
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
    const bytes = retainedBytes(fn) + key.length * 2;
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
