import { parseAddress } from '../address.js';
import { parseArgumentRules } from '../argument-rule-input.js';
import { HEX_BYTES, integerOrNull, OPS, SELECTOR, type ArgumentRuleOp } from '../argument-rules.js';
import { parseApproverGroup } from '../approval-rules.js';
import { DomainError, invalidArgument } from '../errors.js';
import { parseWindow } from '../sign-limits.js';
import { parseFunctionText } from '../signing/function-signature.js';
import {
  LIMIT_EACH,
  POLICY_DOCUMENT_LIMITS as LIMITS,
  POLICY_DOCUMENT_VERSION,
  POLICY_KINDS,
  type PolicyCondition,
  type PolicyDocument,
  type PolicyKind,
  type PolicyLimit,
  type PolicyRule,
  type RuleEffect,
  type TokenMovement,
} from './policy-document.js';
import { movementKey } from './token-movements.js';
import { LIMIT_ESCALATION_FIELDS, parseLimitEscalation, parseReferencePrices, PRICE_DOCUMENT_FIELDS } from './limit-escalation.js';
import { parseAddressBook } from './address-book.js';

const ADDRESS_BOOK_FIELDS = ['tokens', 'addressNames'];

/** What a document is read against: the chain names this deployment knows. */
export interface PolicyParseContext {
  readonly chains: readonly string[];
  /**
   * false for a document read back from storage: rules an earlier release stored (a selector-only rule
   * on an integer argument, migrated as it was) are kept as they decide; `policies apply` is strict.
   */
  readonly strict?: boolean;
}

