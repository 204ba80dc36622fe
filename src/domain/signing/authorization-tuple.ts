import { parseAddress } from '../address.js';
import { invalidArgument } from '../errors.js';
import { quantity, UINT256_MAX, UINT64_MAX, type HexString } from './payload-values.js';

/*
 * EIP-7702's authorization tuple `[chainId, address, nonce]`, read where it is written: the
 * authorization kind's request (unsigned) and a type-4 transaction's `authorizationList` (signed). Both
 * kinds read it here, so neither kind's folder imports the other's.
 */

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

/** EIP-7702: an authorization's nonce is below 2^64 − 1 (the account nonce it is checked against never reaches it). */
const NONCE_MAX = UINT64_MAX - 1n;

/** The tuple's fields of `raw` (already known to be an object), each refusal named under `at` (`authorizationList[0].`). */
export function authorizationTuple(raw: Record<string, unknown>, at: string): AuthorizationFacts {
  if (raw.chainId === undefined || raw.chainId === null) throw invalidArgument(`${at}chainId: is required (0: every chain)`);
  if (raw.nonce === undefined || raw.nonce === null) throw invalidArgument(`${at}nonce: is required (the authority's account nonce when it is applied)`);
  const chainId = quantity(raw.chainId, `${at}chainId`, UINT256_MAX);
  const address = parseAddress(raw.address ?? raw.contractAddress, `${at}address`);
  const nonce = quantity(raw.nonce, `${at}nonce`, NONCE_MAX);
  return { chainId, address, nonce };
}
