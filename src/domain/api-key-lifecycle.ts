import { DAY_MS, durationMs, isDuration } from './duration.js';
import { invalidArgument } from './errors.js';
import { controlCharacterIn } from './unicode.js';
import type { ApiKeyRecord } from './vault.js';
import { normalizeWalletName } from './wallet.js';

/*
 * An API key's lifecycle (docs/security.md "API key lifecycle"): the operator's label, an
 * expiry, and rotation with an overlap. Pure: the application reads the clock and the rows and asks here.
 */

/** An expiry is at most ten years away: further is a typo (a timestamp in seconds read as days) more often than a wish. */
const MAX_EXPIRY_MS = 3650 * DAY_MS;
/** A rotation's overlap is at most 31 days: an old key that lives longer should be a second key, not a rotation. */
const MAX_OVERLAP_MS = 31 * DAY_MS;
/** `2027-01-31`, `2027-01-31T12:00Z`, `2027-01-31T12:00:00.000+02:00`: a zone is required with a time, so no instance's local time decides. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const FORMAT_CHARACTER = /\p{Cf}/u;

/**
 * The operator's name for a key (`--label`): trimmed, 1 to 200 characters, printable. Refused too are
 * format characters (bidirectional overrides, zero-width joiners): the label is shown beside the key id to
 * approvers, and text that reorders what they read must not reach them.
 */
export function parseApiKeyLabel(raw: unknown): string {
  const label = normalizeWalletName(raw, 'label');
  const format = FORMAT_CHARACTER.exec(label);
  if (format !== null) throw invalidArgument(`label: must not contain format characters (it contains U+${format[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`);
  return label;
}

/** `--expires`: a duration from `now` (`30d`, `12h`) or an ISO 8601 instant (`2027-01-31T00:00Z`); in the future, at most ten years away. */
export function parseApiKeyExpiry(raw: unknown, now: Date): Date {
  if (typeof raw !== 'string') throw invalidArgument('expires: must be a string: a duration such as 30d, or an ISO 8601 time such as 2027-01-31T00:00Z');
  const text = raw.trim();
  if (controlCharacterIn(text) !== null) throw invalidArgument('expires: must not contain control characters');
  let at: Date;
  if (isDuration(text)) {
    at = new Date(now.getTime() + durationMs(text, 'expires', MAX_EXPIRY_MS, '3650d'));
  } else if (ISO_INSTANT.test(text) && !Number.isNaN(Date.parse(text))) {
    at = new Date(Date.parse(text));
  } else {
    throw invalidArgument(`expires: ${JSON.stringify(text.slice(0, 40))} is neither a duration (30d, 12h) nor an ISO 8601 time with a zone (2027-01-31T00:00Z)`);
  }
  if (at.getTime() <= now.getTime()) throw invalidArgument(`expires: ${at.toISOString()} is not in the future`);
  if (at.getTime() - now.getTime() > MAX_EXPIRY_MS) throw invalidArgument(`expires: ${at.toISOString()} is more than 3650d away`);
  return at;
}

/** `--overlap`: how long the old key keeps working after a rotation, unless the new key is used first (0s to 31d). */
export function parseOverlap(raw: unknown): number {
  if (typeof raw !== 'string') throw invalidArgument('overlap: must be a duration such as 1h');
  return durationMs(raw, 'overlap', MAX_OVERLAP_MS, '31d');
}

/** Why a key whose secret matched no longer authenticates, by its own row (and its successor's first use); null: it still does. */
export type KeyLifecycleRefusal =
  | { readonly reason: 'expired_key'; readonly message: string }
  | { readonly reason: 'rotated_key'; readonly message: string };

export function expiredRefusal(key: ApiKeyRecord, now: Date): KeyLifecycleRefusal | null {
  if (key.expires == null || key.expires.getTime() > now.getTime()) return null;
  return { reason: 'expired_key', message: `API key expired at ${key.expires.toISOString()}` };
}

/**
 * A rotated key stops at the end of its overlap or at its successor's first use, whichever comes first.
 * `successorFirstUsed`: when the successor was first used (null: not yet, or no successor row).
 */
export function rotatedRefusal(key: ApiKeyRecord, now: Date, successorFirstUsed: Date | null): KeyLifecycleRefusal | null {
  if (key.replacedBy == null) return null;
  const ends = key.overlapEnds ?? null;
  if (ends !== null && ends.getTime() > now.getTime() && (successorFirstUsed === null || successorFirstUsed.getTime() > now.getTime())) return null;
  const why = successorFirstUsed !== null && (ends === null || successorFirstUsed.getTime() < ends.getTime())
    ? `which is in use since ${successorFirstUsed.toISOString()}`
    : `and its overlap ended${ends === null ? '' : ` at ${ends.toISOString()}`}`;
  return { reason: 'rotated_key', message: `API key rotated: it was replaced by API key ${key.replacedBy}, ${why}` };
}

