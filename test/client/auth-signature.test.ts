import { base32 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base32Lower, createAuthSignature } from '../../client/auth-signature.js';
import { createAuthSignature as serverSignature, verifyAuthSignature } from '../../src/domain/auth-signature.js';

const SECRET = 'a-shared-secret-of-at-least-32-characters';

describe("the client's X-Vault-Auth-Signature (Web Crypto)", () => {
  it('is byte for byte the header the server computes for the same body, nonce, time and secret', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 0, max: 2 ** 45 }), async (body, nonce, ms) => {
        expect(await createAuthSignature(body, SECRET, ms, nonce)).toBe(serverSignature(body, SECRET, new Date(ms), nonce));
      }),
      { numRuns: 200 },
    );
  });

  it('is accepted by the server, and a fresh nonce is drawn for every call', async () => {
    const body = new TextEncoder().encode('{"chain":"local","ünïcode":"✓"}');
    const now = Date.now();
    const [a, b] = [await createAuthSignature(body, SECRET, now), await createAuthSignature(body, SECRET, now)];
    expect(verifyAuthSignature(a, body, SECRET, new Date(now))).toMatchObject({ ok: true });
    expect(a.split('.')[0]).not.toBe(b.split('.')[0]);
    expect(verifyAuthSignature(a, new TextEncoder().encode('{}'), SECRET, new Date(now))).toMatchObject({ ok: false });
  });

  it('encodes base32 as RFC 4648 does, lower case with padding', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(base32Lower(bytes)).toBe(base32.encode(bytes).toLowerCase());
      }),
    );
  });
});
