import { closeSync, fdatasync, openSync, write } from 'node:fs';
import type { Journal } from './sign-floor.server.js';

/**
 * An append-only file with group commit, the durable floor's storage: the lines appended during one turn
 * of the event loop go to the file in one write followed by one fdatasync, both on libuv's thread pool
 * (the event loop keeps serving meanwhile), and each line's caller is told only when that fdatasync has
 * returned.
 *
 * By default batches of consecutive turns may be in flight together, each waiting for its own sync. On one
 * file descriptor that is not quite the service's guarantee: Linux reports a failed write-back once per
 * descriptor, to whichever sync asks first, so an overlapping sync can return success for a batch whose
 * lines were lost. With `oneSyncAtATime` the journal does what the service's commit queue does instead:
 * while a sync runs, the lines of the following turns are held and written together, with one sync of
 * their own, when it returns.
 */
export class DurableJournal implements Journal {
  private readonly fd: number;
  private lines: string[] = [];
  private callbacks: ((error?: Error) => void)[] = [];
  /** Writes and syncs started and not yet returned. */
  private syncing = 0;

  constructor(
    file: string,
    private readonly options: { readonly oneSyncAtATime?: boolean } = {},
  ) {
    this.fd = openSync(file, 'a', 0o600);
  }

  append(line: string, durable: (error?: Error) => void): void {
    this.lines.push(line);
    this.callbacks.push(durable);
    if (this.lines.length === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    if (this.lines.length === 0) return;
    // Held: flushed, together with what arrives meanwhile, when the running sync returns.
    if (this.options.oneSyncAtATime && this.syncing > 0) return;
    const data = Buffer.from(this.lines.join(''));
    const callbacks = this.callbacks;
    this.lines = [];
    this.callbacks = [];
    this.syncing++;
    const done = (error?: Error | null) => {
      this.syncing--;
      callbacks.forEach((cb) => cb(error ?? undefined));
      if (this.options.oneSyncAtATime) this.flush();
    };
    write(this.fd, data, (error) => (error ? done(error) : fdatasync(this.fd, done)));
  }

  close(): void {
    closeSync(this.fd);
  }
}
