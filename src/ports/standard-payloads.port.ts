import type { ParsedFunction } from '../domain/signing/abi-function.js';
import type { AbiValue } from '../domain/signing/argument-coercion.js';
import type { RecoverableSignature } from './key-store.port.js';

/** A 0x-prefixed lower-case hex string. */
export type HexString = `0x${string}`;

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

export type TransactionType = 'legacy' | 'eip2930' | 'eip1559' | 'eip7702';

/** What a transaction does, as a policy reads it. */
export interface TransactionFacts {
  readonly type: TransactionType;
  readonly chainId: bigint;
  readonly nonce: number;
  /** EIP-55 recipient, or null for a contract creation. */
  readonly to: string | null;
  /** The first 4 bytes of the data (lower-case hex) when there are at least 4; null when the data is empty. */
  readonly selector: string | null;
  /** Data shorter than 4 bytes but not empty: it calls no function a selector could name. */
  readonly shortData: boolean;
  /** In wei. */
  readonly value: bigint;
  /**
   * The most this transaction can pay in fees, in wei: gas × maxFeePerGas (eip1559) or gas × gasPrice.
   * A wallet's balance is as much at risk from the fee as from the value.
   */
  readonly fee: bigint;
  /** The calldata, lower-case hex (`0x` when empty). */
  readonly data: HexString;
  /** The `from` the caller gave (EIP-55), or null; the signing wallet must be it. */
  readonly from: string | null;
  /** The gas limit (the simulation runs the call with it). */
  readonly gas: bigint;
  /** An eip7702 (type-4) transaction's signed authorizations; empty for the other types. */
  readonly authorizationList: readonly SignedAuthorization[];
}

/** What an EIP-7702 authorization says: the delegate (`address`) on `chainId` (0: every chain) at the authority's account nonce `nonce`. */
export interface AuthorizationFacts {
  readonly chainId: bigint;
  /** The delegate contract (EIP-55). */
  readonly address: string;
  readonly nonce: bigint;
}

/** An authorization with its signature, as a type-4 transaction carries it. */
export interface SignedAuthorization extends AuthorizationFacts {
  readonly yParity: 0 | 1;
  /** 32 bytes, 0x hex. */
  readonly r: HexString;
  readonly s: HexString;
}

/** An authorization ready to be signed: keccak256(0x05 ‖ rlp([chainId, address, nonce])), and what it says. */
export interface AuthorizationDigest {
  readonly digest: Uint8Array;
  readonly facts: AuthorizationFacts;
}

/**
 * What a transaction's sender gave before its nonce, gas and fees are filled (the JSON-RPC endpoint's
 * eth_sendTransaction): what a policy can already read of it, so a refusal costs no call to the chain.
 */
export type TransactionIntent = Pick<TransactionFacts, 'chainId' | 'to' | 'selector' | 'shortData' | 'value' | 'from' | 'data'>;

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
 * EIP-712 typed data and transactions (legacy, EIP-2930, EIP-1559). Every method validates what it is
 * given as it came from a client (JSON, or the in-process API's values) and throws DomainError
 * INVALID_ARGUMENT naming the field; it never signs anything (the key stores do, over the digest).
 */
export interface StandardPayloads {
  /**
   * The EIP-191 personal-message digest: keccak256("\x19Ethereum Signed Message:\n" ‖ len ‖ bytes). A
   * string is signed as its UTF-8 bytes (also when it looks like hex); `{ raw: "0x…" }` or bytes as they are.
   */
  messageDigest(message: unknown): Uint8Array;
  /** The EIP-712 digest of `{ domain, types, primaryType, message }` as viem's signTypedData takes them. */
  typedDataDigest(input: unknown): TypedDataDigest;
  /** A transaction as viem serialises it (`type`, quantities as numbers, bigints, decimal or hex strings); `chainId` is required. */
  unsignedTransaction(tx: unknown): UnsignedTransaction;
  /** chainId (required), from, to, value and data (or input) of a transaction, checked as unsignedTransaction checks them; any other field is ignored. */
  transactionIntent(tx: unknown): TransactionIntent;
  /**
   * Calldata decoded as the arguments of `fn` (after its selector; the signature parameter, if `fn` has
   * one, left out), in the form Sign's arguments take (integers bigint, addresses EIP-55, bytes lower-case
   * hex, tuples and arrays as arrays); null when it does not decode so. For policy conditions on a
   * transaction's arguments.
   */
  decodeArguments(fn: ParsedFunction, data: HexString): readonly AbiValue[] | null;
  /**
   * The EIP-55 address whose key made `signature` (65 bytes, 0x hex; `v` 27/28 or 0/1) over the EIP-712
   * typed data `input` (as typedDataDigest takes it), or null when the signature is malformed or recovers
   * no address. Non-canonical high-S signatures are refused (null): a signature has exactly one form.
   */
  recoverTypedDataSigner(input: unknown, signature: string): string | null;
  /**
   * The EIP-55 address whose key made `signature` (65 bytes, 0x hex; `v` 27/28 or 0/1) over the 32-byte
   * `digest` as it is, or null when the signature is malformed, high-S or recovers no address: how a
   * wallet's binding (src/domain/wallet-binding.ts) is checked.
   */
  recoverDigestSigner(digest: Uint8Array, signature: string): string | null;
  /** The EIP-7702 authorization digest of `{ chainId, address, nonce }` (chainId 0: every chain). */
  authorizationDigest(input: unknown): AuthorizationDigest;
  /** `unsigned` (as this port returned it) with the signature over its digest. */
  serializeSigned(unsigned: UnsignedTransaction, signature: RecoverableSignature): SignedTransaction;
}
