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
  route: {
    operation: 'sign-authorization',
    operationId: 'signAuthorization',
    summary: 'Sign an EIP-7702 authorization',
    description:
      "Signs `keccak256(0x05 ‖ rlp([chainId, address, nonce]))` with the wallet, as viem's `signAuthorization` and ethers' `authorize` compute it: the wallet's account then runs the delegate's code. Policy kind `authorization`, deny by default (a rule must name the kind; its `contracts` are the delegates; `chainId` 0, every chain, only under a rule with `anyChain: true`). `nonce` is the wallet's account nonce when the authorization is applied: its current nonce + 1 when the wallet sends the type-4 transaction itself. Answers the signature and its `yParity`, `r`, `s` for a type-4 transaction's `authorizationList`.",
    resultDescription: 'The signed authorization.',
  },
  resultSchema: 'SignedAuthorization',
  /** What approval lists show of a held authorization. */
  describeHeld: (): string => 'authorization (EIP-7702 delegation)',
} as const satisfies StandardSigningKind;
