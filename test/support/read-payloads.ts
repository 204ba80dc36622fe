import { EthersStandardPayloads } from '../../adapters/ethereum/ethers.standard-payloads.js';
import { typedDataDigest } from '../../adapters/ethereum/typed-data.js';
import { readAuthorization } from '../../src/domain/signing/kinds/authorization/authorization.input.js';
import { readMessage } from '../../src/domain/signing/kinds/message/message.input.js';
import { readTransaction, readTransactionIntent } from '../../src/domain/signing/kinds/transaction/transaction.input.js';
import { readTypedData } from '../../src/domain/signing/kinds/typed-data/typed-data.input.js';

/**
 * The payloads port over what a client sends, as the use cases use it: each kind's reader (the checks,
 * src/domain/signing/kinds/<name>/<name>.input.ts), then the ethers adapter (the encoding). The tests
 * that hold a payload's refusals and digests go through both, as a request does.
 */
export function readingPayloads(payloads = new EthersStandardPayloads()) {
  return {
    messageDigest: (message: unknown) => payloads.messageDigest(readMessage(message)),
    typedDataDigest: (input: unknown) => payloads.typedDataDigest(readTypedData(input)),
    unsignedTransaction: (tx: unknown) => payloads.unsignedTransaction(readTransaction(tx)),
    transactionIntent: (tx: unknown) => readTransactionIntent(tx),
    authorizationDigest: (input: unknown) => payloads.authorizationDigest(readAuthorization(input)),
    recoverTypedDataSigner: (input: unknown, signature: string) => payloads.recoverTypedDataSigner(readTypedData(input), signature),
    recoverDigestSigner: payloads.recoverDigestSigner.bind(payloads),
    decodeArguments: payloads.decodeArguments.bind(payloads),
    serializeSigned: payloads.serializeSigned.bind(payloads),
  };
}

/** Typed data read and encoded to its digest (the reader's bounds, then ethers' encoding). */
export const readTypedDataDigest = (input: unknown) => typedDataDigest(readTypedData(input));