/** The fields of a rule, a limit and the document: any other is refused by name (and `policies show` shows each). */
export const RULE_FIELDS: ReadonlySet<string> = new Set([
  'id', 'effect', 'description', 'kinds', 'chains', 'wallets', 'contracts', 'function', 'selectors', 'senders',
  'primaryTypes', 'domainNames', 'create', 'where', 'unless', 'maxValue', 'minValue', 'maxFee',
  'simulate', 'maxOutflow', 'maxTokenOutflow', 'anyChain',
]);
export const LIMIT_FIELDS: ReadonlySet<string> = new Set(['id', 'kinds', 'chains', 'wallets', 'contracts', 'selectors', 'each', 'maxSigns', 'maxValue', 'token', 'moves', 'per', ...LIMIT_ESCALATION_FIELDS]);
const MOVE_FIELDS = new Set(['function', 'primaryType', 'amount', 'recipient']);
export const DOCUMENT_FIELDS: ReadonlySet<string> = new Set(['version', 'rules', 'limits', 'uniqs', 'trustRpcUniq', 'approvalRules', 'contractNames', ...PRICE_DOCUMENT_FIELDS, ...ADDRESS_BOOK_FIELDS]);
const APPROVAL_ID = /^a[1-9][0-9]{0,8}$/;
const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const WEI = /^(?:0|[1-9][0-9]{0,77})$/;
const CHAIN_ID = /^[1-9][0-9]{0,19}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const FIELD_STEP = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const UINT256_MAX = (1n << 256n) - 1n;
const INTEGER_OPS: readonly ArgumentRuleOp[] = ['lte', 'gte', 'lt', 'gt'];
/**
 * What a contract name may not hold: control characters, invisible formatting characters (bidi overrides,
 * zero-width joiners and spaces) and line or paragraph separators. Each can make a name read otherwise
 * than it is written, or lay out the page around it differently, and an approver trusts what they read.
 */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads a whole policy document (`policies apply`, the dry run's stored document, a migrated policy),
 * checking every field and naming the first wrong one by its path (`rules[2].where[0].lte: …`): a bad
 * document is refused whole, so nothing is half applied. Values come back normalised (addresses EIP-55,
 * selectors lower-case, chain ids decimal), so the stored document is the one `policies export` prints.
 */
export function parsePolicyDocument(raw: unknown, context: PolicyParseContext): PolicyDocument {
  if (!isObject(raw)) throw invalidArgument('policy: must be a JSON object {"version": 2, "rules": [...], "limits": [...]}');
  unknownField(raw, DOCUMENT_FIELDS, 'policy');
  if (raw.version !== POLICY_DOCUMENT_VERSION) throw invalidArgument(`version: must be ${POLICY_DOCUMENT_VERSION}`);
  const budget = { values: 0 };
  const rules = list(raw.rules, 'rules', LIMITS.maxRules, true).map((r, i) => parseRule(r, `rules[${i}]`, context, budget));
  unique(rules, 'rules');
  const limits = list(raw.limits ?? [], 'limits', LIMITS.maxLimits, true).map((l, i) => parseLimit(l, `limits[${i}]`, context, budget));
  unique(limits, 'limits');
  const document: { -readonly [K in keyof PolicyDocument]: PolicyDocument[K] } = { version: POLICY_DOCUMENT_VERSION, rules, limits };
  if (raw.uniqs !== undefined) document.uniqs = parsePins(raw.uniqs);
  if (raw.trustRpcUniq !== undefined) {
    const trusted = strings(raw.trustRpcUniq, 'trustRpcUniq', budget, (v, at) => parseAddress(v, at));
    for (const contract of trusted) {
      if (document.uniqs?.[contract] !== undefined) throw invalidArgument(`trustRpcUniq: contract ${contract} has a pinned uniq; a pin is checked on every chain, so trusting the RPC for it would mean nothing`);
    }
    document.trustRpcUniq = trusted;
  }
  if (raw.approvalRules !== undefined) {
    const holds = list(raw.approvalRules, 'approvalRules', LIMITS.maxRules, false).map((r, i) => parseRule(r, `approvalRules[${i}]`, context, budget));
    for (const [i, hold] of holds.entries()) {
      if (!APPROVAL_ID.test(hold.id)) throw invalidArgument(`approvalRules[${i}].id: must be a<n> (a1, a2, ...), the approval rule's id`);
      if (typeof hold.effect !== 'object') throw invalidArgument(`approvalRules[${i}].effect: must be {"hold": {...}}: an approval rule holds`);
    }
    unique(holds, 'approvalRules');
    document.approvalRules = holds;
  }
  if (raw.contractNames !== undefined) {
    const names = parseContractNames(raw.contractNames);
    // An empty map is no names: left out, so the document (and a governed vault's state hash) is the one without the field.
    if (Object.keys(names).length > 0) document.contractNames = names;
  }
  // Names and units first: a limit in dollars over a token reads its decimals from `tokens`.
  Object.assign(document, parseAddressBook(raw));
  parseReferencePrices(raw, document as Record<string, unknown>, limits);
  return document;
}

/** `{"<contract>": "<name>"}`: addresses EIP-55 (two spellings of one address refused), names trimmed and bounded. */
function parseContractNames(raw: unknown): Record<string, string> {
  if (!isObject(raw)) throw invalidArgument('contractNames: must be an object {"<contract address>": "<name>"}');
  const entries = Object.entries(raw);
  if (entries.length > LIMITS.maxContractNames) throw invalidArgument(`contractNames: ${entries.length} entries is more than the limit of ${LIMITS.maxContractNames}`);
  const names: Record<string, string> = {};
  for (const [key, name] of entries) {
    const at = `contractNames.${key.length <= 42 ? key : `${key.slice(0, 42)}…`}`;
    const contract = parseAddress(key, at);
    if (names[contract] !== undefined) throw invalidArgument(`${at}: names contract ${contract} a second time (another spelling of the same address)`);
    if (typeof name !== 'string') throw invalidArgument(`${at}: must be a name (a string)`);
    const trimmed = name.trim();
    if (trimmed.length === 0) throw invalidArgument(`${at}: must be a non-empty name`);
    if (trimmed.length > LIMITS.maxContractNameLength) throw invalidArgument(`${at}: ${trimmed.length} characters is more than the limit of ${LIMITS.maxContractNameLength}`);
    if (UNSHOWABLE.test(trimmed)) throw invalidArgument(`${at}: must not hold control, invisible formatting (bidi, zero-width) or line-separator characters`);
    names[contract] = trimmed;
  }
  return names;
}

function parseRule(raw: unknown, at: string, context: PolicyParseContext, budget: Budget): PolicyRule {
  if (!isObject(raw)) throw invalidArgument(`${at}: must be an object with id and effect`);
  unknownField(raw, RULE_FIELDS, at);
  const rule: Record<string, unknown> = { id: parseId(raw.id, `${at}.id`), effect: parseEffect(raw.effect, `${at}.effect`) };
  if (raw.description !== undefined) rule.description = text(raw.description, `${at}.description`);
  Object.assign(rule, parseCommonFilters(raw, at, context, budget));
  if (raw.function !== undefined) rule.function = parseFunctionFilter(raw.function, `${at}.function`);
  for (const field of ['senders'] as const) if (raw[field] !== undefined) rule[field] = strings(raw[field], `${at}.${field}`, budget, (v, p) => parseAddress(v, p));
  for (const field of ['primaryTypes', 'domainNames'] as const) if (raw[field] !== undefined) rule[field] = strings(raw[field], `${at}.${field}`, budget, text);
  if (raw.create !== undefined) {
    if (raw.create !== true) throw invalidArgument(`${at}.create: must be true (leave it out to match transactions with a recipient too)`);
    // A creation calls no function: such a rule would silently match nothing (a stored one is kept, and matches nothing).
    const named = (['function', 'selectors'] as const).find((field) => raw[field] !== undefined);
    if (named !== undefined && context.strict !== false) throw invalidArgument(`${at}.create: a contract creation calls no function (its data is init code), so a rule with ${named} would match none`);
    rule.create = true;
  }
  for (const field of ['maxValue', 'minValue', 'maxFee'] as const) if (raw[field] !== undefined) rule[field] = wei(raw[field], `${at}.${field}`);
  Object.assign(rule, parseSimulationFilters(raw, at));
  for (const field of ['where', 'unless'] as const) {
    if (raw[field] === undefined) continue;
    const conditions = list(raw[field], `${at}.${field}`, LIMITS.maxConditions, false);
    rule[field] = conditions.map((c, i) => parseCondition(c, `${at}.${field}[${i}]`, rule as Partial<PolicyRule>, context, budget));
  }
  return rule as unknown as PolicyRule;
}

function parseLimit(raw: unknown, at: string, context: PolicyParseContext, budget: Budget): PolicyLimit {
  if (!isObject(raw)) throw invalidArgument(`${at}: must be an object with id, maxSigns and per`);
  unknownField(raw, LIMIT_FIELDS, at);
  const limit: Record<string, unknown> = { id: parseId(raw.id, `${at}.id`) };
  Object.assign(limit, parseCommonFilters(raw, at, context, budget));
  if (raw.each !== undefined) {
    if (!LIMIT_EACH.includes(raw.each as never)) throw invalidArgument(`${at}.each: must be one of ${LIMIT_EACH.join(', ')}`);
    limit.each = raw.each;
  }
  if (raw.maxSigns === undefined && raw.maxValue === undefined && raw.maxValueUsd === undefined) throw invalidArgument(`${at}: give maxSigns, maxValue (or maxValueUsd) or both`);
  if (raw.maxSigns !== undefined) {
    if (!Number.isSafeInteger(raw.maxSigns) || (raw.maxSigns as number) < 1 || (raw.maxSigns as number) > 999_999_999) {
      throw invalidArgument(`${at}.maxSigns: must be a whole number from 1 to 999999999`);
    }
    limit.maxSigns = raw.maxSigns;
  }
  if (raw.maxValue !== undefined) limit.maxValue = wei(raw.maxValue, `${at}.maxValue`);
  if (raw.token !== undefined) {
    if (raw.maxValue === undefined && raw.maxValueUsd === undefined) throw invalidArgument(`${at}.token: counts with maxValue (the most of the token moved per window) or maxValueUsd`);
    limit.token = parseAddress(raw.token, `${at}.token`);
  }
  if (raw.moves !== undefined) {
    if (raw.token === undefined) throw invalidArgument(`${at}.moves: names movements of the limit's token: give token (a limit without one counts wei, read from the transaction)`);
    limit.moves = parseMoves(raw.moves, `${at}.moves`);
  }
  if (typeof raw.per !== 'string') throw invalidArgument(`${at}.per: is required: a whole number and a unit (s, m, h, d), such as 1h`);
  const per = raw.per;
  within(() => parseWindow(per), at);
  limit.per = per.trim();
  parseLimitEscalation(raw, at, limit);
  return limit as unknown as PolicyLimit;
}

/**
 * A limit's `moves`: each entry a function (or `0x`) or a primary type, the argument or field of its
 * amount (or 0: it moves none of the token), and maybe of its recipient. An entry the evaluator could
 * not read, one naming a movement the limit already knows (a limit may not redefine how a transfer
 * moves its token) and two entries naming one movement are refused.
 */
function parseMoves(raw: unknown, at: string): TokenMovement[] {
  const seen = new Map<string, number>();
  return list(raw, at, LIMITS.maxConditions, false).map((entry, i) => {
    const where = `${at}[${i}]`;
    if (!isObject(entry)) throw invalidArgument(`${where}: must be an object {"function" or "primaryType": ..., "amount": <argument or field> or 0, "recipient"?: ...}`);
    unknownField(entry, MOVE_FIELDS, where);
    if ((entry.function === undefined) === (entry.primaryType === undefined)) throw invalidArgument(`${where}: give exactly one of function and primaryType`);
    const movement: { -readonly [K in keyof TokenMovement]: TokenMovement[K] } =
      entry.function !== undefined
        ? { function: entry.function === '0x' ? '0x' : parseFunctionFilter(entry.function, `${where}.function`), amount: 0 }
        : { primaryType: text(entry.primaryType, `${where}.primaryType`), amount: 0 };
    if (entry.amount !== 0) {
      if (typeof entry.amount !== 'string') throw invalidArgument(`${where}.amount: must be the argument (or field) holding the amount, or 0: it moves none of the token`);
      movement.amount = text(entry.amount, `${where}.amount`).trim();
    }
    if (entry.recipient !== undefined) movement.recipient = text(entry.recipient, `${where}.recipient`).trim();
    const { key, known } = movementAt(movement, where);
    const named = movement.function === undefined ? 'primaryType' : 'function';
    if (known !== null) throw invalidArgument(`${where}.${named}: ${known} is a movement the limit already counts`);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw invalidArgument(`${where}: names a movement ${at.slice(at.lastIndexOf('.') + 1)}[${earlier}] names already`);
    seen.set(key, i);
    return movement;
  });
}

/** movementKey, its refusal placed at the entry's field it names (`amount: …` under `moves[0].amount`). */
function movementAt(movement: TokenMovement, at: string): ReturnType<typeof movementKey> {
  try {
    return movementKey(movement);
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'INVALID_ARGUMENT') throw error;
    const field = /^(function|amount|recipient): /.exec(error.message);
    throw invalidArgument(field === null ? `${at}: ${error.message}` : `${at}.${field[1]}: ${error.message.slice(field[0].length)}`);
  }
}

