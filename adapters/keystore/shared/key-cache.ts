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

  set(ref: string, key: Buffer, now = Date.now()): void {
    if (this.maxEntries <= 0 || this.ttlMs <= 0) return;
    this.delete(ref);
    this.entries.set(ref, { key, expiresAt: now + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
    }
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
