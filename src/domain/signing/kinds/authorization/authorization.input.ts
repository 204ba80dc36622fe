import { invalidArgument } from '../../../errors.js';
import { authorizationTuple, type AuthorizationFacts } from '../../authorization-tuple.js';
import { isObject, unknownKeys } from '../../payload-values.js';

/** An authorization's fields (the body of sign-authorization; adapters/http/schemas.ts states each one's JSON). */
export const AUTHORIZATION_FIELDS = ['chainId', 'address', 'nonce'] as const;
const FIELDS: ReadonlySet<string> = new Set(AUTHORIZATION_FIELDS);

/** An authorization read and checked: what is signed, and what the policy reads. */
export type AuthorizationInput = AuthorizationFacts;

/** `{ chainId, address, nonce }` as a client sends it (chainId 0: every chain), checked field by field. */
export function readAuthorization(raw: unknown): AuthorizationInput {
  if (!isObject(raw)) throw invalidArgument('authorization: must be an object {"chainId", "address", "nonce"}');
  const extra = unknownKeys(raw, FIELDS);
  if (extra.length > 0) throw invalidArgument(`${extra[0]}: is not a field of an authorization (chainId, address, nonce)`);
  return authorizationTuple(raw, '');
}
