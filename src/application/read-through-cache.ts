/**
 * The read-through cache of the sign path (policies, signers): a value loaded for a key is answered again
 * for `ttlMs` after its load began, measured on the caller's clock (the Clock port's instant, so tests can
 * move it). Past `maxEntries` the oldest entry is dropped. A load that throws stores nothing (misses that
 * throw are never cached); a cached null is a value like any other.
 *
 * A load that started before an `invalidate` (of any key) is answered but not kept: it may have read the
 * state from before the change that invalidated.
 */
export interface ReadThroughOptions<V> {
  readonly ttlMs: number;
  readonly maxEntries: number;
  /** Whether a kept value may still be answered at `now` (default: always, within the TTL); if not, it is loaded again. */
  readonly usable?: (value: V, now: Date) => boolean;
}

export class ReadThroughCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();
  /** Moved by every invalidate: a load begun before one is answered but not kept. */
  private generation = 0;

  constructor(private readonly options: ReadThroughOptions<V>) {}

  /** The value kept for `key` if still good at `now`, else `load()`'s (kept when no invalidate came meanwhile). */
  async read(key: K, now: Date, load: () => Promise<V>): Promise<V> {
    const at = now.getTime();
    const hit = this.entries.get(key);
    if (hit && hit.until > at && (this.options.usable?.(hit.value, now) ?? true)) return hit.value;
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation) this.keep(key, value, at);
    return value;
  }

  invalidate(key: K): void {
    this.generation++;
    this.entries.delete(key);
  }

  private keep(key: K, value: V, at: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, until: at + this.options.ttlMs });
  }
}
