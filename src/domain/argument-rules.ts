import { parseAddress, toChecksumAddress } from './address.js';
import { invalidArgument } from './errors.js';
import { showValue } from './show-value.js';
import type { AbiParam, ParsedFunction } from './signing/abi-function.js';
import type { AbiValue } from './signing/argument-coercion.js';
import { parseFunctionText } from './signing/function-signature.js';

/** What a rule asks of an argument; the CLI spells them --eq, --in, --lte, --gte, --address-in, --bytes-prefix, --max-length. */
export type ArgumentRuleOp = 'eq' | 'in' | 'lte' | 'gte' | 'addressIn' | 'bytesPrefix' | 'maxLength';

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

/** A rule as an operator writes it: each operator given becomes one rule on the same argument. */
export interface ArgumentRuleInput {
  /** A selector (0x + 8 hex), signature text (with parameter names for a named `arg`) or a JSON ABI item. */
  readonly function: string;
  /** A name or dotted path of names (`order.amount`), a position (`1`, `0.2`) or `args[0][2]`. */
  readonly arg: string;
  readonly eq?: string;
  readonly in?: readonly string[];
  readonly lte?: string;
  readonly gte?: string;
  readonly addressIn?: readonly string[];
  readonly bytesPrefix?: string;
  readonly maxLength?: string;
}

/** Bounds on what one policy holds, so that checking a sign against its rules stays cheap. */
export const ARGUMENT_RULE_LIMITS = Object.freeze({ maxRules: 256, maxValues: 1000, maxPathDepth: 16 });

const SELECTOR = /^0x[0-9a-fA-F]{8}$/;
const INT_TYPE = /^(u?)int(\d+)$/;
const BYTES_TYPE = /^bytes(\d*)$/;
const HEX_BYTES = /^0x([0-9a-fA-F]{2})*$/;
const INTEGER = /^-?(\d+|0x[0-9a-fA-F]+)$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const OPS: readonly ArgumentRuleOp[] = ['eq', 'in', 'lte', 'gte', 'addressIn', 'bytesPrefix', 'maxLength'];
const OP_WORDS: Record<ArgumentRuleOp, string> = {
  eq: 'eq',
  in: 'in',
  lte: 'lte',
  gte: 'gte',
  addressIn: 'address-in',
  bytesPrefix: 'bytes-prefix',
  maxLength: 'max-length',
};

const isArrayType = (type: string) => type.endsWith(']');
const elementParam = (p: AbiParam): AbiParam => ({ ...p, type: p.type.slice(0, p.type.lastIndexOf('[')) });
/** The type of the values an op compares: arrays stripped down to their elements. */
const baseType = (type: string) => {
  const open = type.indexOf('[');
  return open === -1 ? type : type.slice(0, open);
};

// ---- Checking a sign ---------------------------------------------------------------------------------

/**
 * The first rule the request's arguments break, as the message a client sees, or null. `args` are the
 * values coerceArguments returned for `fn` (tuples as arrays in component order). Only rules of `fn`'s
 * selector are looked at, so a policy without rules, or without rules for this function, costs a loop.
 */
