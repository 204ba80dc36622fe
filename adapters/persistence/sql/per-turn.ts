import { localCommits } from './local-commits.js';

/**
 * A value kept for the rest of the current turn of the event loop, and made again sooner when a commit of
 * this process (local-commits.ts) came after it was made, or when it is dropped: what SqliteGuardedReads
 * keeps of `PRAGMA data_version`, and the reads TurnSharedReads shares. The requests served in one turn
 * were all received before it began, so a value made during the turn is as current for each of them.
 */
export class PerTurn<T> {
  private value: T | undefined;
  private made = false;
  private commits = 0;
  private ending = false;
  private readonly end = (): void => {
    this.drop();
    this.ending = false;
  };

  constructor(private readonly make: () => T) {}

  /** This turn's value, made now if there is none yet (a `make` that throws keeps nothing). */
  get(): T {
    if (this.made && this.commits === localCommits()) return this.value as T;
    const value = this.make();
    this.value = value;
    this.made = true;
    this.commits = localCommits();
    if (!this.ending) {
      this.ending = true;
      setImmediate(this.end);
    }
    return value;
  }

  drop(): void {
    this.value = undefined;
    this.made = false;
  }
}
