import { parseRuleTarget } from '../argument-rule-input.js';
import { INT_TYPE, integerOrNull, isArrayType, SELECTOR } from '../argument-rules.js';
import { DomainError, ErrorCode, invalidArgument } from '../errors.js';
import type { AbiParam, ParsedFunction } from '../signing/abi-function.js';
import type { AbiValue } from '../signing/argument-coercion.js';
import { parseFunctionText } from '../signing/function-signature.js';
import type { PolicyLimit, TokenMovement } from './policy-document.js';
import type { SignIntent } from './sign-intent.js';

/**
 * What a request moves of a limit's token, read from what reaches the token: a transaction's calldata,
 * a Sign call's function, typed data of the token's domain. Only movements the evaluator knows (the
 * ERC-20 and EIP-2612/EIP-3009 ones below) or the limit names (`moves`) are read; anything else that
 * reaches the token cannot be: a token's other functions (increaseAllowance, transferAndCall, ERC-777
 * send, …) move amounts too, and an amount the vault cannot read must never pass a limit on it.
 */
export type TokenMoved =
  /** What moves (0: nothing of the token), and who gets or may take it, when the movement names one. */
  | { readonly amount: bigint; readonly recipient: string | null }
  /** Why what reaches the token cannot be read as a movement: it counts as more than any limit. */
  | { readonly unreadable: string };

/** A function the token is called by: its selector (`0x`: no calldata), and where the amount and recipient are among its arguments. */
interface FunctionMovement {
  readonly selector: string;
  /** The function, when given as text: without it only a selector is known (amount 0 only). */
  readonly fn: ParsedFunction | null;
  /** Positions down to the amount (no array on the way); null: it moves none of the token. */
  readonly amount: readonly number[] | null;
  readonly recipient: readonly number[] | null;
}

/** Typed data of the token's domain: the message fields holding the amount and the recipient. */
interface TypedMovement {
  readonly amount: readonly string[] | null;
  readonly recipient: readonly string[] | null;
}

interface Movements {
  readonly functions: ReadonlyMap<string, FunctionMovement>;
  readonly typed: ReadonlyMap<string, TypedMovement>;
}

/** The text of a refusal: the known movements, and where the others are named. */
const KNOWN_FUNCTIONS = "transfer, transferFrom, approve; others are named in the limit's moves";
const KNOWN_TYPES = "Permit, TransferWithAuthorization, ReceiveWithAuthorization; others are named in the limit's moves";

/**
 * The ERC-20 functions whose calldata moves (or lets another move) a token amount, and EIP-2612 and
 * EIP-3009 typed data. Parsed on first use (the domain's keccak256 is installed by the entry points).
 */
let known: Movements | undefined;
const knownMovements = (): Movements =>
  (known ??= {
    functions: new Map(
      [
        functionMovement('transfer(address to, uint256 amount)', 'amount', 'to'),
        functionMovement('transferFrom(address from, address to, uint256 amount)', 'amount', 'to'),
        functionMovement('approve(address spender, uint256 amount)', 'amount', 'spender'),
      ].map((m) => [m.selector, m]),
    ),
    typed: new Map([
      ['Permit', { amount: ['value'], recipient: ['spender'] }],
      ['TransferWithAuthorization', { amount: ['value'], recipient: ['to'] }],
      ['ReceiveWithAuthorization', { amount: ['value'], recipient: ['to'] }],
    ]),
  });

/**
 * One entry of a limit's `moves`, compiled and checked: the parser reads a document through this, so a
 * movement that could not be read is refused when the document is applied. A refusal starts with the
 * entry's field it is about (`amount: …`).
 */
function compileMovement(movement: TokenMovement): FunctionMovement | (TypedMovement & { readonly primaryType: string }) {
  if (movement.primaryType === undefined) return functionMovement(movement.function!, movement.amount, movement.recipient);
  return {
    primaryType: movement.primaryType,
    amount: movement.amount === 0 ? null : fieldPath(movement.amount, 'amount'),
    recipient: movement.recipient === undefined ? null : fieldPath(movement.recipient, 'recipient'),
  };
}

