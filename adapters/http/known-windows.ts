interface Window {
  counted: number;
  endsAt: number;
}

/**
 * The shared limit's fixed windows as this process last knew them, per key: what the store answered
 * (the key's count and when its window ends), and what the process counted on from there while the
 * store failed or was skipped. Counting on from the store's count, a store that flaps does not hand out
 * a fresh allowance each time it fails. At most `maxKeys` keys are remembered, the least recently
 * counted forgotten first (such a key starts a window of its own in process, from zero).
 */
export class KnownWindows {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly points: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /**
   * Remembers the store's answer for `key`. Within a window already known, the higher count stays: the
   * requests this process counted alone while the store was away are not in the store's count.
   */
  remember(key: string, counted: number, endsAt: number, now: number): void {
    const known = this.windows.get(key);
    const stillOpen = known !== undefined && known.endsAt > now;
    this.put(key, { counted: stillOpen ? Math.max(known.counted, counted) : counted, endsAt });
  }

  /**
   * Counts one request for `key` in process, in the window last known for it (or one starting now, as
   * the store would open): 0 when it is within the limit, else the milliseconds until the window ends.
   */
  take(key: string, now: number): number {
    const known = this.windows.get(key);
    const window = known && known.endsAt > now ? known : { counted: 0, endsAt: now + this.windowMs };
    window.counted += 1;
    this.put(key, window);
    return window.counted > this.points ? window.endsAt - now : 0;
  }

  /** Keys currently remembered (for tests of the bound). */
  get size(): number {
    return this.windows.size;
  }

  private put(key: string, window: Window): void {
    // Re-inserted, so the map's order is least recently counted first.
    this.windows.delete(key);
    if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, window);
  }
}
