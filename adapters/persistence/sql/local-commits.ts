/**
 * Commits made in this process through any connection of the vault's SQL seams (SQLite or PostgreSQL,
 * every pool and file), counted. What a turn of the event loop keeps of a read (SqliteGuardedReads'
 * data version, TurnSharedReads' shared reads) is dropped once this count moves, so a commit through
 * another connection of the same process (a second pool in a test or an embedding application, the CLI's
 * code run in-process) is seen at once, within the turn, as it would be by a read of its own.
 */
let commits = 0;

/** After a commit through any connection of this process. */
export function noteLocalCommit(): void {
  commits++;
}

/** The count so far: compared with the one a kept read was taken at. */
export function localCommits(): number {
  return commits;
}
