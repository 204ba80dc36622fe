import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * An API key reads `wv_<16 hex id>_<43 base64url secret>`. The id finds the record without a table scan;
 * the secret (256 random bits) is stored only as its sha256 and compared in constant time.
 */
const KEY_PATTERN = /^wv_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface ParsedApiKey {
  readonly id: string;
  readonly secret: string;
}

export function generateApiKey(): { id: string; apiKey: string; secretHash: string } {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, apiKey: `wv_${id}_${secret}`, secretHash: hashSecret(secret) };
}

export function parseApiKey(raw: string): ParsedApiKey | null {
  const m = KEY_PATTERN.exec(raw);
  return m ? { id: m[1]!, secret: m[2]! } : null;
}

/**
 * crypto.hash (Node 20.12, hence engines.node) is one call into OpenSSL, where createHash builds a Hash
 * object and its stream state: several times cheaper for a 43-character secret, on every request.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Digest bytes against stored bytes: equal lengths are checked first, as timingSafeEqual requires. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = hash('sha256', secret, 'buffer');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
