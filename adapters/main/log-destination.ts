import type { DestinationStream } from 'pino';

/**
 * At most this much log text (in UTF-16 code units, about bytes for the JSON lines the server writes)
 * waits for a slow stdout reader; a line that would go past it is dropped and counted.
 */
export const LOG_BUFFER_LIMIT = 1024 * 1024;

/** What the destination needs of its stream: process.stdout is one (a net.Socket on a pipe or socket). */
export interface LogOutput {
  write(chunk: string): boolean;
  readonly writableLength: number;
  readonly destroyed: boolean;
  on(event: 'drain', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * The server's log destination. Logging must never hurt the signer, so:
 * - a reader that is gone (EPIPE, ECONNRESET: the pipe's reader exited, journald restarted) makes every
 *   later line dropped and counted, never an error and never a retry;
 * - a reader that is slow or stalled leaves at most `limit` of lines waiting in memory; past it lines are
 *   dropped and counted, and once the reader has caught up one line (`onCaughtUp`) reports how many;
 * - nothing blocks: on a pipe or socket stdout is non-blocking in node, a write only queues, and a line
 *   over the bound is dropped at once;
 * - exit never waits on the reader: `settle(ms)` waits for the queue to empty at most that long, and
 *   nothing is flushed synchronously at exit (pino's SonicBoom destination retries a failed synchronous
 *   write every 100 ms for ever, which hung a server whose stdout reader had exited).
 * A file or a terminal on stdout is written synchronously by node (no queue, so no bound is needed).
 */
export class GuardedLogDestination implements DestinationStream {
  /** Lines dropped since the start: exported as wallet_vault_log_lines_dropped_total. */
  dropped = 0;
  private unreported = 0;
  private gone = false;
  /** Called once the reader has caught up after lines were dropped, with how many were. */
  onCaughtUp: (dropped: number) => void = () => {};

  constructor(
    private readonly out: LogOutput,
    private readonly limit = LOG_BUFFER_LIMIT,
  ) {
    out.on('error', () => {
      // The reader is gone for good (the stream is destroyed after an error): drop from now on.
      this.gone = true;
    });
    out.on('drain', () => {
      if (this.unreported === 0 || this.gone) return;
      const n = this.unreported;
      this.unreported = 0;
      this.onCaughtUp(n);
    });
  }

  write(line: string): void {
    if (this.gone || this.out.destroyed || this.out.writableLength + line.length > this.limit) {
      this.dropped++;
      this.unreported++;
      return;
    }
    this.out.write(line);
  }

  /** Resolves once every queued line is written, the reader is gone, or `withinMs` has passed. */
  async settle(withinMs: number): Promise<void> {
    const until = Date.now() + withinMs;
    while (!this.gone && !this.out.destroyed && this.out.writableLength > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