/** The filters rules and limits share: kinds, chains, wallets, contracts, selectors. */
function parseCommonFilters(raw: Record<string, unknown>, at: string, context: PolicyParseContext, budget: Budget): Record<string, unknown> {
  const filters: Record<string, unknown> = {};
  if (raw.kinds !== undefined) {
    filters.kinds = strings(raw.kinds, `${at}.kinds`, budget, (v, p) => {
      if (!POLICY_KINDS.includes(v as PolicyKind)) throw invalidArgument(`${p}: ${JSON.stringify(v)} is not one of ${POLICY_KINDS.join(', ')}`);
      return v;
    });
  }
  if (raw.chains !== undefined) filters.chains = strings(raw.chains, `${at}.chains`, budget, (v, p) => chainOf(v, p, context.chains));
  for (const field of ['wallets', 'contracts'] as const) {
    if (raw[field] !== undefined) filters[field] = strings(raw[field], `${at}.${field}`, budget, (v, p) => parseAddress(v, p));
  }
  if (raw.selectors !== undefined) {
    filters.selectors = strings(raw.selectors, `${at}.selectors`, budget, (v, p) => {
      if (v !== '0x' && !SELECTOR.test(v)) throw invalidArgument(`${p}: ${JSON.stringify(v)} is not 0x followed by 8 hex digits (or 0x alone: no calldata)`);
      return v.toLowerCase();
    });
  }
  return filters;
}

