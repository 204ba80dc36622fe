import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashSecret, secretMatches } from '../../src/application/access/api-key-format.js';

describe('API key secrets', () => {
  const secret = fc.string({ unit: 'binary', maxLength: 80 });

  it('are stored as the hex sha256 of their UTF-8, as createHash computes it', () => {
    fc.assert(
      fc.property(secret, (s) => {
        expect(hashSecret(s)).toBe(createHash('sha256').update(s, 'utf8').digest('hex'));
      }),
    );
  });

  it('match their own stored hash, in either hex case, and nothing else', () => {
    fc.assert(
      fc.property(secret, secret, (s, other) => {
        expect(secretMatches(s, hashSecret(s))).toBe(true);
        expect(secretMatches(s, hashSecret(s).toUpperCase())).toBe(true);
        expect(secretMatches(s, hashSecret(other))).toBe(s === other);
        expect(secretMatches(s, hashSecret(s).slice(0, 62))).toBe(false);
        expect(secretMatches(s, '')).toBe(false);
      }),
    );
  });
});
