import { randomBytes } from 'node:crypto';
import secp256k1 from 'secp256k1';
import type { RecoverableSignature } from '../../../src/ports/key-store.port.js';

/** Curve order n and n/2: signatures with s > n/2 are malleable and refused by signable contracts. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = N >> 1n;

const toBigInt = (b: Uint8Array) => BigInt(`0x${Buffer.from(b).toString('hex') || '0'}`);
const to32 = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');

export function generatePrivateKey(): Buffer {
  for (;;) {
    const candidate = randomBytes(32);
    if (secp256k1.privateKeyVerify(candidate)) return candidate;
  }
}

/** 65-byte uncompressed public key (0x04 prefix). */
export function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  return secp256k1.publicKeyCreate(privateKey, false);
}

/** libsecp256k1 always produces low-s signatures; v is 27 + recovery id. */
export function signDigest(privateKey: Uint8Array, digest: Uint8Array): RecoverableSignature {
  const { signature, recid } = secp256k1.ecdsaSign(digest, privateKey);
  return { r: signature.slice(0, 32), s: signature.slice(32, 64), v: recid === 0 ? 27 : 28 };
}

/** Strict DER ECDSA-Sig-Value (SEQUENCE { INTEGER r, INTEGER s }) as produced by KMS and HSM wrappers. */
export function parseDerSignature(der: Uint8Array): { r: Uint8Array; s: Uint8Array } {
  const compact = secp256k1.signatureImport(der);
  return { r: compact.slice(0, 32), s: compact.slice(32) };
}

/** Replaces s by n - s when s is in the upper half; the signature stays valid with the other recovery id. */
export function normalizeLowS(sig: { r: Uint8Array; s: Uint8Array }): { r: Uint8Array; s: Uint8Array } {
  const s = toBigInt(sig.s);
  return s > HALF_N ? { r: sig.r, s: to32(N - s) } : sig;
}

/**
 * Backends that sign inside (HSM, KMS) return only r and s: normalise to low-s and find the recovery id
 * that yields the key we know the wallet has.
 */
export function completeSignature(
  digest: Uint8Array,
  raw: { r: Uint8Array; s: Uint8Array },
  publicKey: Uint8Array,
): RecoverableSignature {
  const { r, s } = normalizeLowS(raw);
  const compact = new Uint8Array(64);
  compact.set(r, 32 - r.length);
  compact.set(s, 64 - s.length);
  const expected = Buffer.from(publicKey);
  for (const recid of [0, 1] as const) {
    try {
      const recovered = secp256k1.ecdsaRecover(compact, recid, digest, false);
      if (expected.equals(Buffer.from(recovered))) {
        return { r: compact.slice(0, 32), s: compact.slice(32), v: recid === 0 ? 27 : 28 };
      }
    } catch {
      // This recovery id yields no point; try the other.
    }
  }
  throw new Error('signature does not recover to the key public key');
}

/** The 65-byte key inside a DER SubjectPublicKeyInfo for secp256k1 (the last 65 bytes of the BIT STRING). */
export function parseSpkiPublicKey(spki: Uint8Array): Uint8Array {
  const SECP256K1_OID = Buffer.from('06052b8104000a', 'hex');
  const buf = Buffer.from(spki);
  if (buf.indexOf(SECP256K1_OID) < 0) throw new Error('public key is not on secp256k1');
  const key = buf.subarray(buf.length - 65);
  if (key[0] !== 0x04 || buf[buf.length - 66] !== 0x00) throw new Error('malformed SubjectPublicKeyInfo');
  return secp256k1.publicKeyConvert(key, false);
}
