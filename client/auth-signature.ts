/*
 * X-Vault-Auth-Signature, computed with Web Crypto only (Node 20+, browsers, workers): three lower-case
 * RFC 4648 base32 strings with `=` padding joined by `.`:
 *   nonce      32 random bytes,
 *   timestamp  the request time as milliseconds since the Unix epoch, 8 bytes unsigned big-endian,
 *   hash       sha256(body || nonce || timestamp || utf8(secret)) over the exact body bytes sent.
 * The server (src/domain/auth-signature.ts) accepts it within 2 minutes of its clock, once per nonce.
 */

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32, lower case, with `=` padding to a multiple of 8 characters. */
export function base32Lower(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

/** The header value for one attempt: a fresh nonce unless one is given (tests pin it). */
export async function createAuthSignature(
  body: Uint8Array,
  secret: string,
  nowMs: number = Date.now(),
  nonce: Uint8Array = globalThis.crypto.getRandomValues(new Uint8Array(32)),
): Promise<string> {
  const timestamp = new Uint8Array(8);
  new DataView(timestamp.buffer).setBigUint64(0, BigInt(nowMs), false);
  const secretBytes = new TextEncoder().encode(secret);
  const message = new Uint8Array(body.length + nonce.length + timestamp.length + secretBytes.length);
  message.set(body, 0);
  message.set(nonce, body.length);
  message.set(timestamp, body.length + nonce.length);
  message.set(secretBytes, body.length + nonce.length + timestamp.length);
  const hash = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', message));
  return [nonce, timestamp, hash].map(base32Lower).join('.');
}
