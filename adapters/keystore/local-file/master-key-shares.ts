import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { combine, split } from 'shamir-secret-sharing';
import { masterKeyCheck } from './master-key-check.js';

/**
 * The master key as Shamir shares (`wallet-vault master-key split`), one JSON file per custodian. The
 * arithmetic is the audited `shamir-secret-sharing` package's; this module only frames its shares. A share
 * file carries, besides the share:
 * - `split`: a random id of the split, the same in its N files, so a share of another split is refused
 *   before it is combined with these;
 * - `index` (1..N), `shares` (N) and `threshold` (M);
 * - `keyCheck`: SHA-256 of the master key's check value (HMAC-SHA256(key, label), what the key directory
 *   records), never the key: the reconstruction is compared with it before anything unseals;
 * - `checksum`: SHA-256 over every other field, so a share altered or cut short is refused on its own,
 *   with a message saying so, rather than yielding a wrong key once combined.
 */
export const SHARE_FORMAT = 'wallet-vault master key share';
const SHARE_VERSION = 1;
const KEY_CHECK_LABEL = 'wallet-vault master key share check v1:';
/** Shamir over GF(256): at most 255 shares; one share alone is the key itself, so at least 2. */
export const MAX_SHARES = 255;

export interface MasterKeyShare {
  readonly split: string;
  readonly index: number;
  readonly shares: number;
  readonly threshold: number;
  readonly keyCheck: string;
  /** The share's bytes (the package's: the key's length plus its x coordinate). */
  readonly share: Uint8Array;
}

/** A share file that is not one: what is wrong, said without quoting the share. */
export class ShareError extends Error {
  override readonly name = 'ShareError';
}

/** The value every share of `key` carries as `keyCheck`. */
export function shareKeyCheck(key: Buffer): string {
  return createHash('sha256').update(KEY_CHECK_LABEL).update(masterKeyCheck(key)).digest('hex');
}

/** True when `key` is the key the share's split was made of (constant time). */
export function keyMatchesShare(key: Buffer, keyCheck: string): boolean {
  const a = Buffer.from(shareKeyCheck(key), 'hex');
  const b = Buffer.from(keyCheck, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The N share files' texts (index 1..N) of `key`, any `threshold` of which reconstruct it. */
export async function splitMasterKey(key: Buffer, shares: number, threshold: number): Promise<string[]> {
  if (!Number.isInteger(shares) || shares < 2 || shares > MAX_SHARES) throw new RangeError(`--shares: must be an integer from 2 to ${MAX_SHARES}`);
  if (!Number.isInteger(threshold) || threshold < 2 || threshold > shares) throw new RangeError('--threshold: must be an integer from 2 to --shares');
  const parts = await split(new Uint8Array(key), shares, threshold);
  const id = randomUUID();
  const keyCheck = shareKeyCheck(key);
  return parts.map((part, i) => {
    const fields = { format: SHARE_FORMAT, version: SHARE_VERSION, split: id, index: i + 1, shares, threshold, keyCheck, share: Buffer.from(part).toString('base64') };
    part.fill(0);
    return `${JSON.stringify({ ...fields, checksum: checksumOf(fields) }, null, 2)}\n`;
  });
}

/** A share from a share file's text (or the parsed object); ShareError saying what is wrong otherwise. */
export function parseShare(input: unknown): MasterKeyShare {
  let json: unknown = input;
  if (typeof input === 'string') {
    try {
      json = JSON.parse(input);
    } catch {
      throw new ShareError('is not a share file (not JSON)');
    }
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ShareError('is not a share file (expected a JSON object)');
  const o = json as Record<string, unknown>;
  if (o.format !== SHARE_FORMAT || o.version !== SHARE_VERSION) throw new ShareError(`is not a share file (expected "format": "${SHARE_FORMAT}", "version": ${SHARE_VERSION})`);
  const { split: id, index, shares, threshold, keyCheck, share, checksum } = o;
  if (typeof id !== 'string' || !/^[0-9a-f-]{36}$/.test(id)) throw new ShareError('is malformed (split)');
  if (!isCount(shares) || shares < 2) throw new ShareError('is malformed (shares)');
  if (!isCount(threshold) || threshold < 2 || threshold > shares) throw new ShareError('is malformed (threshold)');
  if (!isCount(index) || index < 1 || index > shares) throw new ShareError('is malformed (index)');
  if (typeof keyCheck !== 'string' || !/^[0-9a-f]{64}$/.test(keyCheck)) throw new ShareError('is malformed (keyCheck)');
  if (typeof share !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(share)) throw new ShareError('is malformed (share)');
  if (typeof checksum !== 'string' || !/^[0-9a-f]{64}$/.test(checksum)) throw new ShareError('is malformed (checksum)');
  const fields = { format: SHARE_FORMAT, version: SHARE_VERSION, split: id, index, shares, threshold, keyCheck, share };
  const expected = Buffer.from(checksumOf(fields), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(checksum, 'hex'))) throw new ShareError('is corrupted (its checksum does not match its content): ask its custodian for an intact copy');
  const bytes = Buffer.from(share, 'base64');
  // The key's 32 bytes and the share's x coordinate.
  if (bytes.length !== 33) throw new ShareError('is malformed (share: expected 33 bytes)');
  return { split: id, index, shares, threshold, keyCheck, share: new Uint8Array(bytes) };
}

/** The key `shares` (of one split, at least its threshold) reconstruct; null when it is not the split's key. */
export async function combineShares(shares: readonly MasterKeyShare[]): Promise<Buffer | null> {
  const secret = await combine(shares.map((s) => s.share));
  const key = Buffer.from(secret);
  secret.fill(0);
  if (key.length === 32 && keyMatchesShare(key, shares[0]!.keyCheck)) return key;
  key.fill(0);
  return null;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value <= MAX_SHARES;
}

function checksumOf(fields: Readonly<Record<string, string | number>>): string {
  // The fields in their fixed order above, so the checksum does not depend on how a file was re-indented.
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}
