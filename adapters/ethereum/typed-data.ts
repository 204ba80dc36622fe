import { TypedDataEncoder, concat, getBytes, keccak256, type TypedDataDomain, type TypedDataField } from 'ethers';
import type { TypedDataInput } from '../../src/domain/signing/kinds/typed-data/typed-data.input.js';
import type { TypedDataDigest } from '../../src/ports/standard-payloads.port.js';
import { refusedBy } from './ethers-refusal.js';

/**
 * The EIP-712 digest of typed data the kind's reader checked (its bounds, domain and types): ethers
 * encodes it, refusing a message value that is not of its type, named under the field it came from.
 */
export function typedDataDigest(input: TypedDataInput): TypedDataDigest {
  const { domain, primaryType } = input;
  let encoder: TypedDataEncoder;
  try {
    encoder = TypedDataEncoder.from(input.types as Record<string, TypedDataField[]>);
  } catch (error) {
    throw refusedBy('types', error);
  }
  let structHash: string;
  try {
    structHash = encoder.hash(input.message as Record<string, unknown>);
  } catch (error) {
    throw refusedBy('message', error);
  }
  let domainSeparator: string;
  try {
    domainSeparator = TypedDataEncoder.hashDomain(domain as TypedDataDomain);
  } catch (error) {
    throw refusedBy('domain', error);
  }
  return {
    digest: getBytes(keccak256(concat(['0x1901', domainSeparator, structHash]))),
    primaryType,
    domain: { chainId: domain.chainId ?? null, verifyingContract: domain.verifyingContract ?? null, name: domain.name ?? null },
  };
}
