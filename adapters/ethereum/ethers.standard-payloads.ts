import { getBytes, hashMessage, recoverAddress, Signature } from 'ethers';
import secp256k1 from 'secp256k1';
import { addressFromPublicKey } from '../../src/domain/address.js';
import type { ParsedFunction } from '../../src/domain/signing/abi-function.js';
import type { AbiValue } from '../../src/domain/signing/argument-coercion.js';
import type { AuthorizationInput } from '../../src/domain/signing/kinds/authorization/authorization.input.js';
import type { MessageInput } from '../../src/domain/signing/kinds/message/message.input.js';
import type { TransactionInput } from '../../src/domain/signing/kinds/transaction/transaction.input.js';
import type { TypedDataInput } from '../../src/domain/signing/kinds/typed-data/typed-data.input.js';
import type { RecoverableSignature } from '../../src/ports/key-store.port.js';
import type { AuthorizationDigest, HexString, SignedTransaction, StandardPayloads, TypedDataDigest, UnsignedTransaction } from '../../src/ports/standard-payloads.port.js';
import { authorizationDigest } from './authorization.js';
import { hashEthersWithDomainKeccak } from './ethers-keccak.js';
import { decodeArguments } from './calldata.js';
import { serializeSigned, unsignedTransaction } from './transaction.js';
import { typedDataDigest } from './typed-data.js';

/** r ‖ s ‖ v, 65 bytes: what ethers, viem and hardware wallets give for signTypedData. */
const SIGNATURE_65 = /^0x[0-9a-fA-F]{130}$/;
/** secp256k1's n / 2: an s above it is the malleable twin of a valid signature (EIP-2). */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/**
 * The standard payloads, encoded by ethers (the design's Ethereum library), from what each kind's reader
 * (src/domain/signing/kinds/<name>/<name>.input.ts) checked: nothing here reads a client's JSON.
 */
export class EthersStandardPayloads implements StandardPayloads {
  constructor() {
    hashEthersWithDomainKeccak();
  }

  messageDigest(message: MessageInput): Uint8Array {
    return getBytes(hashMessage(message.bytes));
  }

  typedDataDigest(input: TypedDataInput): TypedDataDigest {
    return typedDataDigest(input);
  }

  unsignedTransaction(tx: TransactionInput): UnsignedTransaction {
    return unsignedTransaction(tx);
  }

  authorizationDigest(input: AuthorizationInput): AuthorizationDigest {
    return authorizationDigest(input);
  }

  recoverTypedDataSigner(input: TypedDataInput, signature: string): string | null {
    if (typeof signature !== 'string' || !SIGNATURE_65.test(signature)) return null;
    const { digest } = typedDataDigest(input);
    try {
      const parsed = Signature.from(signature);
      if (BigInt(parsed.s) > HALF_ORDER) return null;
      return recoverAddress(digest, parsed);
    } catch {
      return null;
    }
  }

  /**
   * On libsecp256k1 (the `secp256k1` package the key stores sign with), not ethers' JavaScript curve: a
   * wallet's binding is recovered at its creation and at the first sign of each instance, and ethers'
   * recovery costs a few milliseconds where this costs tens of microseconds.
   */
  recoverDigestSigner(digest: Uint8Array, signature: string): string | null {
    if (typeof signature !== 'string' || !SIGNATURE_65.test(signature) || digest.length !== 32) return null;
    const bytes = Buffer.from(signature.slice(2), 'hex');
    const v = bytes[64]!;
    const recid = v === 0 || v === 27 ? 0 : v === 1 || v === 28 ? 1 : null;
    if (recid === null || BigInt(`0x${bytes.subarray(32, 64).toString('hex')}`) > HALF_ORDER) return null;
    try {
      return addressFromPublicKey(secp256k1.ecdsaRecover(bytes.subarray(0, 64), recid, digest, false));
    } catch {
      return null; // r or s out of range, or no point: recovers no address
    }
  }

  serializeSigned(unsigned: UnsignedTransaction, signature: RecoverableSignature): SignedTransaction {
    return serializeSigned(unsigned, signature);
  }

  decodeArguments(fn: ParsedFunction, data: HexString): readonly AbiValue[] | null {
    return decodeArguments(fn, data);
  }
}
