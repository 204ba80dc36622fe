import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { completeSignature, normalizeLowS, parseDerSignature, publicKeyOf, signDigest } from '../../adapters/keystore/shared/secp256k1.js';

/**
 * Published secp256k1 vectors (RFC 6979 deterministic signatures over sha256("Satoshi Nakamoto"), as in
 * the Trezor and bitcoinjs test suites) and hand-built DER and low-s edge cases, for the helpers every
 * store that signs outside the process relies on.
 */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const word = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
const digest = createHash('sha256').update('Satoshi Nakamoto').digest();
const key = (hexKey: string) => Buffer.from(hexKey.padStart(64, '0'), 'hex');

const VECTORS = [
  {
    key: '1',
    r: '934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d8',
    s: '2442ce9d2b916064108014783e923ec36b49743e2ffa1c4496f01a512aafd9e5',
    v: 28,
    der: '3045022100934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d802202442ce9d2b916064108014783e923ec36b49743e2ffa1c4496f01a512aafd9e5',
  },
  {
    key: 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140',
    r: 'fd567d121db66e382991534ada77a6bd3106f0a1098c231e47993447cd6af2d0',
    s: '6b39cd0eb1bc8603e159ef5c20a5c8ad685a45b06ce9bebed3f153d10d93bed5',
    v: 27,
  },
];

describe('secp256k1 helpers against published vectors', () => {
  it.each(VECTORS)('key $key signs the published (r, s) with v $v', (vector) => {
    const sig = signDigest(key(vector.key), digest);
    expect({ r: hex(sig.r), s: hex(sig.s), v: sig.v }).toEqual({ r: vector.r, s: vector.s, v: vector.v });
  });

  it.each(VECTORS)('key $key: the high-s twin of the signature is completed to the published low-s one and its v', (vector) => {
    const high = { r: Buffer.from(vector.r, 'hex'), s: word(N - BigInt(`0x${vector.s}`)) };
    const completed = completeSignature(digest, high, publicKeyOf(key(vector.key)));
    expect({ r: hex(completed.r), s: hex(completed.s), v: completed.v }).toEqual({ r: vector.r, s: vector.s, v: vector.v });
  });

  it('decodes DER: a 33-byte r with its sign-padding zero, and a short r padded back to 32 bytes', () => {
    const v = VECTORS[0]!;
    expect(parseDerSignature(Buffer.from(v.der!, 'hex'))).toEqual({ r: new Uint8Array(Buffer.from(v.r, 'hex')), s: new Uint8Array(Buffer.from(v.s, 'hex')) });
    const shortR = Buffer.concat([Buffer.from([0x00]), Buffer.alloc(31, 0x11)]);
    const der = Buffer.concat([Buffer.from('3043021f', 'hex'), shortR.subarray(1), Buffer.from('0220', 'hex'), Buffer.from(v.s, 'hex')]);
    const parsed = parseDerSignature(der);
    expect(hex(parsed.r)).toBe(hex(shortR));
    expect(hex(parsed.s)).toBe(v.s);
    expect(() => parseDerSignature(Buffer.from(v.der!.slice(0, -2), 'hex'))).toThrow();
  });

  it('low-s: n/2 stays, n/2 + 1 becomes n/2, and r is never touched', () => {
    const r = Buffer.alloc(32, 0x22);
    expect(hex(normalizeLowS({ r, s: word(HALF_N) }).s)).toBe(hex(word(HALF_N)));
    expect(hex(normalizeLowS({ r, s: word(HALF_N + 1n) }).s)).toBe(hex(word(HALF_N)));
    expect(hex(normalizeLowS({ r, s: word(N - 1n) }).s)).toBe(hex(word(1n)));
    expect(normalizeLowS({ r, s: word(N - 1n) }).r).toBe(r);
  });
});
