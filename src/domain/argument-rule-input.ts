import { parseAddress } from './address.js';
import {
  ARGUMENT_RULE_LIMITS,
  baseType,
  BYTES_TYPE,
  elementParam,
  HEX_BYTES,
  INT_TYPE,
  integerOrNull,
  isArrayType,
  OPS,
  positional,
  SELECTOR,
  typeMismatch,
  type ArgumentRule,
  type ArgumentRuleOp,
} from './argument-rules.js';
import { invalidArgument } from './errors.js';
import { showValue } from './show-value.js';
import type { AbiParam, ParsedFunction } from './signing/abi-function.js';
import { parseFunctionText } from './signing/function-signature.js';

/**
 * Rules on arguments as an operator writes them (`policies rules add|remove`), read into ArgumentRule:
 * the function must parse, the argument must exist in it and its type fit the operator, and names are
 * resolved to positions here, once, against the operator's text.
 */

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
  readonly lt?: string;
  readonly gt?: string;
  readonly addressIn?: readonly string[];
  readonly bytesPrefix?: string;
  readonly maxLength?: string;
}

/**
 * Reads the rules an operator gives for one argument: the function must parse, the argument must exist
 * in it, and its type must fit each operator (when the function is given by selector alone, only its
 * position can be named and types are checked when a request comes). At least one operator is needed.
 */
export function parseArgumentRules(input: ArgumentRuleInput, options: { signatureRequired?: boolean } = {}): ArgumentRule[] {
  const target = parseRuleTarget(input.function, input.arg, options);
  const ops = OPS.filter((op) => input[op] !== undefined);
  if (ops.length === 0) throw invalidArgument('rule: give at least one of eq, in, lte, gte, lt, gt, addressIn, bytesPrefix, maxLength');
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
    case 'lt':
    case 'gt':
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
export function parseRuleTarget(functionText: string, arg: string, options: { signatureRequired?: boolean } = {}): RuleTarget {
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
  const fn = parseFunctionText(text, options);
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

const sameRule = (a: ArgumentRule, b: ArgumentRule) => JSON.stringify(a) === JSON.stringify(b);

/** The rules with `added` appended (one already there is not added twice), within the limit. */
export function withArgumentRules(rules: readonly ArgumentRule[] | undefined, added: readonly ArgumentRule[]): ArgumentRule[] {
  const all = [...(rules ?? [])];
  for (const rule of added) if (!all.some((r) => sameRule(r, rule))) all.push(rule);
  if (all.length > ARGUMENT_RULE_LIMITS.maxRules) {
    throw invalidArgument(`rules: ${all.length} rules is more than the limit of ${ARGUMENT_RULE_LIMITS.maxRules} per policy`);
  }
  const values = all.reduce((sum, rule) => sum + rule.values.length, 0);
  if (values > ARGUMENT_RULE_LIMITS.maxPolicyValues) {
    throw invalidArgument(`rules: ${values} values in all is more than the limit of ${ARGUMENT_RULE_LIMITS.maxPolicyValues} per policy`);
  }
  return all;
}

/** Which rules `policies rules remove` takes away: those of a function, or of one of its arguments. */
export function ruleMatcher(functionText: string, arg: string | undefined): (rule: Pick<ArgumentRule, 'selector' | 'path'>) => boolean {
  if (arg === undefined) {
    const text = functionText.trim();
    const selector = SELECTOR.test(text) ? text.toLowerCase() : parseFunctionText(text).selector;
    return (rule) => rule.selector === selector;
  }
  const target = parseRuleTarget(functionText, arg);
  return (rule) => rule.selector === target.selector && positional(rule.path) === positional(target.path);
}
