import { Signature, Transaction, getBytes, type TransactionLike } from 'ethers';
import { parseAddress } from '../../src/domain/address.js';
import { invalidArgument } from '../../src/domain/errors.js';
import { keccak256 } from '../../src/domain/keccak.js';
import { toHex } from '../../src/domain/signing/signable-digest.js';
import type { RecoverableSignature } from '../../src/ports/key-store.port.js';
import type { HexString, SignedTransaction, TransactionFacts, TransactionIntent, TransactionType, UnsignedTransaction } from '../../src/ports/standard-payloads.port.js';
import { signedAuthorizations } from './authorization.js';
import { signedSerialization } from './signed-serialization.js';
import { hexBytes, isObject, quantity, refusedBy, unknownKeys, UINT64_MAX } from './values.js';

const FIELDS = new Set([
  'type',
  'chainId',
  'nonce',
  'to',
  'from',
  'value',
  'data',
  'input',
  'gas',
  'gasLimit',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'accessList',
  'authorizationList',
]);
const TYPES: Readonly<Record<string, TransactionType>> = { legacy: 'legacy', eip2930: 'eip2930', eip1559: 'eip1559', eip7702: 'eip7702' };
/** EIP-2718 type numbers, as JSON-RPC writes them (`0x2`, `0x02`) or as numbers. */
const TYPE_OF_NUMBER: readonly (TransactionType | undefined)[] = ['legacy', 'eip2930', 'eip1559', undefined, 'eip7702'];
const HEX_TYPE = /^0x[0-9a-fA-F]{1,2}$/;
const TYPE_NUMBER: Readonly<Record<TransactionType, number>> = { legacy: 0, eip2930: 1, eip1559: 2, eip7702: 4 };
const STORAGE_KEY = /^0x[0-9a-fA-F]{64}$/;

/** A transaction parsed by this adapter: its unsigned serialisation is kept for serializeSigned. */
class ParsedTransaction implements UnsignedTransaction {
  constructor(
    readonly digest: Uint8Array,
    readonly facts: TransactionFacts,
    readonly unsignedSerialized: Uint8Array,
  ) {}
}

/** A transaction as viem serialises it, validated field by field, to its signing digest and facts. */
export function unsignedTransaction(raw: unknown): UnsignedTransaction {
  if (!isObject(raw)) throw invalidArgument('transaction: must be an object (type, chainId, nonce, to, value, data, gas and fees)');
  const extra = unknownKeys(raw, FIELDS);
  if (extra.length > 0) throw invalidArgument(`${extra[0]}: is not a field of a legacy, eip2930, eip1559 or eip7702 transaction`);
  const type = transactionType(raw);
  const intent = intentOf(raw);
  const { chainId, to, value, data } = intent;
  const nonce = Number(required(raw, 'nonce', BigInt(Number.MAX_SAFE_INTEGER)));
  const gasLimit = same(raw, 'gas', 'gasLimit', (v, f) => quantity(v, f, UINT64_MAX));
  if (gasLimit === undefined) throw invalidArgument('gas: is required');

  const like: TransactionLike = { type: TYPE_NUMBER[type], chainId, nonce, to, value, data, gasLimit };
  if (type === 'eip1559' || type === 'eip7702') {
    refuseField(raw, 'gasPrice', `an ${type} transaction pays maxFeePerGas and maxPriorityFeePerGas, not gasPrice`);
    like.maxFeePerGas = required(raw, 'maxFeePerGas');
    like.maxPriorityFeePerGas = required(raw, 'maxPriorityFeePerGas');
  } else {
    for (const f of ['maxFeePerGas', 'maxPriorityFeePerGas']) refuseField(raw, f, `a ${type} transaction pays gasPrice, not ${f}`);
    like.gasPrice = required(raw, 'gasPrice');
  }
  const list = accessList(raw.accessList);
  // An empty list says nothing: a legacy transaction may carry one (some clients always send it).
  if (type === 'legacy' && list.length > 0) throw invalidArgument('accessList: a legacy transaction has no access list (use eip2930 or eip1559)');
  if (type !== 'legacy') like.accessList = list;
  // EIP-7702: a set-code transaction carries signed authorizations and always has a recipient.
  const authorizationList = type === 'eip7702' ? signedAuthorizations(raw.authorizationList) : [];
  if (type === 'eip7702') {
    if (to === null) throw invalidArgument('to: an eip7702 transaction cannot create a contract (give its recipient)');
    try {
      like.authorizationList = authorizationList.map((a) => ({ chainId: a.chainId, address: a.address, nonce: a.nonce, signature: Signature.from({ r: a.r, s: a.s, yParity: a.yParity }) }));
    } catch (error) {
      throw refusedBy('authorizationList', error);
    }
  } else if (raw.authorizationList !== undefined && raw.authorizationList !== null) {
    throw invalidArgument(`authorizationList: only an eip7702 transaction carries one (this one is ${type})`);
  }

  let unsignedSerialized: Uint8Array;
  try {
    // Serialising checks what Transaction.from does not (a priority fee above the fee cap).
    unsignedSerialized = getBytes(Transaction.from(like).unsignedSerialized);
  } catch (error) {
    throw refusedBy('transaction', error);
  }
  // The domain's keccak256 (native) rather than ethers' unsignedHash (JavaScript): tens of µs a sign.
  const digest = keccak256(unsignedSerialized);
  const fee = gasLimit * BigInt(like.maxFeePerGas ?? like.gasPrice!);
  const facts: TransactionFacts = { ...intent, type, nonce, fee, gas: gasLimit, authorizationList };
  return new ParsedTransaction(digest, facts, unsignedSerialized);
}

