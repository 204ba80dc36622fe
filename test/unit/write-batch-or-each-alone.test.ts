import { describe, expect, it } from 'vitest';
import { writeBatchOrEachAlone, type Pending } from '../../adapters/persistence/sql/group-commit.js';

/** Pending items whose outcome is recorded; `write` refuses any batch holding a 'bad' item. */
function setUp(items: string[], failure: unknown = new Error('constraint')) {
  const outcomes = new Map<string, unknown>();
  const batch: Pending<string>[] = items.map((item) => ({ item, resolve: () => outcomes.set(item, 'stored'), reject: (e) => outcomes.set(item, e) }));
  const writes: string[][] = [];
  const write = (b: Pending<string>[]) => {
    writes.push(b.map((p) => p.item));
    if (b.some((p) => p.item === 'bad')) throw failure;
    b.forEach((p) => p.resolve());
  };
  return { batch, write, writes, outcomes, failure };
}

describe('writeBatchOrEachAlone (every group commit\'s failure rule)', () => {
  it('writes a good batch once', async () => {
    const s = setUp(['a', 'b']);
    await writeBatchOrEachAlone(s.batch, s.write, () => false);
    expect(s.writes).toEqual([['a', 'b']]);
    expect([...s.outcomes.values()]).toEqual(['stored', 'stored']);
  });

  it('retries each item alone, in order, after a failed batch: the bad one fails alone', async () => {
    const s = setUp(['a', 'bad', 'c']);
    await writeBatchOrEachAlone(s.batch, async (b) => s.write(b), () => false);
    expect(s.writes).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
    expect(Object.fromEntries(s.outcomes)).toEqual({ a: 'stored', bad: s.failure, c: 'stored' });
  });

  it('fails every item at once, without retries, on a failure every write would meet', async () => {
    const s = setUp(['a', 'bad', 'c'], new Error('database unavailable'));
    await writeBatchOrEachAlone(s.batch, s.write, (e) => (e as Error).message === 'database unavailable');
    expect(s.writes).toHaveLength(1);
    expect([...s.outcomes.values()]).toEqual([s.failure, s.failure, s.failure]);
  });

  it('does not write a batch of one twice', async () => {
    const s = setUp(['bad']);
    await writeBatchOrEachAlone(s.batch, s.write, () => false);
    expect(s.writes).toEqual([['bad']]);
    expect(s.outcomes.get('bad')).toBe(s.failure);
  });
});