function parseEffect(raw: unknown, at: string): RuleEffect {
  if (raw === 'allow' || raw === 'deny') return raw;
  if (!isObject(raw) || !isObject(raw.hold) || Object.keys(raw).length !== 1) {
    throw invalidArgument(`${at}: must be "allow", "deny" or {"hold": {"required": M, "group"?: G, "expiresIn"?: "24h"}}`);
  }
  const hold = raw.hold;
  unknownField(hold, new Set(['required', 'group', 'expiresIn']), `${at}.hold`);
  if (!Number.isSafeInteger(hold.required) || (hold.required as number) < 1 || (hold.required as number) > 10) {
    throw invalidArgument(`${at}.hold.required: must be a whole number from 1 to 10`);
  }
  const effect: { required: number; group?: string; expiresIn?: string } = { required: hold.required as number };
  if (hold.group !== undefined) {
    const group = text(hold.group, `${at}.hold.group`);
    effect.group = within(() => parseApproverGroup(group), `${at}.hold`);
  }
  if (hold.expiresIn !== undefined) {
    const expiresIn = text(hold.expiresIn, `${at}.hold.expiresIn`);
    within(() => parseWindow(expiresIn), `${at}.hold.expiresIn`);
    effect.expiresIn = expiresIn.trim();
  }
  return { hold: effect };
}

