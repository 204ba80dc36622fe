import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { base32 } from '@scure/base';

/** A signature is accepted only within this distance of the server's clock. */
export const AUTH_SIGNATURE_WINDOW_MS = 2 * 60 * 1000;

export type AuthSignatureVerdict =
  | { readonly ok: true; readonly nonceHex: string; readonly timestamp: Date }
  | { readonly ok: false; readonly reason: string };

const PART = /^[a-z2-7]+=*$/;

/**
 * `X-Vault-Auth-Signature`: three lower-case RFC 4648 base32 strings (with padding) joined by `.`:
 * 32 random bytes of nonce, the request time as 8-byte big-endian milliseconds, and
 * sha256(body || nonce || timestamp || utf8(secret)). Compatible with the existing public client. The
 * routes that require it are those whose body asks for a signature (body kind `signed` or `signed-json`
 * in adapters/http/routes.ts); it covers the body only, so it travels with the API key.
 */
export function createAuthSignature(body: Uint8Array, secret: string, now: Date, nonce: Uint8Array = randomBytes(32)): string {
  const timestamp = Buffer.alloc(8);
  timestamp.writeBigUInt64BE(BigInt(now.getTime()));
  return [nonce, timestamp, authHash(body, nonce, timestamp, secret)].map((b) => base32.encode(b).toLowerCase()).join('.');
}

/** Checks format, hash (constant time) and freshness; replay is the caller's job (it needs shared state). */
export function verifyAuthSignature(header: string, body: Uint8Array, secret: string, now: Date): AuthSignatureVerdict {
  const parts = header.split('.');
  if (parts.length !== 3 || !parts.every((p) => PART.test(p))) {
    return { ok: false, reason: 'X-Vault-Auth-Signature is malformed (expected three lower-case base32 parts joined by ".")' };
  }
  let nonce: Uint8Array;
  let timestamp: Uint8Array;
  let hash: Uint8Array;
  try {
    [nonce, timestamp, hash] = parts.map((p) => base32.decode(p.toUpperCase())) as [Uint8Array, Uint8Array, Uint8Array];
  } catch {
    return { ok: false, reason: 'X-Vault-Auth-Signature is malformed (invalid base32)' };
  }
  if (nonce.length !== 32 || timestamp.length !== 8 || hash.length !== 32) {
    return { ok: false, reason: 'X-Vault-Auth-Signature is malformed (wrong part lengths)' };
  }
  const expected = authHash(body, nonce, timestamp, secret);
  if (!timingSafeEqual(expected, hash)) return { ok: false, reason: 'X-Vault-Auth-Signature does not match the request' };
  const millis = Buffer.from(timestamp).readBigUInt64BE();
  if (millis > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, reason: 'X-Vault-Auth-Signature timestamp is invalid' };
  const at = new Date(Number(millis));
  if (Math.abs(now.getTime() - at.getTime()) > AUTH_SIGNATURE_WINDOW_MS) {
    return { ok: false, reason: 'X-Vault-Auth-Signature is stale (timestamp more than 2 minutes from server time)' };
  }
  return { ok: true, nonceHex: Buffer.from(nonce).toString('hex'), timestamp: at };
}

function authHash(body: Uint8Array, nonce: Uint8Array, timestamp: Uint8Array, secret: string): Buffer {
  return createHash('sha256').update(body).update(nonce).update(timestamp).update(secret, 'utf8').digest();
}
