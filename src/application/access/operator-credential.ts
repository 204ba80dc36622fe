import { randomBytes } from 'node:crypto';
import { hashSecret } from './api-key-format.js';

/**
 * An operator's credential reads `wvop_<16 hex id>_<43 base64url secret>`: apart from API keys
 * (`wv_…`), so neither is ever mistaken for the other, and with the same parts: the id finds the row, the
 * secret (256 random bits) is stored only as its sha256 and compared in constant time.
 */
const CREDENTIAL = /^wvop_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export function generateOperatorCredential(): { id: string; credential: string; secretHash: string } {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, credential: `wvop_${id}_${secret}`, secretHash: hashSecret(secret) };
}

export function parseOperatorCredential(raw: string): { id: string; secret: string } | null {
  const m = CREDENTIAL.exec(raw);
  return m ? { id: m[1]!, secret: m[2]! } : null;
}
