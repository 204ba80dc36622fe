import { objectPayload, standardHeldCodec } from '../../held-request.js';
import type { StandardSigningKind } from '../../signing-kind.js';
import { AUTHORIZATION_FIELDS, readAuthorization } from './authorization.input.js';

/** An EIP-7702 authorization of a wallet: its code delegated to a contract (docs/standard-signing.md). */
export const AUTHORIZATION_KIND = {
  name: 'authorization',
  standard: true,
  requestField: 'authorization',
  requestDescription: 'A held EIP-7702 authorization, as given (`{chainId, address, nonce}`).',
  held: standardHeldCodec('authorization', 'authorization', objectPayload),
  fields: AUTHORIZATION_FIELDS,
  read: readAuthorization,
  route: { operation: 'sign-authorization', operationId: 'signAuthorization' },
  resultSchema: 'SignedAuthorization',
  /** What approval lists show of a held authorization. */
  describeHeld: (): string => 'authorization (EIP-7702 delegation)',
} as const satisfies StandardSigningKind;
