/**
 * The read-through cache of the sign path (policies, signers, what a chain's contract answers): a value
 * loaded for a key is answered again for `ttlMs` after its load began, measured on the caller's clock (the
 * Clock port's instant, so tests can move it). Past `maxEntries` the oldest entry is dropped. A load that
 * throws stores nothing (misses that throw are never cached); a cached null is a value like any other.
 * Readers of a key whose load is under way wait for that load rather than start their own, so a key
 * costs one load however many requests miss it at once.
 *
 * A load that started before an `invalidate` (of any key) is answered but not kept, and no reader that
 * came after the invalidate joins it: it may have read the state from before the change that invalidated.
 * A `fresh` read neither answers a kept value nor joins a load under way, and keeps what it loads.
 */
export interface ReadThroughOptions<V> {
  readonly ttlMs: number;
  readonly maxEntries: number;
  /** Whether a kept value may still be answered at `now` (default: always, within the TTL); if not, it is loaded again. */
  readonly usable?: (value: V, now: Date) => boolean;
}

export class ReadThroughCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();
  /** The loads under way, each with the generation it began in (joined only within that generation). */
  private readonly loading = new Map<K, { value: Promise<V>; generation: number }>();
  /** Moved by every invalidate: a load begun before one is answered but not kept. */
  private generation = 0;

  constructor(private readonly options: ReadThroughOptions<V>) {}

  /** The value kept for `key` if still good at `now`, else `load()`'s (kept when no invalidate came meanwhile). */
  read(key: K, now: Date, load: () => Promise<V>, options: { readonly fresh?: boolean } = {}): Promise<V> {
    const at = now.getTime();
    if (!options.fresh) {
      const hit = this.entries.get(key);
      if (hit && hit.until > at && (this.options.usable?.(hit.value, now) ?? true)) return Promise.resolve(hit.value);
      const under = this.loading.get(key);
      if (under !== undefined && under.generation === this.generation) return under.value;
    }
    const generation = this.generation;
    let loading: Promise<V>;
    try {
      loading = load();
    } catch (error) {
      return Promise.reject(error); // a load that throws at once fails its reader as one that rejects would
    }
    const value = loading.then((loaded) => {
      if (generation === this.generation) this.keep(key, loaded, at);
      return loaded;
    });
    const entry = { value, generation };
    this.loading.set(key, entry);
    const done = () => {
      if (this.loading.get(key) === entry) this.loading.delete(key);
    };
    value.then(done, done);
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
