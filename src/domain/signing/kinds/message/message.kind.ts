import { anyPayload, standardHeldCodec } from '../../held-request.js';
import type { StandardSigningKind } from '../../signing-kind.js';
import { MESSAGE_FIELDS, readMessage } from './message.input.js';

/** An EIP-191 personal message of a wallet (docs/standard-signing.md). */
export const MESSAGE_KIND = {
  name: 'message',
  standard: true,
  requestField: 'message',
  requestDescription: 'A held message, as given: text, or `{"raw": "0x…"}`.',
  held: standardHeldCodec('message', 'message', anyPayload),
  fields: MESSAGE_FIELDS,
  read: readMessage,
  route: {
    operation: 'sign-message',
    operationId: 'signMessage',
    summary: 'Sign a personal message (EIP-191)',
    description:
      'Signs `keccak256("\\x19Ethereum Signed Message:\\n" ‖ length ‖ bytes)` with the wallet, as viem\'s and ethers\' `signMessage` compute it.',
    resultDescription: 'The signature.',
  },
  resultSchema: 'SignatureResult',
  /** What approval lists show of a held message in place of a call's function. */
  describeHeld: (): string => 'message',
} as const satisfies StandardSigningKind;
