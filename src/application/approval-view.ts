import { approvalKind, type Approval, type ApprovalKind, type ApprovalStatus } from '../domain/approval.js';
import { contractNameOf } from '../domain/policy/contract-names.js';
import type { PolicyDocument, PolicyRule } from '../domain/policy/policy-document.js';
import { parseAbiFunction, type AbiParam, type ParsedFunction } from '../domain/signing/abi-function.js';
import { coerceArguments, type AbiValue } from '../domain/signing/argument-coercion.js';
import { parseFunctionText } from '../domain/signing/function-signature.js';
import type { StandardPayloads } from '../ports/standard-payloads.port.js';
import { approvalResult, type ApprovalResultView, type SimulationView } from './approvals.use-case.js';

/*
 * What the approvers' console shows of an approval (docs/console.md, "What an approver sees"): the request
 * decoded for people. Argument names are the OPERATOR's, never the requester's: the requester chooses its
 * ABI's parameter names freely (the selector hashes types only), so a name it gives would say what it
 * wants approvers to read (issue 34). The names come from the `function` of the policy rule that held the
 * request, when its selector is the request's; else arguments are named by position (`args[0]`).
 */

export interface ApprovalViewArgument {
  readonly name: string;
  readonly type: string;
  /** Integers as decimal strings, addresses EIP-55, bytes lower-case hex, tuples and arrays as arrays. */
  readonly value: unknown;
}

export interface ApprovalViewVote {
  readonly approver: { readonly id: string; readonly name: string | null };
  readonly decision: 'approve' | 'reject';
  readonly at: string;
  /** passkey: a WebAuthn assertion; address: an EIP-712 signature; unsigned: a key without credential. */
  readonly kind: 'passkey' | 'address' | 'unsigned';
}

/** The contract's ApprovalView (docs/console.md, "The API behind the page"). */
export interface ApprovalView {
  readonly id: string;
  readonly vault: string;
  readonly wallet: { readonly address: string | null; readonly name: string | null };
  readonly chain: { readonly name: string | null; readonly id: string | null };
  readonly kind: ApprovalKind;
  /**
   * A call's contract, a transaction's `to`, typed data's `verifyingContract` or an authorization's
   * delegate; `name` is the operator's (the policy document's `contractNames`), never the requester's.
   */
  readonly contract: { readonly address: string; readonly name: string | null } | null;
  readonly function: { readonly signature: string; readonly name: string; readonly args: readonly ApprovalViewArgument[] } | null;
  /** Wei, decimal: a transaction's value and most fee; null for the other kinds. */
  readonly value: string | null;
  readonly fee: string | null;
  readonly typedData: { readonly primaryType: string; readonly domain: Readonly<Record<string, unknown>>; readonly fields: readonly { path: string; type: string; value: unknown }[] } | null;
  readonly message: string | null;
  /** An EIP-7702 authorization's delegate, chain id and nonce; null for the other kinds. */
  readonly authorization: Readonly<Record<string, unknown>> | null;
  readonly requester: { readonly id: string; readonly name: string | null };
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
  /** Whether the key has a passkey (its votes are passkey votes). */
  readonly hasPasskey: (apiKeyId: string) => boolean;
  readonly payloads: Pick<StandardPayloads, 'unsignedTransaction' | 'decodeArguments'>;
}

const shown = (value: AbiValue): unknown => (typeof value === 'bigint' ? value.toString() : Array.isArray(value) ? value.map(shown) : value);
const MAX_FIELDS = 200;

/** The rule of the document `approval` names (a rule, or an older approval rule), or undefined. */
function heldBy(policy: PolicyDocument | null, ruleId: string): PolicyRule | undefined {
  if (policy === null) return undefined;
  return policy.rules.find((r) => r.id === ruleId) ?? policy.approvalRules?.find((r) => r.id === ruleId || ruleId.startsWith(`${r.id}.`));
}

/** The operator's function (with names) of `rule`, when it is the function with `selector`. */
function operatorFunction(rule: PolicyRule | undefined, selector: string | null): ParsedFunction | undefined {
  if (rule?.function === undefined || selector === null) return undefined;
  try {
    const fn = parseFunctionText(rule.function, { signatureRequired: false });
    return fn.selector.toLowerCase() === selector.toLowerCase() ? fn : undefined;
  } catch {
    return undefined;
  }
}

function namedArguments(params: readonly AbiParam[], values: readonly AbiValue[], names: readonly AbiParam[] | undefined): ApprovalViewArgument[] {
  return params.map((p, i) => ({ name: names?.[i]?.name || `args[${i}]`, type: p.type, value: shown(values[i]!) }));
}

