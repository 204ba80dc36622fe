import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { noteLocalCommit } from '../../adapters/persistence/sql/local-commits.js';
import { REMEMBERED_MS, TurnSharedReads } from '../../adapters/persistence/sql/turn-shared-reads.js';

/**
 * PostgreSQL's freeze count on the sign path: read once per turn of the event loop for every sign of the
 * turn, and read again at once after a write of this process; a `remembered` reader (a fenced sign's
 * first check) also takes a read of the last REMEMBERED_MS, or what a fenced write counted.
 */
describe('TurnSharedReads', () => {
  const counting = () => {
    let loads = 0;
    return { load: async () => ++loads, loads: () => loads };
  };

  it('makes one read of a key for every reader of one turn, and a new one in the next turn', async () => {
    const reads = new TurnSharedReads();
    const c = counting();
    expect(await Promise.all([reads.read('freezes:v', c.load), reads.read('freezes:v', c.load), reads.read('freezes:w', c.load)])).toEqual([1, 1, 2]);
    expect(await reads.read('freezes:v', c.load)).toBe(1); // the same turn still
    await nextTurn();
    expect(await reads.read('freezes:v', c.load)).toBe(3);
  });

  it('reads again within the turn after a commit through any connection of this process, or a write through its own', async () => {
    const reads = new TurnSharedReads();
    const c = counting();
    expect(await reads.read('freezes:v', c.load)).toBe(1);
    noteLocalCommit(); // another pool of this process froze the vault
    expect(await reads.read('freezes:v', c.load)).toBe(2);
    reads.forget(); // a freeze through this seam
    expect(await reads.read('freezes:v', c.load)).toBe(3);
    expect(await reads.read('freezes:v', c.load)).toBe(3);
  });

  it('shares a failed read with the readers of its turn only', async () => {
    const reads = new TurnSharedReads();
    const failing = reads.read('freezes:v', () => Promise.reject(new Error('database away')));
    await expect(failing).rejects.toThrow('database away');
    await expect(reads.read('freezes:v', async () => 7)).rejects.toThrow('database away');
    await nextTurn();
    expect(await reads.read('freezes:v', async () => 7)).toBe(7);
  });

  it('answers a remembered reader from the last read for REMEMBERED_MS, then reads again; a plain reader reads each turn', async () => {
    let now = 0;
    const reads = new TurnSharedReads(() => now);
    const c = counting();
    expect(await reads.read('freezes:v', c.load, true)).toBe(1);
    await nextTurn();
    now = REMEMBERED_MS - 1;
    expect(await reads.read('freezes:v', c.load, true)).toBe(1);
    expect(await reads.read('freezes:v', c.load)).toBe(2); // a plain read: this turn's own
    await nextTurn();
    now = 2 * REMEMBERED_MS - 2;
    expect(await reads.read('freezes:v', c.load, true)).toBe(2); // remembered from the plain read at REMEMBERED_MS - 1
    await nextTurn();
    now = 3 * REMEMBERED_MS;
    expect(await reads.read('freezes:v', c.load, true)).toBe(3);
  });

  it('remembers what a fenced write counted, and forgets everything at a write of its own, also a read begun before it', async () => {
    const reads = new TurnSharedReads(() => 0);
    const c = counting();
    reads.learn('freezes:v', 42);
    expect(await reads.read('freezes:v', c.load, true)).toBe(42);
    expect(c.loads()).toBe(0);
    let release!: (n: number) => void;
    const slow = reads.read('freezes:w', () => new Promise<number>((resolve) => (release = resolve)), true);
    reads.forget();
    release(5);
    expect(await slow).toBe(5);
    await nextTurn();
    expect(await reads.read('freezes:v', c.load, true)).toBe(1);
    expect(await reads.read('freezes:w', c.load, true)).toBe(2); // the read begun before the forget was not kept
  });
});
