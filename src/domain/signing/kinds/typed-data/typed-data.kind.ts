import { objectPayload, standardHeldCodec } from '../../held-request.js';
import type { StandardSigningKind } from '../../signing-kind.js';
import { TYPED_DATA_FIELDS, readTypedData } from './typed-data.input.js';

/** EIP-712 typed data of a wallet (docs/standard-signing.md). */
export const TYPED_DATA_KIND = {
  name: 'typed-data',
  standard: true,
  requestField: 'typedData',
  requestDescription: 'Held typed data, as given (`{domain, types, primaryType, message}`).',
  held: standardHeldCodec('typed-data', 'typedData', objectPayload),
  fields: TYPED_DATA_FIELDS,
  read: readTypedData,
  route: {
    operation: 'sign-typed-data',
    operationId: 'signTypedData',
    summary: 'Sign typed data (EIP-712)',
    description:
      "Signs `{domain, types, primaryType, message}` as viem's `signTypedData` takes them (nested structs, arrays, `bytes`, `string`).",
    resultDescription: 'The signature.',
  },
  resultSchema: 'SignatureResult',
  /** What approval lists show of held typed data: `typed-data Permit` (`primaryType` as it is recorded). */
  describeHeld: (primaryType: string | null): string => `typed-data ${primaryType}`,
} as const satisfies StandardSigningKind;
