import fc from 'fast-check';
import { keccak256 as ethersKeccak256 } from 'ethers';
import { describe, expect, it, vi } from 'vitest';
import { keccakIsNative } from '../../adapters/system/keccak.js';
import { keccak256 } from '../../src/domain/keccak.js';

const hexOf = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;
/** keccak256 absorbs 136 bytes a block: inputs either side of one and two blocks end differently. */
const RATE_EDGES = [0, 1, 31, 32, 33, 135, 136, 137, 271, 272, 273];

describe('keccak256 on the native sponge', () => {
  it('is the native addon in this install', () => {
    expect(keccakIsNative).toBe(true);
  });

  it('equals ethers keccak256 for inputs of 0 to 600 bytes, around the rate boundaries too', () => {
    const length = fc.oneof(fc.constantFrom(...RATE_EDGES), fc.integer({ min: 0, max: 600 }));
    fc.assert(
      fc.property(length.chain((n) => fc.uint8Array({ minLength: n, maxLength: n })), (data) => {
        expect(hexOf(keccak256(data))).toBe(ethersKeccak256(data));
      }),
      { numRuns: 2000 },
    );
  });

  it('hashes exactly the bytes of a view, whatever surrounds it in its ArrayBuffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 600 }), fc.nat(), fc.nat(), (whole, a, b) => {
        const [start, end] = [a % (whole.length + 1), b % (whole.length + 1)].sort((x, y) => x - y) as [number, number];
        const view = whole.subarray(start, end);
        expect(hexOf(keccak256(view))).toBe(ethersKeccak256(view));
        expect(hexOf(keccak256(Buffer.from(whole.buffer, whole.byteOffset + start, end - start)))).toBe(ethersKeccak256(view));
      }),
      { numRuns: 500 },
    );
  });

  it('starts every hash afresh: calls in a row do not see each other', () => {
    const a = Buffer.from('a'.repeat(200));
    const first = hexOf(keccak256(a));
    keccak256(Buffer.from('something else'));
    expect(hexOf(keccak256(a))).toBe(first);
    expect(hexOf(keccak256(new Uint8Array(0)))).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  });
});

describe('the domain hashes only with the keccak256 it is given', () => {
  it('throws, rather than hash with nothing, until one is given; then hashes with that one', async () => {
    vi.resetModules();
    const fresh = await import('../../src/domain/keccak.js');
    expect(() => fresh.keccak256(new Uint8Array(0))).toThrow(/keccak256 was not given to the domain/);
    const given = vi.fn((data: Uint8Array) => Buffer.alloc(32, data.length));
    fresh.useKeccak256(given);
    expect(fresh.keccak256(new Uint8Array(3))).toEqual(Buffer.alloc(32, 3));
    expect(given).toHaveBeenCalledTimes(1);
  });
});
