/**
 * A bounded map whose entries are reused for `ttlMs` after they were stored, measured on the caller's
 * clock (the Clock port, so tests can move it). Past `maxEntries` the oldest entry is dropped. The
 * read-through caches of the sign path (policies, API keys, signers) share it.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The entry stored for `key` unless its time is up at `now` (ms): a cached null is `{ value: null }`. */
  get(key: K, now: number): { readonly value: V } | undefined {
    const hit = this.entries.get(key);
    return hit && hit.until > now ? hit : undefined;
  }

  set(key: K, value: V, now: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, until: now + this.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
