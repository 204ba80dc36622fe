import { Signature, Transaction, getBytes, type TransactionLike } from 'ethers';
import { keccak256 } from '../../src/domain/keccak.js';
import type { TransactionFacts, TransactionInput, TransactionType } from '../../src/domain/signing/kinds/transaction/transaction.input.js';
import { toHex } from '../../src/domain/signing/signable-digest.js';
import type { RecoverableSignature } from '../../src/ports/key-store.port.js';
import type { HexString, SignedTransaction, UnsignedTransaction } from '../../src/ports/standard-payloads.port.js';
import { refusedBy } from './ethers-refusal.js';
import { signedSerialization } from './signed-serialization.js';

const TYPE_NUMBER: Readonly<Record<TransactionType, number>> = { legacy: 0, eip2930: 1, eip1559: 2, eip7702: 4 };

/** A transaction serialised by this adapter: its unsigned serialisation is kept for serializeSigned. */
class ParsedTransaction implements UnsignedTransaction {
  constructor(
    readonly digest: Uint8Array,
    readonly facts: TransactionFacts,
    readonly unsignedSerialized: Uint8Array,
  ) {}
}

/** A transaction the kind's reader checked, serialised by ethers, to its signing digest. */
export function unsignedTransaction(input: TransactionInput): UnsignedTransaction {
  const { facts } = input;
  const { type, chainId, nonce, to, value, data, gas: gasLimit } = facts;
  const like: TransactionLike = { type: TYPE_NUMBER[type], chainId, nonce, to, value, data, gasLimit };
  if (input.gasPrice !== null) like.gasPrice = input.gasPrice;
  else {
    like.maxFeePerGas = input.maxFeePerGas;
    like.maxPriorityFeePerGas = input.maxPriorityFeePerGas;
  }
  if (type !== 'legacy') like.accessList = input.accessList.map((entry) => ({ address: entry.address, storageKeys: [...entry.storageKeys] }));
  if (type === 'eip7702') {
    try {
      like.authorizationList = facts.authorizationList.map((a) => ({ chainId: a.chainId, address: a.address, nonce: a.nonce, signature: Signature.from({ r: a.r, s: a.s, yParity: a.yParity }) }));
    } catch (error) {
      throw refusedBy('authorizationList', error);
    }
  }
  let unsignedSerialized: Uint8Array;
  try {
    // Serialising checks what the reader does not (a priority fee above the fee cap).
    unsignedSerialized = getBytes(Transaction.from(like).unsignedSerialized);
  } catch (error) {
    throw refusedBy('transaction', error);
  }
  // The domain's keccak256 (native) rather than ethers' unsignedHash (JavaScript): tens of µs a sign.
  return new ParsedTransaction(keccak256(unsignedSerialized), facts, unsignedSerialized);
}

export function serializeSigned(unsigned: UnsignedTransaction, signature: RecoverableSignature): SignedTransaction {
  if (!(unsigned instanceof ParsedTransaction)) throw new Error('serializeSigned takes a transaction unsignedTransaction returned');
  const { type, chainId } = unsigned.facts;
  const serialized = signedSerialization(unsigned.unsignedSerialized, type, chainId, signature);
  return { serialized: toHex(serialized) as HexString, hash: toHex(keccak256(serialized)) };
}
