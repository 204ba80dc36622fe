import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../system/worker-file.js';

/** What `PRAGMA wal_checkpoint(PASSIVE)` reports: frames in the WAL and frames copied into the database. */
export interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

/**
 * Checkpoints a WAL database from a worker thread with its own connection. A checkpoint copies the WAL's
 * frames into the database file and syncs it; SQLite's automatic checkpoint does that inside the commit
 * that crosses 1 000 frames, on the event loop, which then waits for the disk (measured: about a third of
 * the commit's event-loop time under sign load, docs/benchmarks.md). A PASSIVE checkpoint never blocks a
 * writer or a reader, so the serving connection keeps committing while this one copies.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private waiting: { resolve(r: CheckpointResult): void; reject(e: Error): void } | undefined;
  private failure: Error | undefined;

  constructor(path: string) {
    // Its own connection, opened by sqlite.wal-checkpoint.worker.mjs (better-sqlite3 resolved from there).
    this.worker = startWorker(import.meta.url, './sqlite.wal-checkpoint.worker.mjs', { workerData: { path } });
    this.worker.on('message', (m: { result?: CheckpointResult; error?: string }) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (m.result) waiting?.resolve(m.result);
      else waiting?.reject(new Error(`WAL checkpoint failed: ${m.error}`));
    });
    const died = (error: Error) => {
      this.failure ??= error;
      this.waiting?.reject(error);
      this.waiting = undefined;
    };
    this.worker.on('error', died);
    this.worker.on('exit', () => died(new Error('the WAL checkpoint worker exited')));
  }

  /** One PASSIVE checkpoint; one at a time. Rejects once the worker has failed for good. */
  checkpoint(): Promise<CheckpointResult> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiting) return Promise.reject(new Error('a WAL checkpoint is already running'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.postMessage('checkpoint');
    });
  }

  /** Closes the worker's connection (after a running checkpoint) and ends the thread. */
  async close(): Promise<void> {
    if (this.failure) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    // Held open until it has exited: an unref'd worker awaited by a process with nothing else to do would
    // let the process end mid-close (exit 13, an unsettled top-level await in a script that closes a database).
    this.worker.ref();
    this.worker.postMessage('close');
    await exited;
  }
}
