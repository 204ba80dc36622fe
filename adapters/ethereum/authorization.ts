import { encodeRlp, toBeArray } from 'ethers';
import { parseAddress } from '../../src/domain/address.js';
import { invalidArgument } from '../../src/domain/errors.js';
import { keccak256 } from '../../src/domain/keccak.js';
import type { AuthorizationDigest, SignedAuthorization } from '../../src/ports/standard-payloads.port.js';
import { isObject, quantity, unknownKeys, UINT256_MAX, UINT64_MAX } from './values.js';

const FIELDS = new Set(['chainId', 'address', 'nonce']);
/** EIP-7702: an authorization's nonce is below 2^64 − 1 (the account nonce it is checked against never reaches it). */
const NONCE_MAX = UINT64_MAX - 1n;
/** A signed one as JSON-RPC writes it in a type-4 transaction's `authorizationList` (viem's `contractAddress` for `address` too). */
const SIGNED_FIELDS = new Set(['chainId', 'address', 'contractAddress', 'nonce', 'yParity', 'v', 'r', 's']);
const WORD = /^0x[0-9a-fA-F]{1,64}$/;

/**
 * The EIP-7702 authorization digest: keccak256(0x05 ‖ rlp([chainId, address, nonce])). `chainId` 0 is an
 * authorization valid on every chain (the policy lets it through only with a rule's `anyChain`).
 */
export function authorizationDigest(raw: unknown): AuthorizationDigest {
  if (!isObject(raw)) throw invalidArgument('authorization: must be an object {"chainId", "address", "nonce"}');
  const extra = unknownKeys(raw, FIELDS);
  if (extra.length > 0) throw invalidArgument(`${extra[0]}: is not a field of an authorization (chainId, address, nonce)`);
  const facts = fieldsOf(raw, '');
  return { digest: digestOf(facts.chainId, facts.address, facts.nonce), facts };
}

/** keccak256(0x05 ‖ rlp([chainId, address, nonce])), with the domain's keccak. */
function digestOf(chainId: bigint, address: string, nonce: bigint): Uint8Array {
  const rlp = encodeRlp([chainId === 0n ? '0x' : toBeArray(chainId), address, nonce === 0n ? '0x' : toBeArray(nonce)]);
  return keccak256(Buffer.concat([Buffer.of(0x05), Buffer.from(rlp.slice(2), 'hex')]));
}

function fieldsOf(raw: Record<string, unknown>, at: string) {
  if (raw.chainId === undefined || raw.chainId === null) throw invalidArgument(`${at}chainId: is required (0: every chain)`);
  if (raw.nonce === undefined || raw.nonce === null) throw invalidArgument(`${at}nonce: is required (the authority's account nonce when it is applied)`);
  const chainId = quantity(raw.chainId, `${at}chainId`, UINT256_MAX);
  const address = parseAddress(raw.address ?? raw.contractAddress, `${at}address`);
  const nonce = quantity(raw.nonce, `${at}nonce`, NONCE_MAX);
  return { chainId, address, nonce };
}

/** A type-4 transaction's authorizationList, each entry signed (yParity or v, r, s), checked field by field. */
export function signedAuthorizations(raw: unknown): SignedAuthorization[] {
  if (!Array.isArray(raw) || raw.length === 0) throw invalidArgument('authorizationList: must be a non-empty list of signed authorizations {"chainId", "address", "nonce", "yParity", "r", "s"}');
  if (raw.length > 256) throw invalidArgument('authorizationList: at most 256 authorizations');
  return raw.map((entry, i) => {
    const at = `authorizationList[${i}].`;
    if (!isObject(entry)) throw invalidArgument(`authorizationList[${i}]: must be {"chainId", "address", "nonce", "yParity", "r", "s"}`);
    const extra = unknownKeys(entry, SIGNED_FIELDS);
    if (extra.length > 0) throw invalidArgument(`${at}${extra[0]}: is not a field of a signed authorization`);
    const { chainId, address, nonce } = fieldsOf(entry, at);
    // yParity (0 or 1), or v as some clients still write it (27 or 28).
    const v = entry.yParity === undefined && entry.v !== undefined && entry.v !== null ? quantity(entry.v, `${at}v`, 28n) : undefined;
    const yParity = v === undefined ? quantity(entry.yParity, `${at}yParity`, 1n) : v >= 27n ? v - 27n : quantity(v, `${at}v`, 1n);
    const word = (field: 'r' | 's') => {
      const value = entry[field];
      if (typeof value !== 'string' || !WORD.test(value)) throw invalidArgument(`${at}${field}: must be 0x hex of at most 32 bytes`);
      return `0x${value.slice(2).toLowerCase().padStart(64, '0')}` as const;
    };
    return { chainId, address, nonce, yParity: Number(yParity) as 0 | 1, r: word('r'), s: word('s') };
  });
}
