import { TypedDataEncoder, concat, getBytes, keccak256, type TypedDataDomain, type TypedDataField } from 'ethers';
import { parseAddress } from '../../src/domain/address.js';
import { invalidArgument } from '../../src/domain/errors.js';
import { hasLoneSurrogate } from '../../src/domain/unicode.js';
import type { TypedDataDigest } from '../../src/ports/standard-payloads.port.js';
import { hexBytes, isObject, quantity, refusedBy, unknownKeys, UINT256_MAX } from './values.js';

const TOP_LEVEL = new Set(['domain', 'types', 'primaryType', 'message']);
/** EIP-712's domain fields, in the order its EIP712Domain type lists them when present. */
const DOMAIN_FIELDS = [
  ['name', 'string'],
  ['version', 'string'],
  ['chainId', 'uint256'],
  ['verifyingContract', 'address'],
  ['salt', 'bytes32'],
] as const;
const DOMAIN_KEYS = new Set(DOMAIN_FIELDS.map(([name]) => name));
const ARRAY_SUFFIX = /(\[[0-9]*\])+$/;

/** `{ domain, types, primaryType, message }` as viem's signTypedData takes them, to its EIP-712 digest. */
export function typedDataDigest(input: unknown): TypedDataDigest {
  if (!isObject(input)) throw invalidArgument('typedData: must be an object with domain, types, primaryType and message');
  const extra = unknownKeys(input, TOP_LEVEL);
  if (extra.length > 0) throw invalidArgument(`${extra[0]}: is not a field of typed data (domain, types, primaryType, message)`);
  const domain = parseDomain(input.domain);
  const types = parseTypes(input.types);
  const primaryType = input.primaryType;
  if (typeof primaryType !== 'string') throw invalidArgument('primaryType: must be the name of a type in types');
  if (primaryType === 'EIP712Domain') throw invalidArgument('primaryType: EIP712Domain alone is not signed here (give the struct to sign)');
  if (!Object.hasOwn(types, primaryType)) throw invalidArgument(`primaryType: ${JSON.stringify(primaryType)} is not a type in types`);
  checkDomainType(types.EIP712Domain, domain);
  if (!isObject(input.message)) throw invalidArgument('message: must be an object (the primaryType struct)');

  let encoder: TypedDataEncoder;
  try {
    // Only the types the primary type reaches: viem accepts unused ones beside it, and they change
    // nothing in the digest, but ethers would take them for a second primary type.
    encoder = TypedDataEncoder.from(reachableTypes(types, primaryType));
  } catch (error) {
    throw refusedBy('types', error);
  }
  let structHash: string;
  try {
    structHash = encoder.hash(input.message);
  } catch (error) {
    throw refusedBy('message', error);
  }
  let domainSeparator: string;
  try {
    domainSeparator = TypedDataEncoder.hashDomain(domain);
  } catch (error) {
    throw refusedBy('domain', error);
  }
  return {
    digest: getBytes(keccak256(concat(['0x1901', domainSeparator, structHash]))),
    primaryType,
    domain: {
      chainId: domain.chainId === undefined ? null : BigInt(domain.chainId as bigint),
      verifyingContract: domain.verifyingContract ?? null,
      name: domain.name ?? null,
    },
  };
}

function parseDomain(raw: unknown): TypedDataDomain {
  if (!isObject(raw)) throw invalidArgument('domain: must be an object (name, version, chainId, verifyingContract, salt)');
  const extra = unknownKeys(raw, DOMAIN_KEYS);
  if (extra.length > 0) throw invalidArgument(`domain.${extra[0]}: is not an EIP-712 domain field (name, version, chainId, verifyingContract, salt)`);
  const domain: { -readonly [K in keyof TypedDataDomain]: TypedDataDomain[K] } = {};
  for (const field of ['name', 'version'] as const) {
    const value = raw[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidArgument(`domain.${field}: must be a string`);
    if (hasLoneSurrogate(value)) throw invalidArgument(`domain.${field}: must be well-formed Unicode text (it contains a lone surrogate)`);
    domain[field] = value;
  }
  if (raw.chainId !== undefined) domain.chainId = quantity(raw.chainId, 'domain.chainId', UINT256_MAX);
  if (raw.verifyingContract !== undefined) domain.verifyingContract = parseAddress(raw.verifyingContract, 'domain.verifyingContract');
  if (raw.salt !== undefined) {
    const salt = hexBytes(raw.salt, 'domain.salt');
    if (salt.length !== 66) throw invalidArgument('domain.salt: must be 32 bytes');
    domain.salt = salt;
  }
  return domain;
}

function parseTypes(raw: unknown): Record<string, TypedDataField[]> {
  if (!isObject(raw)) throw invalidArgument('types: must be an object of struct names to their fields');
  const types: Record<string, TypedDataField[]> = {};
  for (const [name, fields] of Object.entries(raw)) {
    if (!Array.isArray(fields)) throw invalidArgument(`types.${name}: must be a list of {"name", "type"} fields`);
    types[name] = fields.map((field, i) => {
      if (!isObject(field) || typeof field.name !== 'string' || typeof field.type !== 'string') {
        throw invalidArgument(`types.${name}[${i}]: must be {"name": string, "type": string}`);
      }
      return { name: field.name, type: field.type };
    });
  }
  return types;
}

/**
 * An EIP712Domain type, when given, must be the one the domain's fields imply (those present, in the
 * standard order): the digest is computed from the domain, so a different type would be signed as
 * something other than what the caller described.
 */
function checkDomainType(given: TypedDataField[] | undefined, domain: TypedDataDomain): void {
  if (given === undefined) return;
  const implied = DOMAIN_FIELDS.filter(([name]) => domain[name] !== undefined && domain[name] !== null);
  const same = given.length === implied.length && given.every((f, i) => f.name === implied[i]![0] && f.type === implied[i]![1]);
  if (!same) {
    const expected = implied.map(([name, type]) => `${type} ${name}`).join(', ');
    throw invalidArgument(`types.EIP712Domain: must list the domain's fields in the standard order (${expected || 'none'})`);
  }
}

/** The types `primaryType` refers to, directly or through others (itself included). */
function reachableTypes(types: Record<string, TypedDataField[]>, primaryType: string): Record<string, TypedDataField[]> {
  const reached: Record<string, TypedDataField[]> = {};
  const visit = (name: string) => {
    if (Object.hasOwn(reached, name) || !Object.hasOwn(types, name) || name === 'EIP712Domain') return;
    reached[name] = types[name]!;
    for (const field of types[name]!) visit(field.type.replace(ARRAY_SUFFIX, ''));
  };
  visit(primaryType);
  return reached;
}