/** What a policy reads of a transaction before its nonce, gas and fees: unsignedTransaction's checks of these fields. */
export function transactionIntent(raw: unknown): TransactionIntent {
  if (!isObject(raw)) throw invalidArgument('transaction: must be an object (type, chainId, nonce, to, value, data, gas and fees)');
  return intentOf(raw);
}

/** The intent's fields of a transaction already known to be an object: each read once, also within unsignedTransaction. */
function intentOf(raw: Record<string, unknown>): TransactionIntent {
  if (raw.chainId === undefined || raw.chainId === null) throw invalidArgument('chainId: is required');
  const chainId = quantity(raw.chainId, 'chainId', UINT64_MAX);
  // Legacy's chain id 0 is a pre-EIP-155 signature: valid on every chain at once.
  if (chainId === 0n) throw invalidArgument('chainId: must be at least 1 (a signature without a chain id is valid on every chain)');
  const to = raw.to === undefined || raw.to === null ? null : parseAddress(raw.to, 'to');
  const from = raw.from === undefined || raw.from === null ? null : parseAddress(raw.from, 'from');
  const value = raw.value === undefined ? 0n : quantity(raw.value, 'value');
  const data = callData(raw);
  const selector = data.length >= 10 ? data.slice(0, 10) : null;
  return { chainId, to, selector, shortData: data !== '0x' && selector === null, value, from, data };
}

export function serializeSigned(unsigned: UnsignedTransaction, signature: RecoverableSignature): SignedTransaction {
  if (!(unsigned instanceof ParsedTransaction)) throw new Error('serializeSigned takes a transaction unsignedTransaction returned');
  const { type, chainId } = unsigned.facts;
  const serialized = signedSerialization(unsigned.unsignedSerialized, type, chainId, signature);
  return { serialized: toHex(serialized) as HexString, hash: toHex(keccak256(serialized)) };
}

/** `type` as given (viem's names, or the EIP-2718 number), else what the fee fields imply as viem does. */
function transactionType(raw: Record<string, unknown>): TransactionType {
  const given = raw.type;
  if (given !== undefined && given !== null) {
    const number = typeof given === 'number' ? given : typeof given === 'string' && HEX_TYPE.test(given) ? Number(given) : undefined;
    const type = number !== undefined ? TYPE_OF_NUMBER[number] : typeof given === 'string' && Object.hasOwn(TYPES, given) ? TYPES[given] : undefined;
    if (type === undefined) throw invalidArgument('type: must be legacy, eip2930, eip1559 or eip7702 (blob transactions are not signed here)');
    return type;
  }
  if (raw.authorizationList !== undefined && raw.authorizationList !== null) return 'eip7702';
  if (raw.maxFeePerGas !== undefined || raw.maxPriorityFeePerGas !== undefined) return 'eip1559';
  if (raw.gasPrice !== undefined) return raw.accessList !== undefined ? 'eip2930' : 'legacy';
  return 'eip1559';
}

function required(raw: Record<string, unknown>, field: string, max?: bigint): bigint {
  if (raw[field] === undefined || raw[field] === null) throw invalidArgument(`${field}: is required`);
  return quantity(raw[field], field, max);
}

function refuseField(raw: Record<string, unknown>, field: string, why: string): void {
  if (raw[field] !== undefined && raw[field] !== null) throw invalidArgument(`${field}: ${why}`);
}

/** A field with two names (viem's `gas` / ethers' `gasLimit`, `data` / RPC's `input`): either, or both when equal. */
function same<T>(raw: Record<string, unknown>, a: string, b: string, parse: (v: unknown, field: string) => T): T | undefined {
  const first = raw[a] === undefined || raw[a] === null ? undefined : parse(raw[a], a);
  const second = raw[b] === undefined || raw[b] === null ? undefined : parse(raw[b], b);
  if (first !== undefined && second !== undefined && first !== second) throw invalidArgument(`${b}: differs from ${a} (give one of them)`);
  return first ?? second;
}

function callData(raw: Record<string, unknown>): HexString {
  return same(raw, 'data', 'input', hexBytes) ?? '0x';
}

function accessList(raw: unknown): { address: string; storageKeys: string[] }[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidArgument('accessList: must be a list of {"address", "storageKeys"}');
  return raw.map((entry, i) => {
    if (!isObject(entry) || !Array.isArray(entry.storageKeys)) throw invalidArgument(`accessList[${i}]: must be {"address": "0x…", "storageKeys": ["0x…"]}`);
    const storageKeys = entry.storageKeys.map((key, k) => {
      if (typeof key !== 'string' || !STORAGE_KEY.test(key)) throw invalidArgument(`accessList[${i}].storageKeys[${k}]: must be 32-byte hex`);
      return key.toLowerCase();
    });
    return { address: parseAddress(entry.address, `accessList[${i}].address`), storageKeys };
  });
}