function functionMovement(functionText: string, amount: string | 0, recipient: string | undefined): FunctionMovement {
  const text = functionText.trim();
  if (text === '0x' || SELECTOR.test(text)) {
    const what = text === '0x' ? 'a transaction without calldata has no arguments' : 'a function given by selector alone has no types to read an amount by';
    if (amount !== 0) throw invalidArgument(`amount: ${what}: give amount 0 (it moves none of the token) or the function as signature text`);
    if (recipient !== undefined) throw invalidArgument(`recipient: ${what}`);
    return { selector: text.toLowerCase(), fn: null, amount: null, recipient: null };
  }
  const fn = parseFunctionText(text, { signatureRequired: false });
  return {
    selector: fn.selector,
    fn,
    amount: amount === 0 ? null : argumentPath(fn, text, amount, 'amount'),
    recipient: recipient === undefined ? null : argumentPath(fn, text, recipient, 'recipient'),
  };
}

/** Where an amount (an integer) or a recipient (an address) is among `fn`'s arguments: one value, so no array on the way. */
function argumentPath(fn: ParsedFunction, text: string, arg: string, field: 'amount' | 'recipient'): readonly number[] {
  let target: ReturnType<typeof parseRuleTarget>;
  try {
    target = parseRuleTarget(text, arg, { signatureRequired: false });
  } catch (error) {
    // The shared reader names its input `arg`; here it is this field.
    if (error instanceof DomainError && error.code === ErrorCode.INVALID_ARGUMENT) throw invalidArgument(`${field}: ${error.message.replace(/^arg: /, '')}`);
    throw error;
  }
  let params: readonly AbiParam[] = fn.argParams;
  for (const index of target.path) {
    const param = params[index]!;
    if (isArrayType(param.type)) throw invalidArgument(`${field}: argument ${target.label} is read through an array (${param.type}): name one value, or leave the function to count as more than the limit`);
    params = param.components ?? [];
  }
  const fits = field === 'amount' ? INT_TYPE.test(target.type!) : target.type === 'address';
  if (!fits) throw invalidArgument(`${field}: argument ${target.label} is ${target.type}, ${field === 'amount' ? 'an amount is an integer' : 'a recipient is an address'}`);
  return target.path;
}

const FIELD_STEP = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function fieldPath(path: string, field: 'amount' | 'recipient'): readonly string[] {
  const steps = path.split('.');
  if (steps.length > 16 || !steps.every((s) => FIELD_STEP.test(s))) throw invalidArgument(`${field}: ${JSON.stringify(path)} is not a dotted path of message field names (details.amount)`);
  return steps;
}

/** The key two entries of `moves` clash on (and a known movement they may not redefine): the selector, or the primary type. */
export function movementKey(movement: TokenMovement): { readonly key: string; readonly known: string | null } {
  const compiled = compileMovement(movement);
  if ('primaryType' in compiled) return { key: `typed:${compiled.primaryType}`, known: knownMovements().typed.has(compiled.primaryType) ? compiled.primaryType : null };
  const builtIn = knownMovements().functions.get(compiled.selector);
  return { key: compiled.selector, known: builtIn === undefined ? null : builtIn.fn!.signature };
}

const compiledLimits = new WeakMap<PolicyLimit, Movements>();

/** The movements a limit reads: the known ones and its own (the parser has refused an entry redefining a known one). */
function movementsOf(limit: PolicyLimit): Movements {
  let movements = compiledLimits.get(limit);
  if (movements === undefined) {
    const base = knownMovements();
    const functions = new Map(base.functions);
    const typed = new Map(base.typed);
    for (const entry of limit.moves ?? []) {
      const compiled = compileMovement(entry);
      if ('primaryType' in compiled) typed.set(compiled.primaryType, compiled);
      else functions.set(compiled.selector, compiled);
    }
    compiledLimits.set(limit, (movements = { functions, typed }));
  }
  return movements;
}

