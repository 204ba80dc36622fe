import { describe, expect, it } from 'vitest';
import { pooledRandom } from '../../adapters/system/pooled-random.js';

describe('pooled random', () => {
  it('hands out every byte of a block once, then refills it', () => {
    const random = pooledRandom(64);
    const draws = Array.from({ length: 8 }, () => Buffer.from(random(32)).toString('hex'));
    expect(new Set(draws).size).toBe(8);
    expect(draws.every((d) => d.length === 64)).toBe(true);
  });

  it('gives sizes a block cannot hold straight from the CSPRNG', () => {
    const random = pooledRandom(64);
    expect(random(100)).toHaveLength(100);
    expect(random(0)).toHaveLength(0);
  });

  it('returns copies: a draw does not change when the block is refilled', () => {
    const random = pooledRandom(32);
    const first = random(32);
    const kept = Buffer.from(first).toString('hex');
    random(32);
    random(32);
    expect(Buffer.from(first).toString('hex')).toBe(kept);
  });
});
