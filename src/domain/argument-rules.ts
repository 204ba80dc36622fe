import { toChecksumAddress } from './address.js';
import { showValue } from './show-value.js';
import type { AbiParam, ParsedFunction } from './signing/abi-function.js';
import type { AbiValue } from './signing/argument-coercion.js';

/** What a rule asks of an argument; the CLI spells them --eq, --in, --lte, --gte, --address-in, --bytes-prefix, --max-length. */
export type ArgumentRuleOp = 'eq' | 'in' | 'lte' | 'gte' | 'lt' | 'gt' | 'addressIn' | 'bytesPrefix' | 'maxLength';

/**
 * A rule on one decoded argument of one function, checked on the values the vault has parsed against
 * the request's ABI item, before anything is signed. A rule names its argument by position: names in a
 * request's ABI item are the client's to choose (they are not part of the selector), so a name is
 * resolved once, when the rule is added, against the operator's signature text.
 */
export interface ArgumentRule {
  /** 0x + 8 lower-case hex digits: the rule applies to signs of this function only. */
  readonly selector: string;
  /**
   * The canonical signature (types only, as hashed for the selector) when the operator gave the function
   * as text. A request whose function has this selector but another signature (a selector collision,
   * about 2^32 hashes to find) is refused rather than judged by types the rule was not written for.
   */
  readonly signature?: string;
  /**
   * Where the argument is: its index in the request's `args` (the signature parameter excluded), then a
   * component index for each tuple level below it. Arrays on the way are walked: the rule holds for
   * every element.
   */
  readonly path: readonly number[];
  /** The argument's name along the path (`order.item.amount`) when the signature text named every step. */
  readonly name?: string;
  readonly op: ArgumentRuleOp;
  /**
   * eq, lte, gte, bytesPrefix, maxLength: one value; in, addressIn: one or more. Integers in decimal,
   * addresses EIP-55, bytes lower-case hex; values of a rule given by selector alone (types unknown) as
   * typed, compared by the argument's type when a request comes.
   */
  readonly values: readonly string[];
}

/** Bounds on what one policy holds, so that checking a sign against its rules stays cheap. */
export const ARGUMENT_RULE_LIMITS = Object.freeze({
  maxRules: 256,
  /** Values in one rule's list. */
  maxValues: 1000,
  /** Values in all of a policy's rules: the policy is one JSON document, read again every few seconds. */
  maxPolicyValues: 10_000,
  maxPathDepth: 16,
});

// Shared with argument-rule-input.ts, which reads rules as operators write them.
export const SELECTOR = /^0x[0-9a-fA-F]{8}$/;
export const INT_TYPE = /^(u?)int(\d+)$/;
export const BYTES_TYPE = /^bytes(\d*)$/;
export const HEX_BYTES = /^0x([0-9a-fA-F]{2})*$/;
const INTEGER = /^-?(\d+|0x[0-9a-fA-F]+)$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const OPS: readonly ArgumentRuleOp[] = ['eq', 'in', 'lte', 'gte', 'lt', 'gt', 'addressIn', 'bytesPrefix', 'maxLength'];
const OP_WORDS: Record<ArgumentRuleOp, string> = {
  eq: 'eq',
  in: 'in',
  lte: 'lte',
  gte: 'gte',
  lt: 'lt',
  gt: 'gt',
  addressIn: 'address-in',
  bytesPrefix: 'bytes-prefix',
  maxLength: 'max-length',
};

export const isArrayType = (type: string) => type.endsWith(']');
export const elementParam = (p: AbiParam): AbiParam => ({ ...p, type: p.type.slice(0, p.type.lastIndexOf('[')) });
/** The type of the values an op compares: arrays stripped down to their elements. */
export const baseType = (type: string) => {
  const open = type.indexOf('[');
  return open === -1 ? type : type.slice(0, open);
};

// ---- Checking a sign ---------------------------------------------------------------------------------

/**
 * What is wrong with `args` by one rule (the place and the value, `args[1] amount: 5000 > 1000`), or null
 * when they keep it. The rule is taken as written for `fn`: selectors are the caller's to compare.
 */
