import { objectPayload, standardHeldCodec } from '../../held-request.js';
import type { StandardSigningKind } from '../../signing-kind.js';
import { TRANSACTION_FIELDS, readTransaction } from './transaction.input.js';

/** A transaction of a wallet, signed and serialized (docs/standard-signing.md). */
export const TRANSACTION_KIND = {
  name: 'transaction',
  standard: true,
  requestField: 'transaction',
  requestDescription: 'A held transaction, as given (quantities as given; decimal strings where they were bigints).',
  held: standardHeldCodec('transaction', 'transaction', objectPayload),
  fields: TRANSACTION_FIELDS,
  read: readTransaction,
  route: {
    operation: 'sign-transaction',
    operationId: 'signTransaction',
    summary: 'Sign a transaction',
    description:
      'Signs a legacy, eip2930 or eip1559 transaction as viem serialises it (`chainId`, `nonce`, `gas` and its fees required); any other field is refused rather than dropped. Answers it signed and serialised, ready for `eth_sendRawTransaction`.',
    resultDescription: 'The signed transaction and its hash.',
  },
  resultSchema: 'SignedTransaction',
  /** What approval lists show of a held transaction; `to` null: it creates a contract. */
  describeHeld: (to: string | null): string => (to === null ? 'transaction (contract creation)' : 'transaction'),
} as const satisfies StandardSigningKind;
