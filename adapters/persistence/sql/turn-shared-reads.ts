import type { GuardedReads } from './sql-database.js';
import { PerTurn } from './per-turn.js';

/** How long a read is kept for `remembered` readers (ms): as long as a policy read is (PolicyCache). */
export const REMEMBERED_MS = 5_000;
const MAX_REMEMBERED = 10_000;

/**
 * The sign path's small reads (a vault's freeze count) for a database without a cheap change check
 * (PostgreSQL): the first read of a key in a turn of the event loop goes to the database, and the other
 * reads of that key in the same turn (the other signs served with it) wait for that one. Every request
 * served in a turn was received before the turn began, so before that read was sent: what it answers is as
 * current for each of them as a read of its own would have been, for one round trip per turn instead of
 * one per sign. A `remembered` reader (the sign path's first freeze check, whose record is fenced: the
 * fence counts again in the record's own transaction) may also take what a read answered in the last
 * REMEMBERED_MS, or what a fenced write counted (`learn`). A write through this seam (`forget`) and a commit
 * through any other connection of this process (noteLocalCommit) end the sharing at once; `forget` also
 * drops what is remembered.
 */
export class TurnSharedReads implements GuardedReads {
  private readonly reads = new PerTurn(() => new Map<string, Promise<unknown>>());
  private readonly remembered = new Map<string, { readonly value: unknown; readonly at: number }>();
  /** Moved by `forget`: a read begun before it is answered but not remembered. */
  private generation = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  read<T>(key: string, load: () => Promise<T>, remembered = false): Promise<T> {
    if (remembered) {
      const kept = this.remembered.get(key);
      if (kept !== undefined && this.now() - kept.at < REMEMBERED_MS) return Promise.resolve(kept.value as T);
    }
    const reads = this.reads.get();
    const shared = reads.get(key);
    if (shared !== undefined) return shared as Promise<T>;
    const generation = this.generation;
    const at = this.now();
    const reading = load();
    reads.set(key, reading);
    reading.then((value) => generation === this.generation && this.remember(key, value, at), () => undefined);
    return reading;
  }

  /** A value read by a write's own transaction: as current as a read of this turn. */
  learn(key: string, value: unknown): void {
    this.remember(key, value, this.now());
  }

  forget(): void {
    this.generation++;
    this.remembered.clear();
    this.reads.drop();
  }

  private remember(key: string, value: unknown, at: number): void {
    const kept = this.remembered.get(key);
    if (kept !== undefined && kept.at > at) return; // a later read was remembered first
    this.remembered.delete(key);
    if (this.remembered.size >= MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value as string);
    this.remembered.set(key, { value, at });
  }
}
