import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { noteLocalCommit } from '../../adapters/persistence/sql/local-commits.js';
import { TurnSharedReads } from '../../adapters/persistence/sql/turn-shared-reads.js';

/**
 * PostgreSQL's freeze count on the sign path: read once per turn of the event loop for every sign of the
 * turn, never kept past it, and read again at once after a write of this process.
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
});
