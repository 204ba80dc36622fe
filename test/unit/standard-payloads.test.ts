import { SigningKey, Transaction as EthersTransaction, computeAddress, getBytes } from 'ethers';
import {
  hashMessage,
  hashTypedData,
  keccak256,
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  type TypedDataDefinition,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { readingPayloads } from '../support/read-payloads.js';
import { signatureHex } from '../../src/application/signing/standard-signing.js';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import type { RecoverableSignature } from '../../src/ports/key-store.port.js';
import { asJson, permit } from '../support/typed-data-fixtures.js';

/**
 * The ethers adapter of the StandardPayloads port, checked against viem as an independent verifier: the
 * digests are viem's, and what a key signs over them recovers, in viem, to the key's address.
 */
const payloads = readingPayloads();
const key = new SigningKey(`0x${'42'.repeat(32)}`);
const ADDRESS = computeAddress(key.publicKey);
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const SPENDER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

function sign(digest: Uint8Array): RecoverableSignature {
  const s = key.sign(digest);
  return { r: getBytes(s.r), s: getBytes(s.s), v: s.v as 27 | 28 };
}
const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}` as const;

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.INVALID_ARGUMENT);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('EIP-191 personal messages', () => {
  it.each<[string, unknown, Parameters<typeof hashMessage>[0]]>([
    ['text', 'Sign in to example.org', 'Sign in to example.org'],
    ['text that looks like hex (still UTF-8 text)', '0xdeadbeef', '0xdeadbeef'],
    ['unicode text', 'héllo 👋', 'héllo 👋'],
    ['the empty text', '', ''],
    ['raw bytes as hex', { raw: '0xdeadbeef' }, { raw: '0xdeadbeef' }],
    ['raw bytes', { raw: new Uint8Array([1, 2, 3]) }, { raw: new Uint8Array([1, 2, 3]) }],
  ])('hashes %s as viem does, and the signature recovers to the signer', async (_what, message, asViem) => {
    const digest = payloads.messageDigest(message);
    expect(hex(digest)).toBe(hashMessage(asViem));
    const signature = signatureHex(sign(digest));
    expect(signature).toMatch(/^0x[0-9a-f]{128}1[bc]$/);
    expect(await recoverMessageAddress({ message: asViem, signature })).toBe(ADDRESS);
  });

  it.each<[string, unknown, RegExp]>([
    ['a number', 42, /^message: must be a string or \{"raw": "0x…"\}$/],
    ['an object without raw', { text: 'hi' }, /^message: must be a string/],
    ['raw beside another field', { raw: '0x01', text: 'hi' }, /^message: must be a string/],
    ['raw that is not hex', { raw: 'hello' }, /^message\.raw: must be 0x-prefixed hex bytes/],
    ['raw with an odd number of digits', { raw: '0x123' }, /^message\.raw: must be 0x-prefixed hex bytes/],
    ['a lone surrogate', 'a\ud800b', /^message: must be well-formed Unicode text/],
  ])('refuses %s, naming the field', (_what, message, error) => {
    expect(refusal(() => payloads.messageDigest(message)).message).toMatch(error);
  });
});

const MAIL: TypedDataDefinition = {
  domain: { name: 'Ether Mail', version: '1', chainId: 1, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallets', type: 'address[]' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person[]' },
      { name: 'contents', type: 'string' },
      { name: 'attachment', type: 'bytes' },
      { name: 'tags', type: 'bytes32[2]' },
    ],
  },
  primaryType: 'Mail',
  message: {
    from: { name: 'Cow', wallets: ['0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826', '0xDeaDbeefdEAdbeefdEadbEEFdeadbeEFdEaDbeeF'] },
    to: [{ name: 'Bob', wallets: ['0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB'] }, { name: 'Daisy', wallets: [] }],
    contents: 'Hello, Bob! ✉️',
    attachment: '0x1234567890',
    tags: [`0x${'01'.repeat(32)}`, `0x${'02'.repeat(32)}`],
  },
};

const PERMIT = permit(
  { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: TOKEN },
  { owner: ADDRESS, spender: SPENDER, value: 10n ** 24n, nonce: 0n, deadline: 2n ** 256n - 1n },
);


describe('EIP-712 typed data', () => {
  it.each<[string, TypedDataDefinition]>([
    ['nested structs, arrays of structs and addresses, bytes, fixed arrays and string', MAIL],
    ['an EIP-2612 permit', PERMIT],
    ['a domain with salt only', { ...PERMIT, domain: { salt: `0x${'ab'.repeat(32)}` } }],
    ['an empty domain', { ...PERMIT, domain: {} }],
  ])('hashes %s as viem does; the signature recovers to the signer', async (_what, typedData) => {
    const { digest } = payloads.typedDataDigest(asJson(typedData));
    expect(hex(digest)).toBe(hashTypedData(typedData));
    const signature = signatureHex(sign(digest));
    expect(await recoverTypedDataAddress({ ...typedData, signature })).toBe(ADDRESS);
  });

  it('returns the domain facts a policy reads (EIP-55 contract, decimal chain id, name)', () => {
    const lower = asJson({ ...PERMIT, domain: { ...PERMIT.domain, verifyingContract: TOKEN.toLowerCase() } });
    const { domain, primaryType } = payloads.typedDataDigest(lower);
    expect(domain).toEqual({ chainId: 31337n, verifyingContract: TOKEN, name: 'USD Coin' });
    expect(primaryType).toBe('Permit');
    expect(payloads.typedDataDigest(asJson({ ...PERMIT, domain: {} })).domain).toEqual({ chainId: null, verifyingContract: null, name: null });
  });

  it('accepts the EIP712Domain type viem may add, and types the primary type does not use', () => {
    const withDomainType = {
      ...PERMIT,
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        ...PERMIT.types,
        Unused: [{ name: 'x', type: 'uint8' }],
      },
    };
    expect(hex(payloads.typedDataDigest(asJson(withDomainType)).digest)).toBe(hashTypedData(PERMIT));
  });

  it.each<[string, unknown, RegExp]>([
    ['not an object', 'typed data', /^typedData: must be an object/],
    ['an unknown top-level field', { ...PERMIT, account: ADDRESS }, /^account: is not a field of typed data/],
    ['no domain', { ...PERMIT, domain: undefined }, /^domain: must be an object/],
    ['an unknown domain field', { ...PERMIT, domain: { ...PERMIT.domain, chain: 1 } }, /^domain\.chain: is not an EIP-712 domain field/],
    ['a bad domain chain id', { ...PERMIT, domain: { ...PERMIT.domain, chainId: 'one' } }, /^domain\.chainId: "one" is not a non-negative integer/],
    ['a bad verifying contract checksum', { ...PERMIT, domain: { ...PERMIT.domain, verifyingContract: '0x5fbDB2315678afecb367f032d93F642f64180aa3' } }, /^domain\.verifyingContract: .* invalid EIP-55 checksum/],
    ['a short salt', { ...PERMIT, domain: { salt: '0x01' } }, /^domain\.salt: must be 32 bytes/],
    ['a primary type not in types', { ...PERMIT, primaryType: 'Transfer' }, /^primaryType: "Transfer" is not a type in types/],
    ['EIP712Domain as primary type', { ...PERMIT, primaryType: 'EIP712Domain' }, /^primaryType: EIP712Domain alone is not signed here/],
    ['an EIP712Domain type in another order', { ...PERMIT, types: { ...PERMIT.types, EIP712Domain: [{ name: 'version', type: 'string' }, { name: 'name', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }] } }, /^types\.EIP712Domain: must list the domain's fields in the standard order \(string name, string version, uint256 chainId, address verifyingContract\)$/],
    ['a field without a type', { ...PERMIT, types: { Permit: [{ name: 'owner' }] } }, /^types\.Permit\[0\]: must be \{"name": string, "type": string\}/],
    ['an unknown field type', { ...PERMIT, types: { Permit: [{ name: 'owner', type: 'uint7' }] } }, /^types: /],
    ['a message missing a field', { ...PERMIT, message: { owner: ADDRESS } }, /^message: /],
    ['a message value out of range', { ...PERMIT, message: { ...PERMIT.message, value: (2n ** 256n).toString() } }, /^message: /],
    ['a message that is not an object', { ...PERMIT, message: 'permit' }, /^message: must be an object/],
  ])('refuses %s, naming the field (never an ethers error)', (_what, typedData, error) => {
    expect(refusal(() => payloads.typedDataDigest(asJson(typedData))).message).toMatch(error);
  });
});

const EIP1559 = {
  type: 'eip1559',
  chainId: 31337,
  nonce: 7,
  to: SPENDER,
  value: '1000000000000000000',
  data: '0xa9059cbb000000000000000000000000cccccccccccccccccccccccccccccccccccccccc0000000000000000000000000000000000000000000000000000000000000001',
  gas: '0x5208',
  maxFeePerGas: '2000000000',
  maxPriorityFeePerGas: '0x3b9aca00',
  accessList: [{ address: TOKEN, storageKeys: [`0x${'00'.repeat(31)}01`] }],
};
const EIP2930 = { type: 'eip2930', chainId: '1', nonce: '0', to: TOKEN, gas: 50000, gasPrice: '1000000000', accessList: [] };
const LEGACY = { type: 'legacy', chainId: '0x38', nonce: 1, to: SPENDER, value: 5, gas: 21000, gasPrice: 3 };

describe('transactions', () => {
  it.each<[string, Record<string, unknown>]>([
    ['eip1559 (with an access list and call data)', EIP1559],
    ['eip2930', EIP2930],
    ['legacy (EIP-155)', LEGACY],
    ['eip1559 inferred from its fees, `gasLimit` and `input` as ethers and RPC name them', { chainId: 1, nonce: 0, to: SPENDER, gasLimit: 21000, maxFeePerGas: 10, maxPriorityFeePerGas: 1, input: '0x' }],
    ['types as JSON-RPC numbers them, and an empty access list on legacy', { ...LEGACY, type: '0x00', accessList: [] }],
    ['a contract creation', { type: 'eip1559', chainId: 31337, nonce: 0, data: '0x6080', gas: 100000, maxFeePerGas: 1, maxPriorityFeePerGas: 1 }],
  ])('signs %s as viem parses it, recovering to the signer', async (_what, tx) => {
    const unsigned = payloads.unsignedTransaction(tx);
    const signed = payloads.serializeSigned(unsigned, sign(unsigned.digest));
    expect(signed.hash).toBe(keccak256(signed.serialized));
    // Built by appending the signature to the unsigned RLP (signed-serialization.ts): ethers reads it and
    // writes it back byte for byte, and its own serialisation of the signed transaction is the same.
    const reparsed = EthersTransaction.from(signed.serialized);
    expect(reparsed.serialized).toBe(signed.serialized);
    expect(reparsed.from).toBe(ADDRESS);
    expect(await recoverTransactionAddress({ serializedTransaction: signed.serialized as `0x02${string}` })).toBe(ADDRESS);
    const parsed = parseTransaction(signed.serialized);
    expect(parsed.chainId).toBe(Number(BigInt(tx.chainId as string | number)));
    expect(parsed.nonce).toBe(Number(tx.nonce));
    expect(parsed.to ?? null).toBe(unsigned.facts.to === null ? null : unsigned.facts.to.toLowerCase());
    expect(parsed.value ?? 0n).toBe(unsigned.facts.value);
    expect(parsed.type).toBe(unsigned.facts.type);
  });

  it('returns the facts a policy reads', () => {
    const facts = payloads.unsignedTransaction({ ...EIP1559, to: SPENDER.toLowerCase() }).facts;
    // The fee is the most the transaction can pay: gas 21 000 × maxFeePerGas 2 gwei.
    expect(facts).toEqual({ type: 'eip1559', chainId: 31337n, nonce: 7, to: SPENDER, selector: '0xa9059cbb', shortData: false, value: 10n ** 18n, fee: 21000n * 2000000000n, data: EIP1559.data, from: null, gas: 21000n, authorizationList: [] });
    expect(payloads.unsignedTransaction(LEGACY).facts).toMatchObject({ type: 'legacy', chainId: 56n, selector: null, shortData: false, value: 5n });
    expect(payloads.unsignedTransaction({ ...LEGACY, data: '0x1234' }).facts).toMatchObject({ selector: null, shortData: true });
    expect(payloads.unsignedTransaction({ ...LEGACY, to: null, from: ADDRESS.toLowerCase() }).facts).toMatchObject({ to: null, from: ADDRESS });
  });

  it('reads the same facts of a transaction not yet filled (no nonce, gas or fees), checked the same way', () => {
    const { chainId, to, data, value } = { ...EIP1559, to: SPENDER.toLowerCase() };
    expect(payloads.transactionIntent({ chainId, to, input: data, value, from: ADDRESS.toLowerCase() })).toEqual({ chainId: 31337n, to: SPENDER, selector: '0xa9059cbb', shortData: false, value: 10n ** 18n, data, from: ADDRESS });
    expect(payloads.transactionIntent({ chainId: '0x38', data: '0x12' })).toEqual({ chainId: 56n, to: null, selector: null, shortData: true, value: 0n, data: '0x12', from: null });
    expect(refusal(() => payloads.transactionIntent({ to: SPENDER })).message).toBe('chainId: is required');
    expect(refusal(() => payloads.transactionIntent({ chainId: 1, to: '0x12' })).message).toMatch(/^to: /);
    expect(refusal(() => payloads.transactionIntent({ chainId: 1, value: -1 })).message).toMatch(/^value: /);
  });

  it.each<[string, unknown, RegExp]>([
    ['not an object', '0x02f8', /^transaction: must be an object/],
    ['no chain id', { ...EIP1559, chainId: undefined }, /^chainId: is required$/],
    ['chain id 0 (valid on every chain)', { ...LEGACY, chainId: 0 }, /^chainId: must be at least 1/],
    ['a chain id beyond 64 bits', { ...LEGACY, chainId: (2n ** 64n).toString() }, /^chainId: must be at most/],
    ['no nonce', { ...EIP1559, nonce: undefined }, /^nonce: is required$/],
    ['no gas', { ...EIP1559, gas: undefined }, /^gas: is required$/],
    ['gas and gasLimit that differ', { ...EIP1559, gasLimit: 1 }, /^gasLimit: differs from gas/],
    ['a blob transaction', { ...EIP1559, type: 'eip4844' }, /^type: must be legacy, eip2930, eip1559 or eip7702/],
    ['an empty authorization list', { ...EIP1559, type: 'eip7702', authorizationList: [] }, /^authorizationList: must be a non-empty list/],
    ['an unknown field', { ...EIP1559, maxFeePerBlobGas: 1 }, /^maxFeePerBlobGas: is not a field of a legacy, eip2930, eip1559 or eip7702 transaction$/],
    ['a negative value', { ...EIP1559, value: -1 }, /^value: -1 is not a non-negative integer/],
    ['a fractional value', { ...EIP1559, value: 1.5 }, /^value: 1.5 is not a non-negative integer/],
    ['a value beyond 256 bits', { ...EIP1559, value: `0x1${'0'.repeat(64)}` }, /^value: .* is not a non-negative integer/],
    ['a bad recipient checksum', { ...EIP1559, to: '0x70997970c51812dc3A010C7d01b50e0d17dc79C8' }, /^to: .* invalid EIP-55 checksum/],
    ['a recipient that is not an address', { ...EIP1559, to: '0x1234' }, /^to: "0x1234" is not a 0x-prefixed 20-byte hex address/],
    ['data that is not hex', { ...EIP1559, data: 'transfer' }, /^data: must be 0x-prefixed hex bytes/],
    ['data and input that differ', { ...EIP1559, input: '0x' }, /^input: differs from data/],
    ['gasPrice on an eip1559 transaction', { ...EIP1559, gasPrice: 1 }, /^gasPrice: an eip1559 transaction pays maxFeePerGas/],
    ['no maxFeePerGas on eip1559', { ...EIP1559, maxFeePerGas: undefined }, /^maxFeePerGas: is required$/],
    ['maxFeePerGas on a legacy transaction', { ...LEGACY, maxFeePerGas: 1 }, /^maxFeePerGas: a legacy transaction pays gasPrice/],
    ['no gasPrice on legacy', { ...LEGACY, gasPrice: undefined }, /^gasPrice: is required$/],
    ['an access list on a legacy transaction', { ...LEGACY, accessList: [{ address: TOKEN, storageKeys: [] }] }, /^accessList: a legacy transaction has no access list/],
    ['a type number that is not signed here', { ...EIP1559, type: '0x03' }, /^type: must be legacy, eip2930, eip1559 or eip7702/],
    ['a type that is an inherited property name', { ...EIP1559, type: 'constructor' }, /^type: must be legacy, eip2930, eip1559 or eip7702/],
    ['a malformed storage key', { ...EIP1559, accessList: [{ address: TOKEN, storageKeys: ['0x01'] }] }, /^accessList\[0\]\.storageKeys\[0\]: must be 32-byte hex/],
    ['priority fee over max fee', { ...EIP1559, maxPriorityFeePerGas: '3000000000' }, /^transaction: /],
  ])('refuses %s, naming the field (never an ethers error)', (_what, tx, error) => {
    expect(refusal(() => payloads.unsignedTransaction(tx)).message).toMatch(error);
  });

  it('serialises only a transaction this adapter parsed', () => {
    const unsigned = payloads.unsignedTransaction(LEGACY);
    expect(() => payloads.serializeSigned({ digest: unsigned.digest, facts: unsigned.facts }, sign(unsigned.digest))).toThrow(/takes a transaction unsignedTransaction returned/);
  });
});
