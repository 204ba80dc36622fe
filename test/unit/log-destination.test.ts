import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { GuardedLogDestination } from '../../adapters/main/log-destination.js';

/** A stdout whose reader the test plays: lines wait in `queued` until `read()`. */
class FakeOutput extends EventEmitter {
  queued: string[] = [];
  written: string[] = [];
  destroyed = false;
  get writableLength() {
    return this.queued.reduce((n, line) => n + line.length, 0);
  }
  write(line: string) {
    this.queued.push(line);
    return this.writableLength < 16;
  }
  read() {
    this.written.push(...this.queued);
    this.queued = [];
    this.emit('drain');
  }
}

describe('GuardedLogDestination', () => {
  it('queues up to its limit, drops and counts past it, and reports the count once when the reader has caught up', () => {
    const out = new FakeOutput();
    const destination = new GuardedLogDestination(out, 30);
    const reports: number[] = [];
    destination.onCaughtUp = (n) => reports.push(n);
    for (let i = 0; i < 5; i++) destination.write(`line ${i}..\n`); // 10 characters each
    expect(out.queued).toEqual(['line 0..\n', 'line 1..\n', 'line 2..\n']);
    expect(destination.dropped).toBe(2);
    out.read();
    expect(reports).toEqual([2]);
    destination.write('again...\n');
    out.read();
    expect(reports).toEqual([2]); // once
    expect(out.written.at(-1)).toBe('again...\n');
  });

  it('drops every line once the reader is gone (an error such as EPIPE), without throwing', async () => {
    const out = new FakeOutput();
    const destination = new GuardedLogDestination(out, 1000);
    destination.write('queued\n');
    out.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    destination.write('after\n');
    destination.write('after\n');
    expect(destination.dropped).toBe(2);
    expect(out.queued).toEqual(['queued\n']);
    await destination.settle(60_000); // the reader is gone: nothing to wait for
  });

  it('settles at once when nothing is queued, and gives up on a stalled reader after the time given', async () => {
    const out = new FakeOutput();
    const destination = new GuardedLogDestination(out, 1000);
    await destination.settle(60_000);
    destination.write('stuck\n');
    await destination.settle(50);
    expect(out.queued).toEqual(['stuck\n']);
  });
});