export function checkArgumentRule(rule: ArgumentRule, fn: ParsedFunction, args: readonly AbiValue[]): string | null {
  return checkRule(rule, fn, args);
}

function checkRule(rule: ArgumentRule, fn: ParsedFunction, args: readonly AbiValue[]): string | null {
  const index = rule.path[0]!;
  const param = fn.argParams[index];
  if (param === undefined) return `args[${index}]: ${fn.signature} has ${fn.argParams.length} arguments, the rule needs one at args[${index}]`;
  const problem = walk(rule, param, args[index]!, 1);
  if (problem === null) return null;
  const place = `args[${index}]${problem.segments.reverse().join('')}`;
  return `${rule.name === undefined ? place : `${place} ${rule.name}`}: ${problem.text}`;
}

/**
 * What is wrong with one value, and where it is (segments innermost first): the place is written only
 * for the value refused, never for each value that passes.
 */
interface Problem {
  readonly text: string;
  readonly segments: string[];
}

const problem = (text: string): Problem => ({ text, segments: [] });
const at = (found: Problem | null, segment: number): Problem | null => {
  if (found !== null) found.segments.push(`[${segment}]`);
  return found;
};

/** Follows the rule's path down tuples, through every element of arrays on the way, to the values it judges. */
function walk(rule: ArgumentRule, param: AbiParam, value: AbiValue, step: number): Problem | null {
  const atEnd = step === rule.path.length;
  if (isArrayType(param.type) && !(atEnd && rule.op === 'maxLength')) {
    const element = elementParam(param);
    const items = value as readonly AbiValue[];
    for (let i = 0; i < items.length; i++) {
      const found = at(walk(rule, element, items[i]!, step), i);
      if (found !== null) return found;
    }
    return null;
  }
  if (atEnd) return judge(rule, param.type, value);
  const index = rule.path[step]!;
  const component = param.type === 'tuple' ? param.components![index] : undefined;
  if (component === undefined) return problem(`is ${param.type}, the rule needs a tuple component ${index} in it`);
  return at(walk(rule, component, (value as readonly AbiValue[])[index]!, step + 1), index);
}

function judge(rule: ArgumentRule, type: string, value: AbiValue): Problem | null {
  const unfit = typeMismatch(rule.op, type);
  if (unfit !== null) return problem(`is ${type}, ${unfit}`);
  const kind = kindOf(type);
  const values = compiledValues(rule, kind);
  const first = rule.values[0];
  switch (rule.op) {
    case 'lte':
      return (value as bigint) > (values.first as bigint) ? problem(`${value} > ${first}`) : null;
    case 'gte':
      return (value as bigint) < (values.first as bigint) ? problem(`${value} < ${first}`) : null;
    case 'lt':
      return (value as bigint) >= (values.first as bigint) ? problem(`${value} >= ${first}`) : null;
    case 'gt':
      return (value as bigint) <= (values.first as bigint) ? problem(`${value} <= ${first}`) : null;
    case 'eq':
      return values.first === value ? null : problem(`${shown(kind, value)} is not ${first}`);
    case 'in':
    case 'addressIn':
      return values.all.has(value) ? null : problem(`${shown(kind, value)} is not one of ${listed(rule.values)}`);
    case 'bytesPrefix':
      return (value as string).startsWith(values.first as string) ? null : problem(`${shown(kind, value)} does not start with ${first}`);
    case 'maxLength': {
      const length = lengthOf(kind, value);
      return length > Number(first) ? problem(`length ${length} > ${first}`) : null;
    }
  }
}

/** What an argument's type is, for the rules: a few kinds, each type string classified once. */
type Kind = 'int' | 'address' | 'bool' | 'bytes' | 'string' | 'tuple' | 'array';
const kinds = new Map<string, Kind>();
function kindOf(type: string): Kind {
  let kind = kinds.get(type);
  if (kind === undefined) {
    const base = baseType(type);
    kind = base !== type ? 'array' : INT_TYPE.test(type) ? 'int' : BYTES_TYPE.test(type) ? 'bytes' : (type as Kind);
    // The kinds of canonical ABI types are few; a bound keeps a stream of odd ones from growing it.
    if (kinds.size < 1024) kinds.set(type, kind);
  }
  return kind;
}