/** Signature text (kept as given: its names are what conditions and approvers read) or a selector. */
function parseFunctionFilter(raw: unknown, at: string): string {
  const given = text(raw, at, 8192).trim();
  if (SELECTOR.test(given)) return given.toLowerCase();
  within(() => parseFunctionText(given, { signatureRequired: false }), at);
  return given;
}

function parseCondition(raw: unknown, at: string, rule: Partial<PolicyRule>, context: PolicyParseContext, budget: Budget): PolicyCondition {
  if (!isObject(raw)) throw invalidArgument(`${at}: must be an object {"arg" or "field": path, <operator>: value}`);
  unknownField(raw, new Set(['arg', 'field', 'as', ...OPS]), at);
  const ops = OPS.filter((op) => raw[op] !== undefined);
  if (ops.length !== 1) throw invalidArgument(`${at}: give exactly one operator of ${OPS.join(', ')}`);
  const op = ops[0]!;
  const value = raw[op];
  const values = op === 'in' || op === 'addressIn' ? strings(value, `${at}.${op}`, budget, (v) => v) : [scalar(value, `${at}.${op}`)];
  if ((raw.arg === undefined) === (raw.field === undefined)) throw invalidArgument(`${at}: give exactly one of arg (a decoded argument) and field (a typed-data message field)`);
  if (raw.arg !== undefined) {
    const arg = text(raw.arg, `${at}.arg`);
    if (rule.function === undefined) throw invalidArgument(`${at}.arg: needs the rule's function (the signature text the argument is read by)`);
    if (rule.kinds?.some((k) => k === 'message' || k === 'typed-data')) throw invalidArgument(`${at}.arg: messages and typed data have no arguments (kinds call or transaction; typed data: field)`);
    if (context.strict !== false && SELECTOR.test(rule.function) && INTEGER_OPS.includes(op)) {
      throw invalidArgument(`${at}.arg: an integer condition needs the rule's function as signature text, not a selector alone: a function with a colliding selector could pass it with other types`);
    }
    // The argument must exist in the function and its type fit the operator: the same reading as `policies rules add`.
    within(() => parseArgumentRules({ function: rule.function!, arg, [op]: op === 'in' || op === 'addressIn' ? values : values[0] }, { signatureRequired: false }), at);
    const named = raw.as === undefined ? {} : { as: text(raw.as, `${at}.as`) };
    return { arg, ...named, [op]: op === 'in' || op === 'addressIn' ? values : values[0] } as PolicyCondition;
  }
  const field = text(raw.field, `${at}.field`);
  const steps = field.split('.');
  if (steps.length > 16 || !steps.every((s) => FIELD_STEP.test(s))) throw invalidArgument(`${at}.field: ${JSON.stringify(field)} is not a dotted path of field names (witness.amount)`);
  if (rule.kinds === undefined || rule.kinds.length !== 1 || rule.kinds[0] !== 'typed-data') {
    throw invalidArgument(`${at}.field: a rule with field conditions says "kinds": ["typed-data"] (only typed data has message fields)`);
  }
  return { field, [op]: op === 'in' || op === 'addressIn' ? values.map((v) => fieldValue(op, v, `${at}.${op}`)) : fieldValue(op, values[0]!, `${at}.${op}`) } as PolicyCondition;
}

