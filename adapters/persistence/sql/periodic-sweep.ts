/**
 * A clean-up run from the request path at most once per interval: the first call after the interval
 * starts it in the background, and a failed run is simply retried at the next interval. No timer, so
 * nothing outlives the adapter that owns it.
 */
export class PeriodicSweep {
  private last: number;

  constructor(
    private readonly everyMs: number,
    now: number,
    private readonly sweep: (now: Date) => Promise<unknown>,
  ) {
    this.last = now;
  }

  due(now: number): void {
    if (now - this.last < this.everyMs) return;
    this.last = now;
    void this.sweep(new Date(now)).catch(() => undefined);
  }
}
