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
  route: { operation: 'sign-transaction', operationId: 'signTransaction' },
  resultSchema: 'SignedTransaction',
  /** What approval lists show of a held transaction; `to` null: it creates a contract. */
  describeHeld: (to: string | null): string => (to === null ? 'transaction (contract creation)' : 'transaction'),
} as const satisfies StandardSigningKind;
