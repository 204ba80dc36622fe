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
const ARRAY_SUFFIX = /^(.*)\[(\d*)\]$/;
const SIGNATURE_TYPES = ['bytes32', 'bytes32', 'bytes32', 'uint8'];
const MAX_DEPTH = 16;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `uint` and `int` are aliases of their 256-bit forms in signatures. */
function canonicalElementary(t: string): string {
  if (t === 'uint') return 'uint256';
  if (t === 'int') return 'int256';
  return t;
}

function parseParam(raw: unknown, path: string, depth: number): AbiParam {
  if (depth > MAX_DEPTH) throw invalidArgument(`${path}: tuples and arrays nest too deeply (max ${MAX_DEPTH})`);
  if (!isObject(raw)) throw invalidArgument(`${path}: must be an ABI parameter object`);
  const name = raw.name === undefined ? '' : raw.name;
  if (typeof name !== 'string') throw invalidArgument(`${path}.name: must be a string`);
  if (typeof raw.type !== 'string') throw invalidArgument(`${path}.type: must be a string`);
  let base = raw.type;
  const suffixes: string[] = [];
  for (let m = ARRAY_SUFFIX.exec(base); m; m = ARRAY_SUFFIX.exec(base)) {
    if (m[2] !== '' && (Number(m[2]) === 0 || m[2]!.length > 6)) throw invalidArgument(`${path}.type: invalid array length in "${raw.type}"`);
    suffixes.unshift(`[${m[2]}]`);
    base = m[1]!;
  }
  if (base === 'tuple') {
    if (!Array.isArray(raw.components)) throw invalidArgument(`${path}.components: a tuple needs a components array`);
    const components = raw.components.map((c, i) => parseParam(c, `${path}.components[${i}]`, depth + 1));
    return { name, type: `tuple${suffixes.join('')}`, components };
  }
  if (!ELEMENTARY.test(base)) throw invalidArgument(`${path}.type: "${raw.type}" is not a Solidity ABI type`);
  return { name, type: `${canonicalElementary(base)}${suffixes.join('')}` };
}

/** The type as written in a function signature: tuples expand to `(t1,t2)`. */
export function signatureType(p: AbiParam): string {
  if (!p.type.startsWith('tuple')) return p.type;
  return `(${p.components!.map(signatureType).join(',')})${p.type.slice('tuple'.length)}`;
}

const isSignatureParam = (p: AbiParam) =>
  p.type === 'tuple' && p.components!.length === 4 && p.components!.every((c, i) => c.type === SIGNATURE_TYPES[i]);

/** Checks one function ABI item (not the whole ABI array) and finds its signature parameter. */
export function parseAbiFunction(raw: unknown): ParsedFunction {
  if (Array.isArray(raw)) {
    throw invalidArgument('abi: must be the single ABI item of the function being signed, not the whole ABI array');
  }
  if (!isObject(raw)) throw invalidArgument('abi: must be an ABI function item (a JSON object)');
  const type = raw.type ?? 'function';
  if (type !== 'function') throw invalidArgument(`abi.type: must be "function" (got ${JSON.stringify(type)})`);
  if (typeof raw.name !== 'string' || !IDENTIFIER.test(raw.name)) throw invalidArgument('abi.name: must be a function name');
  if (!Array.isArray(raw.inputs)) throw invalidArgument('abi.inputs: must be an array');
  const inputs = raw.inputs.map((p, i) => parseParam(p, `abi.inputs[${i}]`, 0));
  const signatureIndexes = inputs.flatMap((p, i) => (isSignatureParam(p) ? [i] : []));
  if (signatureIndexes.length === 0) {
    throw invalidArgument('abi.inputs: no signature parameter (a tuple of bytes32 nonce, bytes32 r, bytes32 s, uint8 v)');
  }
  if (signatureIndexes.length > 1) throw invalidArgument('abi.inputs: more than one signature parameter');
  const signatureIndex = signatureIndexes[0]!;
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
