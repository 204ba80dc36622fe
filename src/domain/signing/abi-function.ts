import { invalidArgument } from '../errors.js';
import { keccak256 } from '../keccak.js';

/** One ABI parameter as it appears in ABI JSON, checked. */
export interface AbiParam {
  readonly name: string;
  /** Canonical type, e.g. `uint256`, `bytes32[2]`, `tuple[]`. */
  readonly type: string;
  readonly components?: readonly AbiParam[];
}

/** A function ABI item, parsed once and cached: what signing needs to know about it. */
export interface ParsedFunction {
  readonly name: string;
  /** `name(type,...)` with tuples written out, as hashed for the selector. */
  readonly signature: string;
  /** 0x-prefixed 4 bytes. */
  readonly selector: `0x${string}`;
  /** Inputs without the signature parameter, in order: what `args` must hold. */
  readonly argParams: readonly AbiParam[];
  /** Position of the signature parameter among all inputs. */
  readonly signatureIndex: number;
  readonly inputCount: number;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const ELEMENTARY = /^(address|bool|string|bytes([1-9]|[12][0-9]|3[0-2])?|u?int(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)?)$/;
const SIGNATURE_TYPES = ['bytes32', 'bytes32', 'bytes32', 'uint8'];

/**
 * Bounds on one ABI item, so that reading it, hashing its signature and checking arguments against it
 * cost a bounded amount whatever is sent. Real functions stay far inside them.
 */
export const ABI_LIMITS = Object.freeze({
  /** Tuples within tuples (or arrays of them). */
  maxDepth: 16,
  /** Characters in one `type` (`uint256[2][]` is 12). */
  maxTypeLength: 128,
  /** `[]` or `[n]` suffixes on one type. */
  maxArrayDimensions: 8,
  /** Inputs of the function, or components of one tuple. */
  maxWidth: 256,
  /** Parameters in the whole item: inputs and every component at any depth. */
  maxParams: 1024,
  /** Characters in the function's name or a parameter's name. */
  maxNameLength: 256,
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `uint` and `int` are aliases of their 256-bit forms in signatures. */
function canonicalElementary(t: string): string {
  if (t === 'uint') return 'uint256';
  if (t === 'int') return 'int256';
  return t;
}

const isLowerAlnum = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * Splits `base[2][]` into its base and its array suffix in one pass over the type, each character looked
 * at once, after the length is checked: cost is bounded by maxTypeLength whatever is sent.
 */
function splitType(type: string, path: string): { base: string; suffix: string } {
  if (type.length > ABI_LIMITS.maxTypeLength) {
    throw invalidArgument(`${path}.type: ${type.length} characters is longer than the limit of ${ABI_LIMITS.maxTypeLength}`);
  }
  const notAbi = () => invalidArgument(`${path}.type: "${type}" is not a Solidity ABI type`);
  let i = 0;
  while (i < type.length && isLowerAlnum(type.charCodeAt(i))) i++;
  const baseEnd = i;
  let dimensions = 0;
  while (i < type.length) {
    if (type.charCodeAt(i) !== 0x5b) throw notAbi();
    const digits = ++i;
    while (i < type.length && isDigit(type.charCodeAt(i))) i++;
    if (i === type.length || type.charCodeAt(i) !== 0x5d) throw notAbi();
    // No zero length, no leading zero (one spelling per type, as hashed into the selector), at most 6 digits.
    if (i > digits && (type.charCodeAt(digits) === 0x30 || i - digits > 6)) throw invalidArgument(`${path}.type: invalid array length in "${type}"`);
    i++;
    if (++dimensions > ABI_LIMITS.maxArrayDimensions) {
      throw invalidArgument(`${path}.type: more than ${ABI_LIMITS.maxArrayDimensions} array dimensions`);
    }
  }
  return { base: type.slice(0, baseEnd), suffix: type.slice(baseEnd) };
}

function checkName(raw: unknown, field: string): string {
  if (typeof raw !== 'string') throw invalidArgument(`${field}: must be a string`);
  if (raw.length > ABI_LIMITS.maxNameLength) {
    throw invalidArgument(`${field}: ${raw.length} characters is longer than the limit of ${ABI_LIMITS.maxNameLength}`);
  }
  return raw;
}

function checkWidth(list: unknown[], field: string): void {
  if (list.length > ABI_LIMITS.maxWidth) throw invalidArgument(`${field}: ${list.length} parameters is more than the limit of ${ABI_LIMITS.maxWidth}`);
}

/** Counts every parameter of the item as it is read, and refuses past maxParams. */
interface Budget {
  params: number;
}

function parseParam(raw: unknown, path: string, depth: number, budget: Budget): AbiParam {
  if (depth > ABI_LIMITS.maxDepth) throw invalidArgument(`${path}: tuples and arrays nest too deeply (max ${ABI_LIMITS.maxDepth})`);
  if (++budget.params > ABI_LIMITS.maxParams) {
    throw invalidArgument(`${path}: the ABI item has more than ${ABI_LIMITS.maxParams} parameters (inputs and components)`);
  }
  if (!isObject(raw)) throw invalidArgument(`${path}: must be an ABI parameter object`);
  const name = checkName(raw.name === undefined ? '' : raw.name, `${path}.name`);
  if (typeof raw.type !== 'string') throw invalidArgument(`${path}.type: must be a string`);
  const { base, suffix } = splitType(raw.type, path);
  if (base === 'tuple') {
    if (!Array.isArray(raw.components)) throw invalidArgument(`${path}.components: a tuple needs a components array`);
    checkWidth(raw.components, `${path}.components`);
    const components = raw.components.map((c, i) => parseParam(c, `${path}.components[${i}]`, depth + 1, budget));
    return { name, type: `tuple${suffix}`, components };
  }
  if (!ELEMENTARY.test(base)) throw invalidArgument(`${path}.type: "${raw.type}" is not a Solidity ABI type`);
  return { name, type: `${canonicalElementary(base)}${suffix}` };
}

/** The type as written in a function signature: tuples expand to `(t1,t2)`. */
export function signatureType(p: AbiParam): string {
  if (!p.type.startsWith('tuple')) return p.type;
  return `(${p.components!.map(signatureType).join(',')})${p.type.slice('tuple'.length)}`;
}

const isSignatureParam = (p: AbiParam) =>
  p.type === 'tuple' && p.components!.length === 4 && p.components!.every((c, i) => c.type === SIGNATURE_TYPES[i]);

/**
 * Checks one function ABI item (not the whole ABI array) and finds its signature parameter. With
 * `signatureRequired: false` (a policy naming a function a transaction calls, such as ERC-20's
 * `approve`), a function without one is read too: its `signatureIndex` is -1 and every input is an argument.
 */
export function parseAbiFunction(raw: unknown, { signatureRequired = true }: { signatureRequired?: boolean } = {}): ParsedFunction {
  if (Array.isArray(raw)) {
    throw invalidArgument('abi: must be the single ABI item of the function being signed, not the whole ABI array');
  }
  if (!isObject(raw)) throw invalidArgument('abi: must be an ABI function item (a JSON object)');
  const type = raw.type ?? 'function';
  if (type !== 'function') throw invalidArgument(`abi.type: must be "function" (got ${JSON.stringify(type)})`);
  if (typeof raw.name !== 'string' || raw.name.length > ABI_LIMITS.maxNameLength || !IDENTIFIER.test(raw.name)) {
    throw invalidArgument(`abi.name: must be a function name of at most ${ABI_LIMITS.maxNameLength} characters`);
  }
  if (!Array.isArray(raw.inputs)) throw invalidArgument('abi.inputs: must be an array');
  checkWidth(raw.inputs, 'abi.inputs');
  const budget: Budget = { params: 0 };
  const inputs = raw.inputs.map((p, i) => parseParam(p, `abi.inputs[${i}]`, 0, budget));
  const signatureIndexes = inputs.flatMap((p, i) => (isSignatureParam(p) ? [i] : []));
  if (signatureIndexes.length === 0 && signatureRequired) {
    throw invalidArgument('abi.inputs: no signature parameter (a tuple of bytes32 nonce, bytes32 r, bytes32 s, uint8 v)');
  }
  if (signatureIndexes.length > 1) throw invalidArgument('abi.inputs: more than one signature parameter');
  const signatureIndex = signatureIndexes[0] ?? -1;
  const signature = `${raw.name}(${inputs.map(signatureType).join(',')})`;
  const selector = `0x${Buffer.from(keccak256(new TextEncoder().encode(signature)).subarray(0, 4)).toString('hex')}` as const;
  return Object.freeze({
    name: raw.name,
    signature,
    selector,
    argParams: inputs.filter((_, i) => i !== signatureIndex),
    signatureIndex,
    inputCount: inputs.length,
  });
}
