import { closeSync, fdatasync, openSync, write } from 'node:fs';
import type { Journal } from './sign-floor.server.js';

/**
 * An append-only file with group commit, the durable floor's storage: the lines appended during one turn
 * of the event loop go to the file in one write followed by one fdatasync, both on libuv's thread pool
 * (the event loop keeps serving meanwhile), and each line's caller is told only when that fdatasync has
 * returned. Batches of consecutive turns may be in flight together; each waits for its own sync.
 */
export class DurableJournal implements Journal {
  private readonly fd: number;
  private lines: string[] = [];
  private callbacks: ((error?: Error) => void)[] = [];

  constructor(file: string) {
    this.fd = openSync(file, 'a', 0o600);
  }

  append(line: string, durable: (error?: Error) => void): void {
    this.lines.push(line);
    this.callbacks.push(durable);
    if (this.lines.length === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const data = Buffer.from(this.lines.join(''));
    const callbacks = this.callbacks;
    this.lines = [];
    this.callbacks = [];
    const done = (error?: Error | null) => callbacks.forEach((cb) => cb(error ?? undefined));
    write(this.fd, data, (error) => (error ? done(error) : fdatasync(this.fd, done)));
  }

  close(): void {
    closeSync(this.fd);
  }
}
