import type { Clock } from '../../src/ports/clock.port.js';

/** Real time plus an offset the test moves, so expiry can be crossed without waiting 30 days. */
export class MovableClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;
  now(): Date {
    return new Date((this.frozenAt ?? Date.now()) + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  /** Stops real time from passing, for assertions at an exact millisecond. */
  freeze(): void {
    this.frozenAt ??= Date.now();
  }
}

/** A clock that stands still at a given instant until moved. */
export class FixedClock implements Clock {
  constructor(private instant: Date) {}
  now(): Date {
    return new Date(this.instant.getTime());
  }
  set(instant: Date): void {
    this.instant = instant;
  }
  advance(ms: number): void {
    this.instant = new Date(this.instant.getTime() + ms);
  }
}
