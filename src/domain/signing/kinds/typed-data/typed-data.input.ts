import { parseAddress } from '../../../address.js';
import { invalidArgument } from '../../../errors.js';
import { hasLoneSurrogate } from '../../../unicode.js';
import { hexBytes, isObject, quantity, unknownKeys, UINT256_MAX, type HexString } from '../../payload-values.js';

/** Typed data's fields, as viem's signTypedData takes them (the body of sign-typed-data; adapters/http/schemas.ts states each one's JSON). */
export const TYPED_DATA_FIELDS = ['domain', 'types', 'primaryType', 'message'] as const;
const TOP_LEVEL: ReadonlySet<string> = new Set(TYPED_DATA_FIELDS);
/** EIP-712's domain fields, in the order its EIP712Domain type lists them when present. */
const DOMAIN_FIELDS = [
  ['name', 'string'],
  ['version', 'string'],
  ['chainId', 'uint256'],
  ['verifyingContract', 'address'],
  ['salt', 'bytes32'],
] as const;
const DOMAIN_KEYS = new Set(DOMAIN_FIELDS.map(([name]) => name));

/** An EIP-712 domain read and checked: each field present only when it was given. */
export interface TypedDataDomainInput {
  readonly name?: string;
  readonly version?: string;
  readonly chainId?: bigint;
  /** EIP-55. */
  readonly verifyingContract?: string;
  /** 32 bytes, lower-case hex. */
  readonly salt?: HexString;
}

/** One field of a struct type. */
export interface TypedDataField {
  readonly name: string;
  readonly type: string;
}

/**
 * Typed data read and checked within TYPED_DATA_LIMITS: its domain, the struct types the primary type
 * reaches (only those: viem accepts unused ones beside it, and they change nothing in the digest, but an
 * encoder would take them for a second primary type), and its message (encoded against the types by the
 * payloads port, which refuses a value that is not of its type).
 */
export interface TypedDataInput {
  readonly domain: TypedDataDomainInput;
  readonly types: Readonly<Record<string, readonly TypedDataField[]>>;
  readonly primaryType: string;
  readonly message: Readonly<Record<string, unknown>>;
}

/**
 * What typed data may hold, checked before an encoder reads its types. ethers (the payloads adapter's) finds cycles by walking
 * every path from the primary type (exponential in shared structs: 20 levels of two structs sharing a third
 * took seconds), and builds each struct's encoder from a fresh parse of all the types and a hash of the
 * struct's type string with all it reaches: the structs times the types' text. Real typed data is far
 * inside each bound (Permit2's, Seaport's and UniswapX's orders have at most six structs, some thirty
 * fields and about 1 000 characters of names and types; a Seaport bulk order's tree is at most 24
 * dimensions deep). The body's bounds do not cover JSON-RPC, whose typed data comes as one JSON string:
 * these do.
 */
export const TYPED_DATA_LIMITS = Object.freeze({
  /** Entries of `types`. */
  maxTypes: 32,
  /** Fields of one struct. */
  maxFields: 256,
  /** Fields of every struct together. */
  maxFieldsInAll: 512,
  /** Characters of the names and types of every struct and field together. */
  maxTypesText: 8192,
  /** Characters in a struct's name (a key of `types`, the primary type) or a field's name. */
  maxNameLength: 128,
  /** Characters in a field's type (`Permit[2][]` is 11). */
  maxTypeLength: 256,
  /** `[]` or `[n]` suffixes on one field's type. */
  maxArrayDimensions: 24,
  /** Paths from the primary type to the structs it reaches, a struct reached several ways counted once per way. */
  maxTypePaths: 1024,
});
const LIMITS = TYPED_DATA_LIMITS;

