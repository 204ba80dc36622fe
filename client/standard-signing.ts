/*
 * What the viem account (viem-account.ts) and the ethers signer (ethers-signer.ts) need from a client:
 * the three standard-signing calls of VaultClient, as a structural type so either can be given a client
 * of one's own (instrumented, or the in-process API behind a small adapter).
 */

import type { AuthorizationToSign, MessageToSign, SignatureResult, SignedAuthorization, SignedTransaction, TransactionToSign, TypedDataToSign } from './types.js';

export type HexString = `0x${string}`;
export type TypedDataRequest = TypedDataToSign;

/** VaultClient's three standard-signing calls (a VaultClient is one). */
export interface StandardSigningClient {
  signMessage(address: string, message: MessageToSign): Promise<SignatureResult>;
  signTypedData(address: string, typedData: TypedDataToSign): Promise<SignatureResult>;
  signTransaction(address: string, transaction: TransactionToSign): Promise<SignedTransaction>;
  /** EIP-7702 (VaultClient has it; a client of one's own without it signs no authorization). */
  signAuthorization?(address: string, authorization: AuthorizationToSign): Promise<SignedAuthorization>;
}

/** The client's signAuthorization, or an error saying the client given has none. */
export function authorizationSigner(client: StandardSigningClient): NonNullable<StandardSigningClient['signAuthorization']> {
  if (client.signAuthorization === undefined) throw new Error('this client has no signAuthorization (VaultClient has it): EIP-7702 authorizations cannot be signed through it');
  return client.signAuthorization.bind(client);
}

/**
 * A value as JSON carries it to the vault: bigints as decimal strings (JSON has no integers past 2^53),
 * bytes as 0x-hex, objects and arrays walked; everything else as it is.
 */
export function toJsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString(10);
  if (value instanceof Uint8Array) return bytesToHex(value);
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toJsonValue(v);
    return out;
  }
  return value;
}

export function bytesToHex(bytes: Uint8Array): HexString {
  let hex = '0x';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return hex as HexString;
}

/** The fields of a legacy, eip2930, eip1559 or eip7702 transaction the vault signs; anything else is left out. */
const TRANSACTION_FIELDS = ['type', 'chainId', 'nonce', 'to', 'from', 'value', 'data', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'accessList', 'authorizationList'] as const;
/** The fields of a signed authorization in a type-4 transaction (viem's `contractAddress` read as `address`). */
const AUTHORIZATION_FIELDS = ['chainId', 'address', 'nonce', 'yParity', 'r', 's'] as const;

/**
 * A transaction as the vault takes it: the fields it knows, quantities as decimal strings, `type` named
 * (viem's names; inferred from the fee fields when absent, as viem and ethers do).
 */
export function transactionBody(tx: Readonly<Record<string, unknown>>): TransactionToSign {
  const body: Record<string, unknown> = {};
  for (const field of TRANSACTION_FIELDS) {
    const value = tx[field];
    if (value !== undefined && value !== null) body[field] = toJsonValue(value);
  }
  if (Array.isArray(tx.authorizationList)) {
    body.authorizationList = tx.authorizationList.map((entry: Record<string, unknown>) => {
      const a: Record<string, unknown> = { ...entry, address: entry.address ?? entry.contractAddress };
      // viem may carry v beside yParity; the vault reads yParity.
      if (a.yParity === undefined && (a.v === 27n || a.v === 28n || a.v === 27 || a.v === 28)) a.yParity = Number(a.v) - 27;
      return Object.fromEntries(AUTHORIZATION_FIELDS.filter((f) => a[f] !== undefined).map((f) => [f, toJsonValue(a[f])]));
    });
  }
  if (body.type === undefined && body.authorizationList !== undefined) body.type = 'eip7702';
  if (body.type === undefined) {
    body.type = body.maxFeePerGas !== undefined || body.maxPriorityFeePerGas !== undefined ? 'eip1559' : body.accessList !== undefined ? 'eip2930' : 'legacy';
  }
  return body as unknown as TransactionToSign;
}
