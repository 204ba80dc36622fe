import { createHash } from 'node:crypto';
import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import { controlCharacterIn } from '../../domain/unicode.js';
import type { Wallet } from '../../domain/wallet.js';

/** How long a create's answer is kept for retries with the same Idempotency-Key. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX = 255;

/** A create that may be retried: the client's key and the request body it came with. */
export interface IdempotentRequest {
  readonly key: string;
  readonly body: unknown;
}

/** The header's value: 1 to 255 characters without control characters, taken exactly as sent. */
export function parseIdempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.length === 0 || raw.length > IDEMPOTENCY_KEY_MAX) {
    throw invalidArgument(`Idempotency-Key: must be 1 to ${IDEMPOTENCY_KEY_MAX} characters (got ${raw.length})`);
  }
  // Node's HTTP parser lets none through; a library caller's value is stored as text, so checked here too.
  const control = controlCharacterIn(raw);
  if (control !== null) throw invalidArgument(`Idempotency-Key: must not contain control characters (it contains ${control})`);
  return raw;
}

/** JSON with object keys sorted at every depth and no whitespace. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * "The same body" means the same JSON value: key order and whitespace do not matter, every value does
 * (`" a "` and `"a"` are different bodies, though both name the wallet `a`). Clients that re-serialise
 * a retry therefore still match, and a retry that changes anything at all is a conflict, not a guess.
 */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

export const idempotencyConflict = () =>
  new DomainError(
    ErrorCode.IDEMPOTENCY_CONFLICT,
    'Idempotency-Key: already used with a different request body in the last 24 hours; use a new key for a new request',
  );

/**
 * The first answer, kept verbatim: a retry gets the wallet exactly as it was created, even if it changed
 * since. The key reference is left out: for wrapping stores (vault-transit) it is the wrapped key itself,
 * and a second copy of it must not sit in another table beyond the reach of the purge. The binding too:
 * an answer is shown, never signed with.
 */
export function encodeCreatedWallet(wallet: Wallet): string {
  return JSON.stringify({ ...wallet, keyRef: '', binding: null });
}

export function decodeCreatedWallet(response: string): Wallet {
  const w = JSON.parse(response) as Record<string, unknown>;
  const date = (v: unknown) => new Date(v as string);
  return {
    id: w.id as string,
    accountId: w.accountId as string,
    vaultId: w.vaultId as string,
    name: w.name as string,
    address: w.address as string,
    keyStore: w.keyStore as string,
    keyRef: '', // never stored with the answer (see encodeCreatedWallet)
    binding: null, // nor the binding: the answer is never signed with
    created: date(w.created),
    updated: date(w.updated),
    expires: w.expires === null ? null : date(w.expires),
    derivationPath: typeof w.derivationPath === 'string' ? w.derivationPath : null,
    exported: typeof w.exported === 'string' ? date(w.exported) : null,
    version: w.version as number,
  };
}