/** `{ domain, types, primaryType, message }` as viem's signTypedData takes them, checked before any encoder reads its types. */
export function readTypedData(input: unknown): TypedDataInput {
  if (!isObject(input)) throw invalidArgument('typedData: must be an object with domain, types, primaryType and message');
  const extra = unknownKeys(input, TOP_LEVEL);
  if (extra.length > 0) throw invalidArgument(`${extra[0]}: is not a field of typed data (domain, types, primaryType, message)`);
  const domain = parseDomain(input.domain);
  const types = parseTypes(input.types);
  const primaryType = input.primaryType;
  if (typeof primaryType !== 'string') throw invalidArgument('primaryType: must be the name of a type in types');
  if (primaryType.length > LIMITS.maxNameLength) throw invalidArgument(`primaryType: ${primaryType.length} characters is longer than the limit of ${LIMITS.maxNameLength}`);
  if (primaryType === 'EIP712Domain') throw invalidArgument('primaryType: EIP712Domain alone is not signed here (give the struct to sign)');
  if (!Object.hasOwn(types, primaryType)) throw invalidArgument(`primaryType: ${JSON.stringify(primaryType)} is not a type in types`);
  checkDomainType(types.EIP712Domain, domain);
  if (!isObject(input.message)) throw invalidArgument('message: must be an object (the primaryType struct)');
  return { domain, types: reachableTypes(types, primaryType), primaryType, message: input.message };
}

