import type { GuardedReads } from './sql-database.js';
import { PerTurn } from './per-turn.js';

/**
 * The sign path's small reads (a vault's freeze count) for a database without a cheap change check
 * (PostgreSQL): the first read of a key in a turn of the event loop goes to the database, and the other
 * reads of that key in the same turn (the other signs served with it) wait for that one. Every request
 * served in a turn was received before the turn began, so before that read was sent: what it answers is as
 * current for each of them as a read of its own would have been (a freeze committed before a request
 * arrives refuses it), for one round trip per turn instead of one per sign. A write through this seam
 * (`forget`) and a commit through any other connection of this process (noteLocalCommit) end the sharing
 * at once; nothing is kept past the turn.
 */
export class TurnSharedReads implements GuardedReads {
  private readonly reads = new PerTurn(() => new Map<string, Promise<unknown>>());

  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const reads = this.reads.get();
    const shared = reads.get(key);
    if (shared !== undefined) return shared as Promise<T>;
    const reading = load();
    reads.set(key, reading);
    return reading;
  }

  forget(): void {
    this.reads.drop();
  }
}
