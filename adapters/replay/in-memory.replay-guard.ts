import type { ReplayGuard } from '../../src/ports/replay-guard.port.js';

/**
 * Nonces seen by this process, each kept until it expires. Bounded: past `maxEntries` live nonces a new
 * one is refused rather than forgetting one that could still be replayed (fail closed).
 */
export class InMemoryReplayGuard implements ReplayGuard {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly maxEntries = 1_000_000,
    private readonly now: () => number = Date.now,
  ) {}

  async firstUse(nonce: string, expiresAt: Date): Promise<boolean> {
    const now = this.now();
    const previous = this.seen.get(nonce);
    if (previous !== undefined && previous > now) return false;
    if (this.seen.size >= this.maxEntries) this.sweep(now);
    if (this.seen.size >= this.maxEntries) return false;
    this.seen.set(nonce, expiresAt.getTime());
    if (this.seen.size % 1024 === 0) this.sweep(now);
    return true;
  }

  private sweep(now: number): void {
    for (const [nonce, expires] of this.seen) if (expires <= now) this.seen.delete(nonce);
  }
}
