/**
 * A bounded, time-limited cache of unwrapped private keys, so the sign path does no file I/O or
 * decryption for a hot wallet. Evicted buffers are zeroed; the bound caps how much key material the
 * process holds.
 */
export class KeyCache {
  private readonly entries = new Map<string, { key: Buffer; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  get(ref: string, now = Date.now()): Buffer | undefined {
    const entry = this.entries.get(ref);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.delete(ref);
      return undefined;
    }
    // Re-insert to mark as most recently used (Map keeps insertion order).
    this.entries.delete(ref);
    this.entries.set(ref, entry);
    return entry.key;
  }

  /**
   * Hands `key`, just unwrapped for `ref`, to the cache, and returns the key to sign with and who zeroes
   * it. `kept`: the cache owns it now and zeroes it when evicted. Not kept (size or TTL 0): the caller
   * zeroes it once signed. When a concurrent load kept a key for `ref` first, that one is returned and
   * `key`, a duplicate, is zeroed here: replacing the kept one would zero a key a sign in flight holds.
   */
  keep(ref: string, key: Buffer, now = Date.now()): { key: Buffer; kept: boolean } {
    if (this.maxEntries <= 0 || this.ttlMs <= 0) return { key, kept: false };
    const already = this.get(ref, now);
    if (already && already !== key) {
      key.fill(0);
      return { key: already, kept: true };
    }
    this.entries.set(ref, { key, expiresAt: now + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
    }
    return { key, kept: true };
  }

  delete(ref: string): void {
    const entry = this.entries.get(ref);
    if (entry) {
      entry.key.fill(0);
      this.entries.delete(ref);
    }
  }

  clear(): void {
    for (const ref of [...this.entries.keys()]) this.delete(ref);
  }
}
