import type { ParsedFunction } from '../signing/abi-function.js';
import type { AbiValue } from '../signing/argument-coercion.js';
import type { PolicyKind } from './policy-document.js';

/**
 * Every signing request, whichever route it came by (Sign, sign-message, sign-typed-data,
 * sign-transaction, JSON-RPC, the in-process API), normalised into the facts the one policy decides on.
 * A fact a kind does not have is null (a message has no contract); a rule filtering on it does not match.
 */
export interface SignIntent {
  readonly kind: PolicyKind;
  /** The chain's name, when the deployment knows one for it (`sepolia`). */
  readonly chain: string | null;
  /** The chain id (decimal), when known: a transaction's, typed data's domain's, a named chain's. */
  readonly chainId: string | null;
  /** The signing wallet (EIP-55). */
  readonly wallet: string;
  /** A call's contract, a transaction's `to`, typed data's `verifyingContract` (EIP-55). */
  readonly contract: string | null;
  /**
   * A call's function selector, or the first 4 bytes of a transaction's calldata (lower-case); null
   * without one, and for a creation (its data is init code, not a call).
   */
  readonly selector: string | null;
  /** A Sign call's sender (EIP-55). */
  readonly sender: string | null;
  /** A Sign call's function and arguments, as parsed against its ABI item. */
  readonly call: { readonly fn: ParsedFunction; readonly args: readonly AbiValue[] } | null;
  /**
   * A transaction's calldata decoded as `fn`'s arguments (the signature parameter left out), or null when
   * it does not decode so: conditions on `arg` of a transaction read through this.
   */
  readonly decodeCalldata: ((fn: ParsedFunction) => readonly AbiValue[] | null) | null;
  readonly typedData: {
    readonly primaryType: string;
    readonly domainName: string | null;
    /** The message as given (JSON values). */
    readonly message: unknown;
  } | null;
  /** Wei moved: a transaction's value (0 for other kinds). */
  readonly value: bigint;
  /** The most a transaction can pay in fees (0 for other kinds). */
  readonly fee: bigint;
  /** A transaction that creates a contract. */
  readonly create: boolean;
  /** Calldata that is not empty but shorter than a selector: it calls nothing a rule could name. */
  readonly shortData: boolean;
}

/** The facts a kind has none of, so that building an intent names only what it knows. */
export const NO_FACTS = Object.freeze({
  chain: null,
  chainId: null,
  contract: null,
  selector: null,
  sender: null,
  call: null,
  decodeCalldata: null,
  typedData: null,
  value: 0n,
  fee: 0n,
  create: false,
  shortData: false,
}) satisfies Omit<SignIntent, 'kind' | 'wallet'>;

/** A chain's name from its id and back, as this deployment names them (`local` has no fixed id). */
export interface ChainDirectory {
  idOf(name: string): string | null;
  nameOf(id: string): string | null;
}