/**
 * What `intent` moves of `limit`'s token, or null when it does not reach the token. A request that
 * reaches it and is not a movement the limit reads is `unreadable`, with the reason.
 */
export function tokenMovement(limit: PolicyLimit, intent: SignIntent): TokenMoved | null {
  if (limit.token === undefined || intent.contract !== limit.token) return null;
  const movements = movementsOf(limit);
  switch (intent.kind) {
    case 'transaction':
      return transactionMovement(movements, intent);
    case 'call':
      return callMovement(movements, intent);
    case 'typed-data':
      return typedMovement(movements, intent);
    case 'authorization':
      return { unreadable: 'an authorization delegating to the token is not a movement it knows (the wallet would run its code)' };
    case 'message':
      return null;
  }
}

function transactionMovement(movements: Movements, intent: SignIntent): TokenMoved {
  if (intent.shortData) return { unreadable: 'calldata shorter than a selector is not a movement it knows' };
  const selector = intent.selector ?? '0x';
  const movement = movements.functions.get(selector);
  if (movement === undefined) {
    return { unreadable: `${selector === '0x' ? 'a transaction without calldata' : `selector ${selector}`} is not a movement it knows (${KNOWN_FUNCTIONS})` };
  }
  if (movement.amount === null) return { amount: 0n, recipient: null };
  const args = intent.decodeCalldata?.(movement.fn!) ?? null;
  if (args === null) return { unreadable: `its calldata does not decode as ${movement.fn!.signature}` };
  return movedBy(movement, args);
}

function callMovement(movements: Movements, intent: SignIntent): TokenMoved {
  if (intent.call === null) return { unreadable: 'the call names no function to read' };
  const own = intent.call.fn;
  const movement = movements.functions.get(own.selector);
  // A Sign call's function takes a signature parameter, so only the limit's own moves can name it.
  if (movement === undefined) return { unreadable: `function ${own.signature} is not a movement it knows (a Sign call to the token is counted only when the limit's moves name its function)` };
  if (movement.fn !== null && movement.fn.signature !== own.signature) return { unreadable: `function ${own.signature} shares its selector with ${movement.fn.signature}, the function the limit's moves name` };
  if (movement.amount === null) return { amount: 0n, recipient: null };
  return movedBy(movement, intent.call.args);
}

function movedBy(movement: FunctionMovement, args: readonly AbiValue[]): TokenMoved {
  const amount = valueAt(args, movement.amount!) as bigint;
  // A signed integer type can hold a negative amount: no movement is read from it.
  if (amount < 0n) return { unreadable: `its amount ${amount} is negative` };
  return { amount, recipient: movement.recipient === null ? null : (valueAt(args, movement.recipient) as string) };
}

/** The value down `path` (positions: an argument, then tuple components; no array on the way). */
function valueAt(args: readonly AbiValue[], path: readonly number[]): AbiValue {
  let value: AbiValue = args as AbiValue;
  for (const index of path) value = (value as readonly AbiValue[])[index]!;
  return value;
}

function typedMovement(movements: Movements, intent: SignIntent): TokenMoved {
  if (intent.typedData === null) return { unreadable: 'the typed data has no primary type to read' };
  const { primaryType, message } = intent.typedData;
  const movement = movements.typed.get(primaryType);
  if (movement === undefined) return { unreadable: `primary type ${JSON.stringify(primaryType)} is not a movement it knows (${KNOWN_TYPES})` };
  const recipient = movement.recipient === null ? undefined : fieldAt(message, movement.recipient);
  const to = typeof recipient === 'string' ? recipient.toLowerCase() : null;
  if (movement.amount === null) return { amount: 0n, recipient: to };
  const raw = fieldAt(message, movement.amount);
  const amount = typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'bigint' ? integerOrNull(String(raw)) : null;
  if (amount === null || amount < 0n) return { unreadable: `message field ${movement.amount.join('.')} is not an amount (a whole number, at least 0)` };
  return { amount, recipient: to };
}

function fieldAt(message: unknown, steps: readonly string[]): unknown {
  let value = message;
  for (const step of steps) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}
