import { parseAddress } from '../../../address.js';
import { invalidArgument } from '../../../errors.js';
import { authorizationTuple, type SignedAuthorization } from '../../authorization-tuple.js';
import { hexBytes, isObject, quantity, unknownKeys, UINT64_MAX, type HexString } from '../../payload-values.js';

/**
 * A transaction's fields, as viem serialises one (the body of sign-transaction; adapters/http/schemas.ts
 * states each one's JSON, keyed by this table). Any other field is refused rather than dropped.
 */
export const TRANSACTION_FIELDS = [
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
] as const;
const FIELDS: ReadonlySet<string> = new Set(TRANSACTION_FIELDS);

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

/**
 * What a transaction's sender gave before its nonce, gas and fees are filled (the JSON-RPC endpoint's
 * eth_sendTransaction): what a policy can already read of it, so a refusal costs no call to the chain.
 */
export type TransactionIntent = Pick<TransactionFacts, 'chainId' | 'to' | 'selector' | 'shortData' | 'value' | 'from' | 'data'>;

export interface AccessListEntry {
  /** EIP-55. */
  readonly address: string;
  /** 32-byte words, lower-case hex. */
  readonly storageKeys: readonly string[];
}

/** A transaction read and checked, field by field: what it does, and the fee fields and access list its serialisation needs. */
export interface TransactionInput {
  readonly facts: TransactionFacts;
  /** Legacy and eip2930; null for the others. */
  readonly gasPrice: bigint | null;
  /** eip1559 and eip7702; null for the others. */
  readonly maxFeePerGas: bigint | null;
  readonly maxPriorityFeePerGas: bigint | null;
  /** Empty for a legacy transaction (which carries none). */
  readonly accessList: readonly AccessListEntry[];
}

const TYPES: Readonly<Record<string, TransactionType>> = { legacy: 'legacy', eip2930: 'eip2930', eip1559: 'eip1559', eip7702: 'eip7702' };
/** EIP-2718 type numbers, as JSON-RPC writes them (`0x2`, `0x02`) or as numbers. */
const TYPE_OF_NUMBER: readonly (TransactionType | undefined)[] = ['legacy', 'eip2930', 'eip1559', undefined, 'eip7702'];
const HEX_TYPE = /^0x[0-9a-fA-F]{1,2}$/;
const STORAGE_KEY = /^0x[0-9a-fA-F]{64}$/;
/** A signed authorization's fields as JSON-RPC writes them in a type-4 transaction (viem's `contractAddress` for `address` too). */
const SIGNED_AUTHORIZATION_FIELDS: ReadonlySet<string> = new Set(['chainId', 'address', 'contractAddress', 'nonce', 'yParity', 'v', 'r', 's']);
const WORD = /^0x[0-9a-fA-F]{1,64}$/;
const NOT_AN_OBJECT = 'transaction: must be an object (type, chainId, nonce, to, value, data, gas and fees)';

