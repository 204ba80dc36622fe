import type { GuardedReads } from './sql-database.js';
import { localCommits } from './local-commits.js';

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
  private readonly reads = new Map<string, Promise<unknown>>();
  private commits = localCommits();
  private ending = false;
  private readonly endTurn = (): void => {
    this.reads.clear();
    this.ending = false;
  };

  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.commits !== localCommits()) {
      this.reads.clear();
      this.commits = localCommits();
    }
    const shared = this.reads.get(key);
    if (shared !== undefined) return shared as Promise<T>;
    const reading = load();
    this.reads.set(key, reading);
    if (!this.ending) {
      this.ending = true;
      setImmediate(this.endTurn);
    }
    return reading;
  }

  forget(): void {
    this.reads.clear();
  }
}