/** Typed data's message as `{path, type, value}` per field (nested structs flattened with dots, arrays with [i]). */
function typedDataFields(types: Record<string, readonly { name: string; type: string }[]>, primaryType: string, message: unknown): { path: string; type: string; value: unknown }[] {
  const out: { path: string; type: string; value: unknown }[] = [];
  const walk = (type: string, value: unknown, path: string, depth: number) => {
    if (out.length >= MAX_FIELDS) return;
    const array = /^(.*)\[(\d*)\]$/.exec(type);
    if (array && Array.isArray(value) && depth < 8) {
      value.forEach((v, i) => walk(array[1]!, v, `${path}[${i}]`, depth + 1));
      return;
    }
    const struct = types[type];
    if (struct && value !== null && typeof value === 'object' && depth < 8) {
      for (const f of struct) walk(f.type, (value as Record<string, unknown>)[f.name], path === '' ? f.name : `${path}.${f.name}`, depth + 1);
      return;
    }
    out.push({ path, type, value: typeof value === 'bigint' ? value.toString() : value });
  };
  walk(primaryType, message, '', 0);
  return out;
}

export function approvalView(a: Approval, ctx: ApprovalViewContext): ApprovalView {
  const kind = approvalKind(a);
  const rule = heldBy(ctx.policy, a.ruleId);
  const request = JSON.parse(a.request) as Record<string, unknown>;
  let wallet: string | null = null;
  let chainName: string | null = null;
  let chainId: string | null = null;
  let contract: string | null = null;
  let fn: ApprovalView['function'] = null;
  let value: string | null = null;
  let fee: string | null = null;
  let typedData: ApprovalView['typedData'] = null;
  let message: string | null = null;
  let authorization: ApprovalView['authorization'] = null;
  if (kind === 'call') {
    const parsed = parseAbiFunction(request.abi);
    const values = coerceArguments(request.args as unknown[], parsed.argParams);
    const named = operatorFunction(rule, parsed.selector);
    fn = { signature: parsed.signature, name: parsed.name, args: namedArguments(parsed.argParams, values, named?.argParams) };
    chainName = String(request.chain);
    chainId = ctx.chainId(chainName);
    contract = String(request.contract);
    wallet = typeof request.signer === 'string' ? request.signer : null;
  } else {
    wallet = typeof request.address === 'string' ? request.address : null;
    if (kind === 'transaction') {
      const { facts } = ctx.payloads.unsignedTransaction(request.transaction);
      chainId = facts.chainId.toString();
      chainName = ctx.chainName(chainId);
      contract = facts.to;
      value = facts.value.toString();
      fee = facts.fee.toString();
      const named = operatorFunction(rule, facts.selector);
      const decoded = named === undefined ? null : ctx.payloads.decodeArguments(named, facts.data);
      if (named !== undefined && decoded !== null) fn = { signature: named.signature, name: named.name, args: namedArguments(named.argParams, decoded, named.argParams) };
    } else if (kind === 'typed-data') {
      const td = request.typedData as { domain?: Record<string, unknown>; types?: Record<string, { name: string; type: string }[]>; primaryType?: string; message?: unknown };
      const domain = td.domain ?? {};
      typedData = { primaryType: String(td.primaryType), domain, fields: typedDataFields(td.types ?? {}, String(td.primaryType), td.message) };
      if (domain.chainId !== undefined) {
        chainId = String(domain.chainId);
        chainName = ctx.chainName(chainId);
      }
      contract = typeof domain.verifyingContract === 'string' ? domain.verifyingContract : null;
    } else if (kind === 'message') {
      message = typeof request.message === 'string' ? request.message : JSON.stringify(request.message);
    } else {
      const { kind: _k, address: _a, ...rest } = request;
      authorization = rest;
      const auth = (rest.authorization ?? rest) as Record<string, unknown>;
      if (auth.chainId !== undefined) {
        chainId = String(auth.chainId);
        chainName = ctx.chainName(chainId);
      }
      contract = typeof auth.address === 'string' ? auth.address : null;
    }
  }
  return {
    id: a.id,
    vault: a.vaultId,
    wallet: { address: wallet, name: wallet === null ? null : ctx.walletName(wallet) },
    chain: { name: chainName, id: chainId },
    kind,
    contract: contract === null ? null : { address: contract, name: contractNameOf(ctx.policy, contract) },
    function: fn,
    value,
    fee,
    typedData,
    message,
    authorization,
    requester: { id: a.requester, name: ctx.approverName(a.requester) },
    created: a.created.toISOString(),
    expires: a.expires.toISOString(),
    decided: a.decided?.toISOString() ?? null,
    required: a.required,
    approvals: a.approvals,
    group: a.group,
    rule: a.ruleId,
    ruleDescription: rule?.description ?? null,
    requestHash: `0x${a.requestHash.replace(/^0x/, '').toLowerCase()}`,
    votes: a.votes.map((v) => ({
      approver: { id: v.apiKeyId, name: ctx.approverName(v.apiKeyId) },
      decision: v.vote,
      at: v.at.toISOString(),
      kind: ctx.hasPasskey(v.apiKeyId) ? 'passkey' : v.signature ? 'address' : 'unsigned',
    })),
    status: a.status,
    result: approvalResult(a),
    simulation: a.simulation ? (JSON.parse(a.simulation) as SimulationView) : null,
  };
}
