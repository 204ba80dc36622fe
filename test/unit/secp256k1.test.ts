import { createHash, createPrivateKey, createPublicKey, randomBytes, sign as nodeSign } from 'node:crypto';
import { SigningKey, computeAddress, hexlify, recoverAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  completeSignature,
  generatePrivateKey,
  normalizeLowS,
  parseDerSignature,
  parseSpkiPublicKey,
  publicKeyOf,
  signDigest,
} from '../../adapters/keystore/shared/secp256k1.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const big = (b: Uint8Array) => BigInt(hexlify(b));

describe('secp256k1 helpers', () => {
  it('private key 1 gives the generator point', () => {
    const one = Buffer.alloc(32);
    one[31] = 1;
    expect(hexlify(publicKeyOf(one))).toBe(
      '0x0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8',
    );
  });

  it('signs digests that ethers recovers to the key, low-s, v 27/28', () => {
    for (let i = 0; i < 50; i++) {
      const key = generatePrivateKey();
      const digest = randomBytes(32);
      const sig = signDigest(key, digest);
      expect(big(sig.s) <= N / 2n).toBe(true);
      expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v })).toBe(computeAddress(new SigningKey(key).publicKey));
    }
  });

  it('normalises a high-s signature (what KMS and HSMs return half the time) and still recovers the key', () => {
    const key = generatePrivateKey();
    const digest = randomBytes(32);
    const low = signDigest(key, digest);
    const high = { r: low.r, s: Buffer.from((N - big(low.s)).toString(16).padStart(64, '0'), 'hex') };
    expect(big(high.s) > N / 2n).toBe(true);
    expect(hexlify(normalizeLowS(high).s)).toBe(hexlify(low.s));
    const completed = completeSignature(digest, high, publicKeyOf(key));
    expect(completed).toEqual({ r: low.r, s: low.s, v: low.v });
    expect(() => completeSignature(digest, high, publicKeyOf(generatePrivateKey()))).toThrow(/does not recover/);
  });

  it('parses DER signatures and SubjectPublicKeyInfo as node:crypto produces them', () => {
    const key = generatePrivateKey();
    // A SEC1 ECPrivateKey around the raw key, so node:crypto signs with the same key (DER output, any s).
    const pkcs8 = Buffer.concat([Buffer.from('302e0201010420', 'hex'), key, Buffer.from('a00706052b8104000a', 'hex')]);
    const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'sec1' });
    const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
    expect(hexlify(parseSpkiPublicKey(spki))).toBe(hexlify(publicKeyOf(key)));
    for (let i = 0; i < 20; i++) {
      const message = randomBytes(40);
      const der = nodeSign('sha256', message, privateKey);
      const { r, s } = parseDerSignature(der);
      const digest = createHash('sha256').update(message).digest();
      const completed = completeSignature(digest, { r, s }, publicKeyOf(key));
      expect(recoverAddress(digest, { r: hexlify(completed.r), s: hexlify(completed.s), v: completed.v })).toBe(computeAddress(hexlify(publicKeyOf(key))));
    }
    expect(() => parseSpkiPublicKey(Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex'))).toThrow(/not on secp256k1/);
    expect(() => parseDerSignature(Buffer.from('3000', 'hex'))).toThrow();
  });
});
