import type { ParsedFunction } from '../domain/signing/abi-function.js';
import type { AbiValue } from '../domain/signing/argument-coercion.js';
import type { AuthorizationFacts } from '../domain/signing/authorization-tuple.js';
import type { AuthorizationInput } from '../domain/signing/kinds/authorization/authorization.input.js';
import type { MessageInput } from '../domain/signing/kinds/message/message.input.js';
import type { TransactionFacts, TransactionInput } from '../domain/signing/kinds/transaction/transaction.input.js';
import type { TypedDataInput } from '../domain/signing/kinds/typed-data/typed-data.input.js';
import type { HexString } from '../domain/signing/payload-values.js';
import type { RecoverableSignature } from './key-store.port.js';

// What the kinds' readers give (each kind's input is read and checked in its folder, at the edge of the core).
export type { AuthorizationFacts, SignedAuthorization } from '../domain/signing/authorization-tuple.js';
export type { TransactionFacts, TransactionIntent, TransactionType } from '../domain/signing/kinds/transaction/transaction.input.js';
export type { HexString } from '../domain/signing/payload-values.js';

/** The domain of EIP-712 typed data as a policy reads it: what binds a signature to a contract on a chain. */
export interface TypedDataDomainFacts {
  /** The domain's chainId, or null when the domain has none. */
  readonly chainId: bigint | null;
  /** EIP-55, or null when the domain has none. */
  readonly verifyingContract: string | null;
  /** The domain's name, or null when it has none. */
  readonly name: string | null;
}

export interface TypedDataDigest {
  /** The 32 bytes an EIP-712 signature signs: keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message)). */
  readonly digest: Uint8Array;
  readonly domain: TypedDataDomainFacts;
  readonly primaryType: string;
}

/** An authorization ready to be signed: keccak256(0x05 ‖ rlp([chainId, address, nonce])), and what it says. */
export interface AuthorizationDigest {
  readonly digest: Uint8Array;
  readonly facts: AuthorizationFacts;
}

/** A transaction parsed and ready to be signed: the digest to sign, and what it does. */
export interface UnsignedTransaction {
  /** keccak256 of the unsigned serialisation (EIP-155 for legacy, EIP-2718 typed otherwise). */
  readonly digest: Uint8Array;
  readonly facts: TransactionFacts;
}

export interface SignedTransaction {
  /** The signed transaction as `eth_sendRawTransaction` takes it. */
  readonly serialized: HexString;
  /** Its transaction hash. */
  readonly hash: HexString;
}

/**
 * The standard Ethereum payloads a wallet signs besides Sign's calls: EIP-191 personal messages,
 * EIP-712 typed data, transactions (legacy, EIP-2930, EIP-1559, EIP-7702) and EIP-7702 authorizations.
 * Every method takes what its kind's reader (src/domain/signing/kinds/<name>/<name>.input.ts) read and
 * checked; what only the encoding can refuse (a message value not of its EIP-712 type, a priority fee
 * above the fee cap) it throws as DomainError INVALID_ARGUMENT naming the field. It never signs anything
 * (the key stores do, over the digest).
 */
export interface StandardPayloads {
  /** The EIP-191 personal-message digest: keccak256("\x19Ethereum Signed Message:\n" ‖ len ‖ bytes). */
  messageDigest(message: MessageInput): Uint8Array;
  /** The EIP-712 digest of typed data (`{ domain, types, primaryType, message }` as viem's signTypedData takes them). */
  typedDataDigest(input: TypedDataInput): TypedDataDigest;
  /** A transaction's unsigned serialisation and its digest. */
  unsignedTransaction(tx: TransactionInput): UnsignedTransaction;
  /**
   * Calldata decoded as the arguments of `fn` (after its selector; the signature parameter, if `fn` has
   * one, left out), in the form Sign's arguments take (integers bigint, addresses EIP-55, bytes lower-case
   * hex, tuples and arrays as arrays); null when it does not decode so. For policy conditions on a
   * transaction's arguments.
   */
  decodeArguments(fn: ParsedFunction, data: HexString): readonly AbiValue[] | null;
  /**
   * The EIP-55 address whose key made `signature` (65 bytes, 0x hex; `v` 27/28 or 0/1) over the EIP-712
   * typed data `input`, or null when the signature is malformed or recovers
   * no address. Non-canonical high-S signatures are refused (null): a signature has exactly one form.
   */
  recoverTypedDataSigner(input: TypedDataInput, signature: string): string | null;
  /**
   * The EIP-55 address whose key made `signature` (65 bytes, 0x hex; `v` 27/28 or 0/1) over the 32-byte
   * `digest` as it is, or null when the signature is malformed, high-S or recovers no address: how a
   * wallet's binding (src/domain/wallet-binding.ts) is checked.
   */
  recoverDigestSigner(digest: Uint8Array, signature: string): string | null;
  /** The EIP-7702 authorization digest of `{ chainId, address, nonce }` (chainId 0: every chain). */
  authorizationDigest(input: AuthorizationInput): AuthorizationDigest;
  /** `unsigned` (as this port returned it) with the signature over its digest. */
  serializeSigned(unsigned: UnsignedTransaction, signature: RecoverableSignature): SignedTransaction;
}