/** A typed-data condition's value, normalised as the field's value will be when compared. */
function fieldValue(op: ArgumentRuleOp, v: string, at: string): string {
  switch (op) {
    case 'lte':
    case 'gte':
    case 'lt':
    case 'gt': {
      const n = integerOrNull(v);
      if (n === null) throw invalidArgument(`${at}: ${JSON.stringify(v)} is not an integer (decimal or 0x hex)`);
      return n.toString();
    }
    case 'addressIn':
      return parseAddress(v, at);
    case 'bytesPrefix':
      if (!HEX_BYTES.test(v) || v.length === 2) throw invalidArgument(`${at}: ${JSON.stringify(v)} is not 0x-prefixed hex of at least one byte`);
      return v.toLowerCase();
    case 'maxLength':
      if (!/^\d{1,9}$/.test(v)) throw invalidArgument(`${at}: ${JSON.stringify(v)} is not a whole number of at most 9 digits`);
      return String(Number(v));
    default:
      return v;
  }
}

function parsePins(raw: unknown): Record<string, string> {
  if (!isObject(raw)) throw invalidArgument('uniqs: must be an object {"<contract>": "<uniq bytes32>"}');
  const pins: Record<string, string> = {};
  for (const [contract, uniq] of Object.entries(raw)) {
    const address = parseAddress(contract, 'uniqs');
    if (typeof uniq !== 'string' || !BYTES32.test(uniq)) throw invalidArgument(`uniqs.${contract}: must be 0x-prefixed 32-byte hex`);
    pins[address] = uniq.toLowerCase();
  }
  return pins;
}

function chainOf(v: string, at: string, chains: readonly string[]): string {
  if (chains.includes(v)) return v;
  const id = /^0x[0-9a-fA-F]{1,16}$/.test(v) ? BigInt(v).toString() : v;
  if (CHAIN_ID.test(id) && BigInt(id) <= (1n << 64n) - 1n) return id;
  throw invalidArgument(`${at}: ${JSON.stringify(v)} is not a chain id or one of ${chains.join(', ')}`);
}

type Budget = { values: number };

function list(raw: unknown, at: string, max: number, allowEmpty: boolean): unknown[] {
  if (!Array.isArray(raw)) throw invalidArgument(`${at}: must be an array`);
  if (raw.length > max) throw invalidArgument(`${at}: ${raw.length} entries is more than the limit of ${max}`);
  if (!allowEmpty && raw.length === 0) throw invalidArgument(`${at}: must name at least one entry (leave it out instead)`);
  return raw;
}

/** A list of strings, normalised, duplicates dropped, order kept; an empty list is refused (it would match nothing, silently). */
function strings(raw: unknown, at: string, budget: Budget, normalise: (v: string, at: string) => string): string[] {
  const given = list(raw, at, LIMITS.maxValues, false);
  budget.values += given.length;
  if (budget.values > LIMITS.maxDocumentValues) throw invalidArgument(`${at}: the document holds more than ${LIMITS.maxDocumentValues} values in all`);
  return [...new Set(given.map((v, i) => normalise(text(v, `${at}[${i}]`), `${at}[${i}]`)))];
}

