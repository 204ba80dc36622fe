import type { ApprovalKind, ApprovalStatus } from '../../domain/approval.js';
import type { PolicyDocument, PolicyRule } from '../../domain/policy/policy-document.js';
import type { UniqBinding } from '../../domain/policy/uniq-binding.js';
import type { AbiParam, ParsedFunction } from '../../domain/signing/abi-function.js';
import type { AbiValue } from '../../domain/signing/argument-coercion.js';
import { parseFunctionText } from '../../domain/signing/function-signature.js';
import type { StandardPayloads } from '../../ports/standard-payloads.port.js';
import type { ApprovalBlockView, ApprovalResultView, SimulationView } from './approval-outcome.js';
import type { TokenAmount } from '../../domain/policy/address-book.js';

/*
 * What the approvers' console shows of an approval (docs/console.md, "What an approver sees"): the request
 * decoded for people, and every field of it that is signed, never fewer. Argument names are the OPERATOR's,
 * never the requester's: the requester chooses its ABI's parameter names freely (the selector hashes types
 * only), so a name it gives would say what it wants approvers to read. The names come from the `function`
 * of the policy rule that held the request when its selector is the request's, else from the first rule of
 * the document whose function it is; else arguments are named by position (`args[0]`). A transaction's
 * calldata is shown as raw hex as well, decoded or not; a Sign's `uniq` and `signer` as the request gives
 * them, with what the policy pins that uniq to; typed data by pages of fields, with their total.
 */

export interface ApprovalViewArgument {
  readonly name: string;
  readonly type: string;
  /** Integers as decimal strings, addresses EIP-55, bytes lower-case hex, tuples and arrays as arrays. */
  readonly value: unknown;
  /** The operator's name of an address value (`addressNames`, else `contractNames`); absent when none names it. */
  readonly addressName?: string;
  /** An ERC-20 amount of a token the policy's `tokens` names, in its units beside its base units (approval-units.ts). */
  readonly tokenAmount?: TokenAmount;
}

export interface ApprovalViewVote {
  /** `name`: the passkey's; `label`: the operator's label of the key, shown beside its id so approvers read a name, not a bare id. */
  readonly approver: { readonly id: string; readonly name: string | null; readonly label: string | null };
  readonly decision: 'approve' | 'reject';
  readonly at: string;
  /** passkey: a WebAuthn assertion; address: an EIP-712 signature; unsigned: a key without credential. */
  readonly kind: 'passkey' | 'address' | 'unsigned';
}

/** One field of typed data's message: nested structs flattened with dots, arrays with `[i]`. */
export interface TypedDataField {
  readonly path: string;
  readonly type: string;
  readonly value: unknown;
  /** As an argument's: the name of an address, a Permit's `value` in its token's units. */
  readonly addressName?: string;
  readonly tokenAmount?: TokenAmount;
}

/** A page of typed data's fields: `fields` from the `offset`-th of `total`. */
export interface TypedDataFieldPage {
  readonly offset: number;
  readonly total: number;
  readonly fields: readonly TypedDataField[];
}

/** A Sign call's fields beside its function: the signature binds `sender` and `uniq` too. */
export interface ApprovalViewCall {
  readonly sender: string;
  /** As the request gives them (chains without an RPC always do); null: read from the contract at the release. */
  readonly uniq: string | null;
  readonly signer: string | null;
  /** What the policy in force pins `uniq` to, and a warning when it is not the request's contract; null without a uniq. */
  readonly uniqBinding: UniqBinding | null;
}

