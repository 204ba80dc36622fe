import { getBytes, hashMessage, recoverAddress, Signature } from 'ethers';
import secp256k1 from 'secp256k1';
import { addressFromPublicKey } from '../../src/domain/address.js';
import type { ParsedFunction } from '../../src/domain/signing/abi-function.js';
import type { AbiValue } from '../../src/domain/signing/argument-coercion.js';
import { invalidArgument } from '../../src/domain/errors.js';
import { hasLoneSurrogate } from '../../src/domain/unicode.js';
import type { RecoverableSignature } from '../../src/ports/key-store.port.js';
import type { AuthorizationDigest, HexString, SignedTransaction, StandardPayloads, TransactionIntent, TypedDataDigest, UnsignedTransaction } from '../../src/ports/standard-payloads.port.js';
import { authorizationDigest } from './authorization.js';
import { hashEthersWithDomainKeccak } from './ethers-keccak.js';
import { decodeArguments } from './calldata.js';
import { serializeSigned, transactionIntent, unsignedTransaction } from './transaction.js';
import { typedDataDigest } from './typed-data.js';
import { hexBytes, isObject } from './values.js';

/** r ‖ s ‖ v, 65 bytes: what ethers, viem and hardware wallets give for signTypedData. */
const SIGNATURE_65 = /^0x[0-9a-fA-F]{130}$/;
/** secp256k1's n / 2: an s above it is the malleable twin of a valid signature (EIP-2). */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const MESSAGE_SHAPE = 'message: must be a string or {"raw": "0x…"}';

/** The standard payloads, encoded by ethers (the design's Ethereum library). */
export class EthersStandardPayloads implements StandardPayloads {
  constructor() {
    hashEthersWithDomainKeccak();
  }

  messageDigest(message: unknown): Uint8Array {
    return getBytes(hashMessage(messageBytes(message)));
  }

  typedDataDigest(input: unknown): TypedDataDigest {
    return typedDataDigest(input);
  }

  unsignedTransaction(tx: unknown): UnsignedTransaction {
    return unsignedTransaction(tx);
  }

  transactionIntent(tx: unknown): TransactionIntent {
    return transactionIntent(tx);
  }

  authorizationDigest(input: unknown): AuthorizationDigest {
    return authorizationDigest(input);
  }

  recoverTypedDataSigner(input: unknown, signature: string): string | null {
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

/** Text as its UTF-8 bytes, `{ raw }` (hex or bytes) as it is: viem's signMessage reads them the same way. */
function messageBytes(message: unknown): string | Uint8Array {
  if (typeof message === 'string') {
    // UTF-8 cannot carry a lone surrogate: TextEncoder (viem) would sign U+FFFD in its place, ethers refuses it.
    if (hasLoneSurrogate(message)) throw invalidArgument('message: must be well-formed Unicode text (it contains a lone surrogate)');
    return message;
  }
  if (message instanceof Uint8Array) return message;
  if (isObject(message) && Object.keys(message).length === 1 && message.raw !== undefined) {
    return message.raw instanceof Uint8Array ? message.raw : getBytes(hexBytes(message.raw, 'message.raw'));
  }
  throw invalidArgument(MESSAGE_SHAPE);
}
