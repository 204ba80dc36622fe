import fc from 'fast-check';
import { AbiCoder, keccak256 as ethersKeccak256 } from 'ethers';
import { describe, expect, it } from 'vitest';
import { submissionHash, toHex } from '../../src/domain/signing/signable-digest.js';

const hexOf = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;
const coder = AbiCoder.defaultAbiCoder();

describe('submissionHash', () => {
  const word = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hexOf) as fc.Arbitrary<`0x${string}`>;
  const recovery = fc.constantFrom(27 as const, 28 as const);

  it('is keccak256(abi.encode(bytes32 nonce, bytes32 r, bytes32 s, uint8 v)) as ethers computes it', () => {
    fc.assert(
      fc.property(word, word, word, recovery, (nonce, r, s, v) => {
        const expected = ethersKeccak256(coder.encode(['bytes32', 'bytes32', 'bytes32', 'uint8'], [nonce, r, s, v]));
        expect(submissionHash({ nonce, r, s, v })).toBe(expected);
        // Hex digits in upper case are the same bytes.
        const upper = (h: `0x${string}`) => `0x${h.slice(2).toUpperCase()}` as const;
        expect(submissionHash({ nonce: upper(nonce), r: upper(r), s: upper(s), v })).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses what the ABI encoder refused rather than hash a part-written word', () => {
    const ok = `0x${'11'.repeat(32)}` as const;
    const bad = [`0x${'11'.repeat(31)}`, `0x${'11'.repeat(33)}`, `0x${'11'.repeat(31)}zz`, `00${'11'.repeat(32)}`];
    for (const b of bad) {
      expect(() => submissionHash({ nonce: b as never, r: ok, s: ok, v: 27 })).toThrow(/signature nonce must be 0x-prefixed 32-byte hex/);
      expect(() => submissionHash({ nonce: ok, r: ok, s: b as never, v: 27 })).toThrow(/signature s must be/);
    }
    expect(() => submissionHash({ nonce: ok, r: ok, s: ok, v: 256 as never })).toThrow(/signature v must be a uint8/);
  });
});

describe('toHex', () => {
  it('writes Buffers and plain Uint8Array views alike, only their own bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.nat(100), (bytes, cut) => {
        const view = bytes.subarray(Math.min(cut, bytes.length));
        expect(toHex(view)).toBe(hexOf(view));
        expect(toHex(Buffer.from(view))).toBe(hexOf(view));
      }),
    );
  });
});