/** A transaction as viem serialises it (`type`, quantities as numbers, bigints, decimal or hex strings), each field read once. */
export function readTransaction(raw: unknown): TransactionInput {
  if (!isObject(raw)) throw invalidArgument(NOT_AN_OBJECT);
  const extra = unknownKeys(raw, FIELDS);
  if (extra.length > 0) throw invalidArgument(`${extra[0]}: is not a field of a legacy, eip2930, eip1559 or eip7702 transaction`);
  const type = transactionType(raw);
  const intent = intentOf(raw);
  const nonce = Number(required(raw, 'nonce', BigInt(Number.MAX_SAFE_INTEGER)));
  const gas = same(raw, 'gas', 'gasLimit', (v, f) => quantity(v, f, UINT64_MAX));
  if (gas === undefined) throw invalidArgument('gas: is required');

  let gasPrice: bigint | null = null;
  let maxFeePerGas: bigint | null = null;
  let maxPriorityFeePerGas: bigint | null = null;
  if (type === 'eip1559' || type === 'eip7702') {
    refuseField(raw, 'gasPrice', `an ${type} transaction pays maxFeePerGas and maxPriorityFeePerGas, not gasPrice`);
    maxFeePerGas = required(raw, 'maxFeePerGas');
    maxPriorityFeePerGas = required(raw, 'maxPriorityFeePerGas');
  } else {
    for (const f of ['maxFeePerGas', 'maxPriorityFeePerGas']) refuseField(raw, f, `a ${type} transaction pays gasPrice, not ${f}`);
    gasPrice = required(raw, 'gasPrice');
  }
  const accessList = accessListOf(raw.accessList);
  // An empty list says nothing: a legacy transaction may carry one (some clients always send it).
  if (type === 'legacy' && accessList.length > 0) throw invalidArgument('accessList: a legacy transaction has no access list (use eip2930 or eip1559)');
  // EIP-7702: a set-code transaction carries signed authorizations and always has a recipient.
  const authorizationList = type === 'eip7702' ? signedAuthorizations(raw.authorizationList) : [];
  if (type === 'eip7702') {
    if (intent.to === null) throw invalidArgument('to: an eip7702 transaction cannot create a contract (give its recipient)');
  } else if (raw.authorizationList !== undefined && raw.authorizationList !== null) {
    throw invalidArgument(`authorizationList: only an eip7702 transaction carries one (this one is ${type})`);
  }
  const fee = gas * (maxFeePerGas ?? gasPrice!);
  return { facts: { ...intent, type, nonce, fee, gas, authorizationList }, gasPrice, maxFeePerGas, maxPriorityFeePerGas, accessList };
}

/** chainId (required), from, to, value and data (or input) of a transaction, checked as readTransaction checks them; any other field is ignored. */
export function readTransactionIntent(raw: unknown): TransactionIntent {
  if (!isObject(raw)) throw invalidArgument(NOT_AN_OBJECT);
  return intentOf(raw);
}

/** The intent's fields of a transaction already known to be an object: each read once, also within readTransaction. */
function intentOf(raw: Record<string, unknown>): TransactionIntent {
  if (raw.chainId === undefined || raw.chainId === null) throw invalidArgument('chainId: is required');
  const chainId = quantity(raw.chainId, 'chainId', UINT64_MAX);
  // Legacy's chain id 0 is a pre-EIP-155 signature: valid on every chain at once.
  if (chainId === 0n) throw invalidArgument('chainId: must be at least 1 (a signature without a chain id is valid on every chain)');
  const to = raw.to === undefined || raw.to === null ? null : parseAddress(raw.to, 'to');
  const from = raw.from === undefined || raw.from === null ? null : parseAddress(raw.from, 'from');
  const value = raw.value === undefined ? 0n : quantity(raw.value, 'value');
  const data = same(raw, 'data', 'input', hexBytes) ?? '0x';
  const selector = data.length >= 10 ? data.slice(0, 10) : null;
  return { chainId, to, selector, shortData: data !== '0x' && selector === null, value, from, data };
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

function accessListOf(raw: unknown): AccessListEntry[] {
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

/** A type-4 transaction's authorizationList, each entry signed (yParity or v, r, s), checked field by field. */
function signedAuthorizations(raw: unknown): SignedAuthorization[] {
  if (!Array.isArray(raw) || raw.length === 0) throw invalidArgument('authorizationList: must be a non-empty list of signed authorizations {"chainId", "address", "nonce", "yParity", "r", "s"}');
  if (raw.length > 256) throw invalidArgument('authorizationList: at most 256 authorizations');
  return raw.map((entry, i) => {
    const at = `authorizationList[${i}].`;
    if (!isObject(entry)) throw invalidArgument(`authorizationList[${i}]: must be {"chainId", "address", "nonce", "yParity", "r", "s"}`);
    const extra = unknownKeys(entry, SIGNED_AUTHORIZATION_FIELDS);
    if (extra.length > 0) throw invalidArgument(`${at}${extra[0]}: is not a field of a signed authorization`);
    const { chainId, address, nonce } = authorizationTuple(entry, at);
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