/** A transaction's calldata, always, and every other field of it as the request gives it. */
export interface ApprovalViewTransaction {
  /** The calldata, lower-case hex (`0x` when empty): shown whether or not a function decodes it. */
  readonly calldata: string;
  /** Its first 4 bytes, or null when it has fewer. */
  readonly selector: string | null;
  /** The transaction as given, but for its calldata (`data` or `input`), shown above. */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** The contract's ApprovalView (docs/console.md, "The API behind the page"). */
export interface ApprovalView {
  readonly id: string;
  readonly vault: string;
  /** `exported`: when the wallet's key (or its HD seed) was exported; `derivationPath`: an HD wallet's path in its vault's seed; where the reader looked them up (the console). */
  readonly wallet: { readonly address: string | null; readonly name: string | null; readonly exported?: string; readonly derivationPath?: string };
  readonly chain: { readonly name: string | null; readonly id: string | null };
  readonly kind: ApprovalKind;
  /**
   * A call's contract, a transaction's `to`, typed data's `verifyingContract` or an authorization's
   * delegate; `name` is the operator's (the policy document's `contractNames`), never the requester's.
   */
  readonly contract: { readonly address: string; readonly name: string | null } | null;
  readonly function: { readonly signature: string; readonly name: string; readonly args: readonly ApprovalViewArgument[] } | null;
  /** A Sign call's sender, uniq and signer; null for the other kinds. */
  readonly call: ApprovalViewCall | null;
  /** A transaction's calldata and other fields; null for the other kinds. */
  readonly transaction: ApprovalViewTransaction | null;
  /** Wei, decimal: a transaction's value and most fee; null for the other kinds. */
  readonly value: string | null;
  readonly fee: string | null;
  /**
   * The first page of the message's fields (typedDataFieldPage), and how many there are in all: the console
   * shows the rest on request, and enables approving only once every field has been shown.
   */
  readonly typedData: {
    readonly primaryType: string;
    readonly domain: Readonly<Record<string, unknown>>;
    readonly fields: readonly TypedDataField[];
    readonly fieldCount: number;
  } | null;
  readonly message: string | null;
  /** An EIP-7702 authorization's delegate, chain id and nonce; null for the other kinds. */
  readonly authorization: Readonly<Record<string, unknown>> | null;
  readonly requester: { readonly id: string; readonly name: string | null; readonly label: string | null };
  readonly created: string;
  readonly expires: string;
  readonly decided: string | null;
  readonly required: number;
  readonly approvals: number;
  readonly group: string | null;
  /** The id of the policy rule that held it, and its description (the operator's words). */
  readonly rule: string | null;
  readonly ruleDescription: string | null;
  /** The EIP-712 Decision's `request` (0x + sha256 of the stored request). */
  readonly requestHash: string;
  readonly votes: readonly ApprovalViewVote[];
  readonly status: ApprovalStatus;
  readonly result: ApprovalResultView | null;
  readonly simulation: SimulationView | null;
  /** Why it is pending with its quorum (its last release attempt's refusal); null: none. */
  readonly blockedBy: ApprovalBlockView | null;
}

/** What a view is made with besides the approval: names the vault knows. */
export interface ApprovalViewContext {
  readonly policy: PolicyDocument | null;
  /** A wallet's name by address (EIP-55), or null. */
  readonly walletName: (address: string) => string | null;
  /** A chain's id (decimal) by name, and a name by id. */
  readonly chainId: (name: string) => string | null;
  readonly chainName: (id: string) => string | null;
  /** An approver's name (the passkey's) by API key id, or null. */
  readonly approverName: (apiKeyId: string) => string | null;
  /** The operator's label of a key (`api-keys create --label`), or null. */
  readonly keyLabel: (apiKeyId: string) => string | null;
  /** Whether the key has a passkey (its votes are passkey votes). */
  readonly hasPasskey: (apiKeyId: string) => boolean;
  readonly payloads: Pick<StandardPayloads, 'unsignedTransaction' | 'decodeArguments'>;
}

const shown = (value: AbiValue): unknown => (typeof value === 'bigint' ? value.toString() : Array.isArray(value) ? value.map(shown) : value);

/**
 * Typed-data fields a page holds at most, and the characters of their paths, types and values (as JSON) at
 * most, past its first field: a page stays bounded whatever the request (a path repeats its parents' names,
 * so all of a message's paths together can be far longer than the message).
 */
export const FIELD_PAGE = 200;
export const FIELD_PAGE_CHARS = 64 * 1024;
/** Nesting followed at most; a value deeper than this is one field, shown whole. */
const MAX_DEPTH = 8;

/** The rule of the document `approval` names (a rule, or an older approval rule), or undefined. */
export function heldBy(policy: PolicyDocument | null, ruleId: string): PolicyRule | undefined {
  if (policy === null) return undefined;
  return policy.rules.find((r) => r.id === ruleId) ?? policy.approvalRules?.find((r) => r.id === ruleId || ruleId.startsWith(`${r.id}.`));
}

/** Each rule's function, parsed once: the policy cache keeps a document's rules, and a list shows 100 approvals. */
const parsedFunctions = new WeakMap<PolicyRule, ParsedFunction | null>();

/** `rule`'s function, parsed, when it is the function with `selector`. */
function functionOf(rule: PolicyRule, selector: string): ParsedFunction | undefined {
  if (rule.function === undefined) return undefined;
  let fn = parsedFunctions.get(rule);
  if (fn === undefined) {
    try {
      fn = parseFunctionText(rule.function, { signatureRequired: false });
    } catch {
      fn = null;
    }
    parsedFunctions.set(rule, fn);
  }
  return fn !== null && fn.selector.toLowerCase() === selector.toLowerCase() ? fn : undefined;
}

/**
 * The operator's functions (with names) of `selector`: the holding rule's first, then every other rule's
 * of the document, in its order. The operator wrote each, so each names the arguments as the operator reads them.
 */
export function operatorFunctions(policy: PolicyDocument | null, held: PolicyRule | undefined, selector: string | null): ParsedFunction[] {
  if (selector === null) return [];
  const rules = new Set([...(held === undefined ? [] : [held]), ...(policy?.rules ?? []), ...(policy?.approvalRules ?? [])]);
  return [...rules].flatMap((r) => functionOf(r, selector) ?? []);
}

/** The arguments named by the operator's function `names` (its parameter's name, else `args[i]`), values shown as JSON. */
export function namedArguments(params: readonly AbiParam[], values: readonly AbiValue[], names: readonly AbiParam[] | undefined): ApprovalViewArgument[] {
  return params.map((p, i) => ({ name: names?.[i]?.name || `args[${i}]`, type: p.type, value: shown(values[i]!) }));
}

/** `uint256[3]` → `uint256`, `Detail[]` → `Detail`; null for a type that is no array. */
function elementType(type: string): string | null {
  if (!type.endsWith(']')) return null;
  const open = type.lastIndexOf('[');
  return open > 0 && /^\d*$/.test(type.slice(open + 1, -1)) ? type.slice(0, open) : null;
}

export type TypedDataRequest = { domain?: Record<string, unknown>; types?: Record<string, readonly { name: string; type: string }[]>; primaryType?: string; message?: unknown };

/**
 * The fields of typed data's message from the `offset`-th (nested structs flattened with dots, arrays with
 * [i]), at most FIELD_PAGE of them and FIELD_PAGE_CHARS past the first, and how many there are in all. A
 * field's path is made only when it is on the page: counting the others costs no text.
 */
export function typedDataFieldPage(typedData: unknown, offset: number): TypedDataFieldPage {
  const td = (typedData ?? {}) as TypedDataRequest;
  const types = td.types ?? {};
  const fields: TypedDataField[] = [];
  const segments: string[] = [];
  let total = 0;
  let chars = 0;
  let full = false;
  const leaf = (type: string, value: unknown) => {
    const index = total++;
    if (full || index < offset) return;
    const field = { path: segments.join(''), type, value: value === undefined ? null : value };
    const size = field.path.length + type.length + (JSON.stringify(field.value)?.length ?? 0);
    if (fields.length >= FIELD_PAGE || (fields.length > 0 && chars + size > FIELD_PAGE_CHARS)) {
      full = true;
      return;
    }
    chars += size;
    fields.push(field);
  };
  const walk = (type: string, value: unknown, depth: number) => {
    const element = elementType(type);
    if (element !== null && Array.isArray(value) && depth < MAX_DEPTH) {
      value.forEach((v, i) => {
        segments.push(`[${i}]`);
        walk(element, v, depth + 1);
        segments.pop();
      });
      return;
    }
    const struct = Object.hasOwn(types, type) ? types[type] : undefined;
    if (struct && value !== null && typeof value === 'object' && depth < MAX_DEPTH) {
      for (const f of struct) {
        segments.push(segments.length === 0 ? f.name : `.${f.name}`);
        walk(f.type, (value as Record<string, unknown>)[f.name], depth + 1);
        segments.pop();
      }
      return;
    }
    leaf(type, value);
  };
  walk(String(td.primaryType), td.message, 0);
  return { offset, total, fields };
}

/** What a view shows that depends on the kind held (view fields, some named as kinds are, in an order that is no list of kinds). */
export type KindView = Pick<ApprovalView, 'message' | 'function' | 'call' | 'value' | 'transaction' | 'fee' | 'authorization' | 'typedData'> & {
  readonly wallet: string | null;
  readonly chainName: string | null;
  readonly chainId: string | null;
  readonly contract: string | null;
};

/** Every field null: each kind fills its own. */
export const NOTHING_OF_A_KIND: KindView = {
  wallet: null,
  chainName: null,
  chainId: null,
  contract: null,
  function: null,
  call: null,
  transaction: null,
  value: null,
  fee: null,
  typedData: null,
  message: null,
  authorization: null,
};

