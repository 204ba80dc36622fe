import { AUTHORIZATION_KIND } from './authorization/authorization.kind.js';
import { CALL_KIND } from './call/call.kind.js';
import { MESSAGE_KIND } from './message/message.kind.js';
import { TRANSACTION_KIND } from './transaction/transaction.kind.js';
import { TYPED_DATA_KIND } from './typed-data/typed-data.kind.js';

/**
 * Every kind of signature the vault makes, one line each, in the order the API lists them (its enums,
 * the client's unions, the policy parser's message). The only list of kinds: everything else is read
 * from it (test/unit/signing-kinds.test.ts fails on a list written by hand).
 */
export const REGISTERED_SIGNING_KINDS = [CALL_KIND, MESSAGE_KIND, TYPED_DATA_KIND, TRANSACTION_KIND, AUTHORIZATION_KIND] as const;

export type RegisteredSigningKind = (typeof REGISTERED_SIGNING_KINDS)[number];
export type SigningKindName = RegisteredSigningKind['name'];
/** The kinds of one wallet's standard payloads (every kind but the Sign call). */
export type StandardKindName = Extract<RegisteredSigningKind, { readonly standard: true }>['name'];

export const SIGNING_KIND_NAMES: readonly SigningKindName[] = REGISTERED_SIGNING_KINDS.map((kind) => kind.name);
export const STANDARD_KIND_NAMES: readonly StandardKindName[] = REGISTERED_SIGNING_KINDS.filter((kind): kind is Extract<RegisteredSigningKind, { readonly standard: true }> => kind.standard).map((kind) => kind.name);

export const isSigningKindName = (value: unknown): value is SigningKindName => typeof value === 'string' && (SIGNING_KIND_NAMES as readonly string[]).includes(value);
export const isStandardKindName = (value: unknown): value is StandardKindName => typeof value === 'string' && (STANDARD_KIND_NAMES as readonly string[]).includes(value);

/** The registered standard kind of `name`. */
export const standardKindOf = (name: StandardKindName): Extract<RegisteredSigningKind, { readonly standard: true }> =>
  REGISTERED_SIGNING_KINDS.find((kind): kind is Extract<RegisteredSigningKind, { readonly standard: true }> => kind.name === name)!;
