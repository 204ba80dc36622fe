import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * True when `authorization` is `Bearer <expected>`. Both sides are hashed first, so the comparison takes
 * the same time whatever the presented value's length or content (a timing side channel would let a
 * caller find the token byte by byte).
 */
export function operatorTokenMatches(expected: string, authorization: string | undefined): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const presented = createHash('sha256').update(match ? match[1]! : '').digest();
  return timingSafeEqual(presented, createHash('sha256').update(expected).digest()) && match !== null;
}