function parseDomain(raw: unknown): TypedDataDomainInput {
  if (!isObject(raw)) throw invalidArgument('domain: must be an object (name, version, chainId, verifyingContract, salt)');
  const extra = unknownKeys(raw, DOMAIN_KEYS);
  if (extra.length > 0) throw invalidArgument(`domain.${extra[0]}: is not an EIP-712 domain field (name, version, chainId, verifyingContract, salt)`);
  const domain: { -readonly [K in keyof TypedDataDomainInput]: TypedDataDomainInput[K] } = {};
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
  const entries = Object.entries(raw);
  if (entries.length > LIMITS.maxTypes) throw invalidArgument(`types: ${entries.length} types is more than the limit of ${LIMITS.maxTypes}`);
  const types: Record<string, TypedDataField[]> = {};
  let fieldsInAll = 0;
  let text = 0;
  const counted = (path: string, characters: number) => {
    text += characters;
    if (text > LIMITS.maxTypesText) throw invalidArgument(`${path}: more than ${LIMITS.maxTypesText} characters of names and types in all the types`);
  };
  for (const [name, fields] of entries) {
    if (name.length > LIMITS.maxNameLength) throw invalidArgument(`types: a type name of ${name.length} characters is longer than the limit of ${LIMITS.maxNameLength}`);
    if (!Array.isArray(fields)) throw invalidArgument(`types.${name}: must be a list of {"name", "type"} fields`);
    if (fields.length > LIMITS.maxFields) throw invalidArgument(`types.${name}: ${fields.length} fields is more than the limit of ${LIMITS.maxFields}`);
    fieldsInAll += fields.length;
    if (fieldsInAll > LIMITS.maxFieldsInAll) throw invalidArgument(`types.${name}: more than ${LIMITS.maxFieldsInAll} fields in all the types`);
    counted(`types.${name}`, name.length);
    types[name] = fields.map((field, i) => {
      const path = `types.${name}[${i}]`;
      if (!isObject(field) || typeof field.name !== 'string' || typeof field.type !== 'string') throw invalidArgument(`${path}: must be {"name": string, "type": string}`);
      if (field.name.length > LIMITS.maxNameLength) throw invalidArgument(`${path}.name: ${field.name.length} characters is longer than the limit of ${LIMITS.maxNameLength}`);
      if (field.type.length > LIMITS.maxTypeLength) throw invalidArgument(`${path}.type: ${field.type.length} characters is longer than the limit of ${LIMITS.maxTypeLength}`);
      if (arrayDimensions(field.type) > LIMITS.maxArrayDimensions) throw invalidArgument(`${path}.type: more than ${LIMITS.maxArrayDimensions} array dimensions`);
      counted(path, field.name.length + field.type.length);
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
function checkDomainType(given: readonly TypedDataField[] | undefined, domain: TypedDataDomainInput): void {
  if (given === undefined) return;
  const implied = DOMAIN_FIELDS.filter(([name]) => domain[name] !== undefined && domain[name] !== null);
  const same = given.length === implied.length && given.every((f, i) => f.name === implied[i]![0] && f.type === implied[i]![1]);
  if (!same) {
    const expected = implied.map(([name, type]) => `${type} ${name}`).join(', ');
    throw invalidArgument(`types.EIP712Domain: must list the domain's fields in the standard order (${expected || 'none'})`);
  }
}

/**
 * Where a field type's array suffixes start (`Permit[2][]` → 6), as ethers reads them: the type's length
 * when the text after its first `[` is not a run of `[digits]` (then the whole type is its base). One pass.
 */
function suffixStart(type: string): number {
  const start = type.indexOf('[');
  if (start === -1) return type.length;
  let i = start;
  while (i < type.length) {
    if (type.charCodeAt(i) !== 0x5b) return type.length;
    i++;
    while (i < type.length && type.charCodeAt(i) >= 0x30 && type.charCodeAt(i) <= 0x39) i++;
    if (i === type.length || type.charCodeAt(i) !== 0x5d) return type.length;
    i++;
  }
  return start;
}

/** The struct or elementary type a field's type is an array of (`Permit[2][]` → `Permit`), or the type itself. */
export function baseTypeOf(type: string): string {
  return type.slice(0, suffixStart(type));
}

/** The `[]` or `[n]` suffixes on a field's type (0 when it is no array, or not one ethers would read). */
function arrayDimensions(type: string): number {
  let n = 0;
  for (let i = suffixStart(type); i < type.length; i++) if (type.charCodeAt(i) === 0x5b) n++;
  return n;
}

/**
 * The types `primaryType` refers to, directly or through others (itself included), found without
 * recursion: refused when they refer to each other in a circle, or when the paths from the primary type to
 * them (what ethers walks, every one) are more than LIMITS.maxTypePaths. The paths are counted per struct,
 * in an order where every struct comes after all that refer to it: linear in the types' fields (naming a
 * circle, when there is one, walks back over the few structs left over).
 */
function reachableTypes(types: Record<string, TypedDataField[]>, primaryType: string): Record<string, TypedDataField[]> {
  const isStruct = (name: string) => Object.hasOwn(types, name) && name !== 'EIP712Domain';
  /** The structs each reached struct's fields name, each once (ethers links a struct to another once). */
  const children = new Map<string, string[]>();
  const reached: string[] = [];
  const pending = [primaryType];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (children.has(name) || !isStruct(name)) continue;
    const named = [...new Set(types[name]!.map((f) => baseTypeOf(f.type)))].filter(isStruct);
    children.set(name, named);
    reached.push(name);
    pending.push(...named);
  }
  const referrers = new Map(reached.map((name) => [name, 0]));
  for (const name of reached) for (const child of children.get(name)!) referrers.set(child, referrers.get(child)! + 1);
  // Kahn's order from the primary type: a struct left with referrers at the end is on a circle.
  const paths = new Map<string, number>([[primaryType, 1]]);
  const ready = referrers.get(primaryType) === 0 ? [primaryType] : [];
  let ordered = 0;
  let total = 0;
  while (ready.length > 0) {
    const name = ready.pop()!;
    ordered++;
    total += paths.get(name)!;
    if (total > LIMITS.maxTypePaths) {
      throw invalidArgument(`types: ${primaryType} reaches its structs along more than ${LIMITS.maxTypePaths} paths (a struct used by several types counts once for each way to it)`);
    }
    for (const child of children.get(name)!) {
      paths.set(child, (paths.get(child) ?? 0) + paths.get(name)!);
      const left = referrers.get(child)! - 1;
      referrers.set(child, left);
      if (left === 0) ready.push(child);
    }
  }
  if (ordered < reached.length) {
    // A struct left over is referred to by one left over: going back along those from any of them comes
    // round to a struct on the circle.
    const left = (name: string) => referrers.get(name)! > 0;
    const seen = new Set<string>();
    let on = reached.find(left)!;
    while (!seen.has(on)) {
      seen.add(on);
      on = reached.find((name) => left(name) && children.get(name)!.includes(on))!;
    }
    throw invalidArgument(`types: circular type reference to ${JSON.stringify(on)}`);
  }
  return Object.fromEntries(reached.map((name) => [name, types[name]!]));
}