function text(raw: unknown, at: string, max: number = LIMITS.maxTextLength): string {
  if (typeof raw !== 'string' || raw.length === 0) throw invalidArgument(`${at}: must be a non-empty string`);
  if (raw.length > max) throw invalidArgument(`${at}: ${raw.length} characters is more than the limit of ${max}`);
  return raw;
}

/** A condition's single value: a string, or a number or boolean written as JSON (kept as its text). */
function scalar(raw: unknown, at: string): string {
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) return String(raw);
  if (typeof raw === 'boolean') return String(raw);
  return text(raw, at);
}

function wei(raw: unknown, at: string): string {
  const given = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
  if (typeof given !== 'string' || !WEI.test(given) || BigInt(given) > UINT256_MAX) throw invalidArgument(`${at}: must be an amount of wei (a decimal integer, as a string)`);
  return given;
}

function parseId(raw: unknown, at: string): string {
  if (typeof raw !== 'string' || !ID.test(raw)) throw invalidArgument(`${at}: must be 1 to 64 letters, digits, _ . - (starting with a letter or digit)`);
  return raw;
}

function unique(entries: readonly { id: string }[], at: string): void {
  const seen = new Set<string>();
  for (const [i, { id }] of entries.entries()) {
    if (seen.has(id)) throw invalidArgument(`${at}[${i}].id: ${JSON.stringify(id)} is used twice`);
    seen.add(id);
  }
}

function unknownField(raw: Record<string, unknown>, known: ReadonlySet<string>, at: string): void {
  const extra = Object.keys(raw).find((k) => !known.has(k));
  if (extra !== undefined) throw invalidArgument(`${at}.${extra}: is not a field here (fields: ${[...known].join(', ')})`);
}

/** A refusal of a shared reader (`arg: …`, `per: …`) placed under the document path it was found at. */
function within<T>(read: () => T, at: string): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'INVALID_ARGUMENT') throw invalidArgument(`${at}: ${error.message}`);
    throw error;
  }
}

/** `simulate: false`, `maxOutflow` and `maxTokenOutflow` (docs/policy.md, "Simulation"); `anyChain` of an authorization rule. */
function parseSimulationFilters(raw: Record<string, unknown>, at: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (raw.simulate !== undefined) {
    if (raw.simulate !== false) throw invalidArgument(`${at}.simulate: must be false (leave it out to simulate)`);
    out.simulate = false;
  }
  if (raw.anyChain !== undefined) {
    if (raw.anyChain !== true) throw invalidArgument(`${at}.anyChain: must be true (leave it out to refuse chain id 0 authorizations)`);
    out.anyChain = true;
  }
  if (raw.maxOutflow !== undefined) out.maxOutflow = wei(raw.maxOutflow, `${at}.maxOutflow`);
  if (raw.maxTokenOutflow !== undefined) {
    const given = raw.maxTokenOutflow;
    if (!isObject(given) || Object.keys(given).length === 0 || Object.keys(given).length > LIMITS.maxValues) {
      throw invalidArgument(`${at}.maxTokenOutflow: must be an object {"<token contract>": "<most units out>"} with 1 to ${LIMITS.maxValues} tokens`);
    }
    const tokens: Record<string, string> = {};
    for (const [token, amount] of Object.entries(given)) tokens[parseAddress(token, `${at}.maxTokenOutflow`)] = wei(amount, `${at}.maxTokenOutflow.${token}`);
    out.maxTokenOutflow = tokens;
  }
  if (out.anyChain === true) {
    const kinds = raw.kinds;
    if (!Array.isArray(kinds) || kinds.length !== 1 || kinds[0] !== 'authorization') throw invalidArgument(`${at}.anyChain: is for rules of "kinds": ["authorization"] only`);
    if (raw.chains !== undefined) throw invalidArgument(`${at}.anyChain: a rule for every chain names no chains (leave chains out)`);
  }
  if ((out.maxOutflow !== undefined || out.maxTokenOutflow !== undefined) && out.simulate === false) {
    throw invalidArgument(`${at}.simulate: false leaves nothing to read maxOutflow and maxTokenOutflow from`);
  }
  return out;
}