export function argumentRuleViolation(rules: readonly ArgumentRule[] | undefined, fn: ParsedFunction, args: readonly AbiValue[]): string | null {
  if (rules === undefined) return null;
  for (const rule of rules) {
    if (rule.selector !== fn.selector) continue;
    const problem =
      rule.signature !== undefined && rule.signature !== fn.signature
        ? `function ${fn.signature} has the selector of ${rule.signature} but is another function`
        : checkRule(rule, fn, args);
    if (problem !== null) return `policy: ${problem} (rule: ${describeArgumentRule(rule)})`;
  }
  return null;
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
function typeMismatch(op: ArgumentRuleOp, type: string): string | null {
  if (op === 'maxLength') {
    return type === 'bytes' || type === 'string' || type.endsWith('[]') ? null : 'the rule measures bytes, string or a dynamic array ([])';
  }
  const kind = kindOf(baseType(type));
  switch (op) {
    case 'lte':
    case 'gte':
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

const positional = (path: readonly number[]) => `args${path.map((i) => `[${i}]`).join('')}`;

// ---- Adding rules ------------------------------------------------------------------------------------

/**
 * Reads the rules an operator gives for one argument: the function must parse, the argument must exist
 * in it, and its type must fit each operator (when the function is given by selector alone, only its
 * position can be named and types are checked when a request comes). At least one operator is needed.
 */
export function parseArgumentRules(input: ArgumentRuleInput): ArgumentRule[] {
  const target = parseRuleTarget(input.function, input.arg);
  const ops = OPS.filter((op) => input[op] !== undefined);
  if (ops.length === 0) throw invalidArgument('rule: give at least one of eq, in, lte, gte, addressIn, bytesPrefix, maxLength');
  return ops.map((op) => {
    if (target.type !== undefined) {
      const unfit = typeMismatch(op, target.type);
      if (unfit !== null) throw invalidArgument(`${op}: argument ${target.label} is ${target.type}, ${unfit}`);
    }
    const raw = input[op]!;
    const given = typeof raw === 'string' ? [raw] : raw;
    if (given.length === 0) throw invalidArgument(`${op}: must name at least one value`);
    if (given.length > ARGUMENT_RULE_LIMITS.maxValues) throw invalidArgument(`${op}: ${given.length} values is more than the limit of ${ARGUMENT_RULE_LIMITS.maxValues}`);
    const base = target.type === undefined ? undefined : baseType(target.type);
    const rule: { -readonly [K in keyof ArgumentRule]: ArgumentRule[K] } = {
      selector: target.selector,
      path: target.path,
      op,
      // Duplicates dropped once normalised (0x10 and 16 are one value), order kept.
      values: [...new Set(given.map((v) => normaliseValue(op, v.trim(), base)))],
    };
    if (target.signature !== undefined) rule.signature = target.signature;
    if (target.name !== undefined) rule.name = target.name;
    return rule;
  });
}

function normaliseValue(op: ArgumentRuleOp, text: string, type: string | undefined): string {
  switch (op) {
    case 'lte':
    case 'gte':
      return integerText(op, text, undefined);
    case 'maxLength':
      if (!/^\d{1,9}$/.test(text)) throw invalidArgument(`maxLength: ${showValue(text)} is not a whole number of at most 9 digits`);
      return String(Number(text));
    case 'addressIn':
      return parseAddress(text, 'addressIn');
    case 'bytesPrefix':
      if (!HEX_BYTES.test(text) || text.length === 2) throw invalidArgument(`bytesPrefix: ${showValue(text)} is not 0x-prefixed hex of at least one byte`);
      return text.toLowerCase();
    default:
      return type === undefined ? text : typedValue(op, text, type);
  }
}

/** An eq/in value for an argument of a known type, in the form coerced arguments of that type take. */
function typedValue(op: ArgumentRuleOp, text: string, type: string): string {
  if (INT_TYPE.test(type)) return integerText(op, text, type);
  if (type === 'address') return parseAddress(text, op);
  if (type === 'bool') {
    if (text !== 'true' && text !== 'false') throw invalidArgument(`${op}: ${showValue(text)} is not true or false (the argument is bool)`);
    return text;
  }
  const bytes = BYTES_TYPE.exec(type);
  if (bytes) {
    if (!HEX_BYTES.test(text)) throw invalidArgument(`${op}: ${showValue(text)} is not 0x-prefixed hex bytes (the argument is ${type})`);
    if (bytes[1] !== '' && (text.length - 2) / 2 !== Number(bytes[1])) throw invalidArgument(`${op}: ${showValue(text)} is not ${bytes[1]} bytes (the argument is ${type})`);
    return text.toLowerCase();
  }
  return text;
}

/** Decimal or 0x hex, optionally negative, as decimal; within the type's range when the type is known. */
function integerText(op: ArgumentRuleOp, text: string, type: string | undefined): string {
  const value = integerOrNull(text);
  if (value === null) throw invalidArgument(`${op}: ${showValue(text)} is not an integer (decimal or 0x hex)`);
  const int = type === undefined ? null : INT_TYPE.exec(type);
  if (int) {
    const bits = BigInt(int[2] || 256);
    const [min, max] = int[1] === 'u' ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
    if (value < min || value > max) throw invalidArgument(`${op}: ${text} is outside the range of ${type}, no argument can equal it`);
  }
  return value.toString();
}

function integerOrNull(text: string): bigint | null {
  if (!INTEGER.test(text) || text.length > 100) return null;
  return text.startsWith('-') ? -BigInt(text.slice(1)) : BigInt(text);
}

interface RuleTarget {
  readonly selector: string;
  readonly signature?: string;
  readonly path: number[];
  readonly name?: string;
  /** The declared type at the end of the path, when the function was given as text. */
  readonly type?: string;
  readonly label: string;
}

/** The function and argument a rule is about, resolved to a selector and a path of positions. */
export function parseRuleTarget(functionText: string, arg: string): RuleTarget {
  const text = functionText.trim();
  const segments = argSegments(arg.trim());
  if (SELECTOR.test(text)) {
    const named = segments.find((s) => typeof s === 'string');
    if (named !== undefined) {
      throw invalidArgument(`arg: ${JSON.stringify(named)} is a name, and a selector says nothing of names: give the function as signature text with parameter names, or the argument by position`);
    }
    const path = segments as number[];
    return { selector: text.toLowerCase(), path, label: positional(path) };
  }
  const fn = parseFunctionText(text);
  return { selector: fn.selector, signature: fn.signature, ...resolvePath(fn, segments) };
}

/** `args[0][2]` or `order.amount` / `0.2` as segments: numbers are positions, strings names. */
function argSegments(arg: string): (string | number)[] {
  const bracketed = /^args((?:\[\d{1,6}\])+)$/.exec(arg);
  const segments = bracketed ? bracketed[1]!.slice(1, -1).split('][') : arg.split('.');
  if (segments.length > ARGUMENT_RULE_LIMITS.maxPathDepth) throw invalidArgument(`arg: more than ${ARGUMENT_RULE_LIMITS.maxPathDepth} steps`);
  return segments.map((s) => {
    if (/^\d{1,6}$/.test(s)) return Number(s);
    if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s)) return s;
    throw invalidArgument(`arg: ${JSON.stringify(arg)} is not a name, a dotted path of names or positions (order.amount, 0.1) or args[i][j]`);
  });
}

function resolvePath(fn: ParsedFunction, segments: readonly (string | number)[]): Omit<RuleTarget, 'selector' | 'signature'> {
  let params: readonly AbiParam[] = fn.argParams;
  let param: AbiParam | undefined;
  const path: number[] = [];
  const names: string[] = [];
  for (const segment of segments) {
    if (param !== undefined) {
      let inner = param;
      while (isArrayType(inner.type)) inner = elementParam(inner);
      if (inner.type !== 'tuple') throw invalidArgument(`arg: ${readable(path, names)} is ${param.type}, it has no component ${JSON.stringify(segment)}`);
      params = inner.components!;
    }
    const index = typeof segment === 'number' ? segment : params.findIndex((p) => p.name === segment);
    if (index < 0 || index >= params.length) {
      const where = param === undefined ? `${fn.name}'s arguments (the signature parameter not counted)` : readable(path, names);
      const known = params.map((p, i) => p.name || String(i)).join(', ');
      throw invalidArgument(`arg: ${JSON.stringify(segment)} is not one of ${where}: ${known}`);
    }
    param = params[index]!;
    path.push(index);
    names.push(param.name);
  }
  const name = names.every((n) => n !== '') ? names.join('.') : undefined;
  return { path, name, type: param!.type, label: readable(path, names) };
}

const readable = (path: readonly number[], names: readonly string[]) =>
  names.every((n) => n !== '') ? names.join('.') : positional(path);

// ---- Keeping a policy's rules ------------------------------------------------------------------------

const sameRule = (a: ArgumentRule, b: ArgumentRule) => JSON.stringify(a) === JSON.stringify(b);

/** The rules with `added` appended (one already there is not added twice), within the limit. */
export function withArgumentRules(rules: readonly ArgumentRule[] | undefined, added: readonly ArgumentRule[]): ArgumentRule[] {
  const all = [...(rules ?? [])];
  for (const rule of added) if (!all.some((r) => sameRule(r, rule))) all.push(rule);
  if (all.length > ARGUMENT_RULE_LIMITS.maxRules) {
    throw invalidArgument(`rules: ${all.length} rules is more than the limit of ${ARGUMENT_RULE_LIMITS.maxRules} per policy`);
  }
  return all;
}

/** Which rules `policies rules remove` takes away: those of a function, or of one of its arguments. */
export function ruleMatcher(functionText: string, arg: string | undefined): (rule: ArgumentRule) => boolean {
  if (arg === undefined) {
    const text = functionText.trim();
    const selector = SELECTOR.test(text) ? text.toLowerCase() : parseFunctionText(text).selector;
    return (rule) => rule.selector === selector;
  }
  const target = parseRuleTarget(functionText, arg);
  return (rule) => rule.selector === target.selector && positional(rule.path) === positional(target.path);
}