/**
 * A rule's values in the form coerced arguments of `kind` take (bigint, EIP-55, lower-case hex), made
 * once per rule and kind: a policy is read from its cache as the same objects sign after sign. Values a
 * kind cannot take (a word where an integer is judged) match nothing.
 */
interface CompiledValues {
  readonly first: AbiValue | null;
  readonly all: ReadonlySet<AbiValue | null>;
}
const compiled = new WeakMap<ArgumentRule, Map<Kind, CompiledValues>>();
function compiledValues(rule: ArgumentRule, kind: Kind): CompiledValues {
  let byKind = compiled.get(rule);
  if (byKind === undefined) compiled.set(rule, (byKind = new Map()));
  let values = byKind.get(kind);
  if (values === undefined) {
    const list = rule.values.map((text) => valueOfKind(kind, text));
    values = { first: list[0] ?? null, all: new Set(list) };
    byKind.set(kind, values);
  }
  return values;
}

function valueOfKind(kind: Kind, text: string): AbiValue | null {
  switch (kind) {
    case 'int':
      return integerOrNull(text);
    case 'address':
      return ADDRESS.test(text) ? toChecksumAddress(text) : null;
    case 'bytes':
      return text.toLowerCase();
    case 'bool':
      return text === 'true' ? true : text === 'false' ? false : null;
    default:
      return text;
  }
}

/** Bytes of the value as the contract sees them: elements of an array, bytes of `bytes` and of UTF-8 `string`. */
function lengthOf(kind: Kind, value: AbiValue): number {
  if (Array.isArray(value)) return value.length;
  if (kind === 'string') return utf8Length(value as string);
  return ((value as string).length - 2) / 2;
}

/** UTF-8 length without encoding the text (coerced strings are well-formed: no lone surrogates). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function shown(kind: Kind, value: AbiValue): string {
  if (typeof value === 'bigint' || typeof value === 'boolean' || kind === 'address') return String(value);
  if (kind === 'string') return showValue(value);
  const hex = value as string;
  return hex.length > 80 ? `${hex.slice(0, 77)}...` : hex;
}

const listed = (values: readonly string[]) =>
  values.length <= 5 ? values.join(', ') : `${values.slice(0, 5).join(', ')}, ... (${values.length} values)`;

/**
 * Why an op cannot judge a value of `type`, or null when it can. At add time `type` is the declared one
 * at the end of the path (arrays judged by their elements, except by maxLength); at sign time arrays
 * are already walked, except for maxLength.
 */
export function typeMismatch(op: ArgumentRuleOp, type: string): string | null {
  if (op === 'maxLength') {
    return type === 'bytes' || type === 'string' || type.endsWith('[]') ? null : 'the rule measures bytes, string or a dynamic array ([])';
  }
  const kind = kindOf(baseType(type));
  switch (op) {
    case 'lte':
    case 'gte':
    case 'lt':
    case 'gt':
      return kind === 'int' ? null : 'the rule compares integers';
    case 'addressIn':
      return kind === 'address' ? null : 'the rule lists addresses';
    case 'bytesPrefix':
      return kind === 'bytes' ? null : 'the rule compares bytes';
    default:
      return kind === 'tuple' ? 'the rule compares single values (name a component of the tuple)' : null;
  }
}

// ---- Describing a rule -------------------------------------------------------------------------------

/** `mint(address,uint256,(bytes32,bytes32,bytes32,uint8)) amount lte 1000`, as `policies show` lists it. */
export function describeArgumentRule(rule: ArgumentRule): string {
  return `${rule.signature ?? rule.selector} ${rule.name ?? positional(rule.path)} ${OP_WORDS[rule.op]} ${listed(rule.values)}`;
}

export const positional = (path: readonly number[]) => `args${path.map((i) => `[${i}]`).join('')}`;

/** Decimal or 0x hex, optionally negative; null for anything else (a rule value that can match no integer). */
export function integerOrNull(text: string): bigint | null {
  if (!INTEGER.test(text) || text.length > 100) return null;
  return text.startsWith('-') ? -BigInt(text.slice(1)) : BigInt(text);
}
