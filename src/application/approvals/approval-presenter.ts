import { approvalKind, heldOfKind, heldRequestOf, type Approval, type ApprovalKind, type ApprovalStatus, type ApprovalVoteKind } from '../../domain/approval.js';
import { unreadableHeld } from '../../domain/signing/held-request.js';
import { CALL_KIND } from '../../domain/signing/kinds/call/call.kind.js';
import { standardKindOf } from '../../domain/signing/kinds/registered-signing-kinds.js';
import { contractNameOf } from '../../domain/policy/contract-names.js';
import { uniqBinding, type UniqBinding } from '../../domain/policy/uniq-binding.js';
import { parseAbiFunction } from '../../domain/signing/abi-function.js';
import { coerceArguments } from '../../domain/signing/argument-coercion.js';
import { apiKeyActor } from '../audit/audit-actor.js';
import { asBytes32 } from '../../domain/signed-decisions.js';
import type { KeyLabels, ShownPolicy } from './approval-reads.js';
import { approvalBlock, approvalResult, approvalSimulation, type ApprovalBlockView, type ApprovalResultView, type SimulationView } from './approval-outcome.js';
import { argumentsShown, callFunctionKey, simulationShown, tokenCallShown, type TokenCallView } from './approval-units.js';
import { heldBy, namedArguments, operatorFunctions, type ApprovalViewArgument } from './approval-view.js';

/*
 * The one approval presenter: how a held request is shown to people. The console's view (approvalView of
 * approval-view.ts: every signed field, for an approver to judge) and the API's and the CLI's presentation
 * (presentApprovalOf, here: the request as it was asked, decoded) name things by the same rules: arguments
 * by the operator's names, as approval-view.ts finds them (heldBy, operatorFunctions, namedArguments: the
 * function of the rule that held the request, else of the first rule with its selector; `args[i]` where
 * that function names none or no rule has it), contracts by the policy's `contractNames` (contractNameOf),
 * never by what the requester sent; the outcome (result, simulation) as approval-outcome.ts reads it.
 */

/**
 * One argument of the held request, as parsed against its ABI item and named as the console names it: by
 * the operator's function (`amount`), `args[i]` where it has no name. Never the parameter name of the
 * requester's ABI item: the requester chooses those freely (the selector hashes only types), so an
 * `amount` named `harmlessFee` would tell approvers what the requester wants them to read.
 */
export type DecodedArgument = ApprovalViewArgument;

/** What a held request asks, for people to judge: the fields as asked, the function and its arguments decoded (by the operator's names). */
export interface ApprovalRequestView {
  readonly chain: string;
  readonly contract: string;
  /** The operator's name of `contract` (policy `contractNames`); absent when the policy names it not. */
  readonly contractName?: string;
  readonly sender: string;
  readonly uniq?: string;
  readonly signer?: string;
  /**
   * With `uniq`: what the policy in force pins it to, and a warning when that is not `contract` (the
   * signature binds the uniq, not the contract's address).
   */
  readonly uniqBinding?: UniqBinding;
  /** The function's canonical signature (`transfer(address,uint256,(bytes32,bytes32,bytes32,uint8))`). */
  readonly function: string;
  readonly selector: string;
  readonly arguments: readonly DecodedArgument[];
}

/** A held call decoded; `policy`: the document in force, whose functions name its arguments (none: `args[i]`). */
export function describeApprovalRequest(approval: Approval, policy: ShownPolicy = null): ApprovalRequestView {
  const fields = heldOfKind(CALL_KIND, approval);
  const fn = parseAbiFunction(fields.abi);
  const values = coerceArguments(fields.args, fn.argParams);
  const [named] = operatorFunctions(policy, heldBy(policy, approval.ruleId), fn.selector);
  return {
    chain: fields.chain,
    contract: fields.contract,
    sender: fields.sender,
    ...(fields.uniq === undefined ? {} : { uniq: fields.uniq }),
    ...(fields.signer === undefined ? {} : { signer: fields.signer }),
    function: fn.signature,
    selector: fn.selector,
    arguments: argumentsShown(policy, fields.contract, callFunctionKey(fn), namedArguments(fn.argParams, values, named?.argParams)),
  };
}

/**
 * What a held message, typed data or transaction asks: the signing wallet and the request as it was
 * given (as JSON values: quantities as decimal strings where they were bigints).
 */
export interface StandardRequestView {
  readonly wallet: string;
  readonly message?: unknown;
  readonly typedData?: unknown;
  readonly transaction?: unknown;
  /** A transaction's transfer, transferFrom or approve of a token the policy's `tokens` names, read with names and units (approval-units.ts). */
  readonly tokenCall?: TokenCallView;
}

export function describeStandardRequest(approval: Approval): StandardRequestView {
  const { kind, held } = heldRequestOf(approval);
  if (kind === CALL_KIND.name) throw unreadableHeld('it holds a call, not a standard payload');
  return { wallet: held.address, [standardKindOf(kind).requestField]: held.payload };
}

/** An approval as the API and the CLI show it: instants as ISO 8601, keys as `api-key:<id>`, the request decoded. */
export interface ApprovalPresentation {
  id: string;
  /** What is held: a Sign call, a message, typed data or a transaction. */
  kind: ApprovalKind;
  status: ApprovalStatus;
  required: number;
  approvals: number;
  /** The same count as `approvals`, under the name a proposal's count has too. */
  approvalCount: number;
  expires: string;
  created: string;
  decided: string | null;
  rule: string;
  group: string | null;
  requester: string;
  /** The requester key's label (`api-keys create --label`), beside `requester`; absent when it has none. */
  requesterLabel?: string;
  request: (Omit<ApprovalRequestView, 'arguments'> & { arguments: DecodedArgument[] }) | StandardRequestView;
  /**
   * sha256 of the stored request as `0x` + 64 lower-case hex digits: the EIP-712 `Decision`'s `request`,
   * as an approver signs it (decisionTypedData(vault, id, requestHash, vote)).
   */
  requestHash: string;
  /** `signature`: the vote's EIP-712 Decision signature; null for a vote of a key without credential. */
  votes: { by: string; byLabel?: string; vote: ApprovalVoteKind; at: string; signature: string | null }[];
  result: ApprovalResultView | null;
  simulation: SimulationView | null;
  /** Why it is pending with its quorum: the refusal of its last release attempt (limit, freeze, governance, simulation, sealed); null: none. */
  blockedBy: ApprovalBlockView | null;
}

/**
 * `shown`: the policy in force (GetApproval.shownPolicy), for a call's `contractName`, `uniqBinding` and argument names;
 * undefined where it was not read (the answer that holds a sign): then no contract name and no binding are
 * given, rather than a binding that would say the uniq is pinned to nothing, and arguments are named `args[i]`.
 */
export function presentApprovalOf(a: Approval, shown?: ShownPolicy, labels?: KeyLabels): ApprovalPresentation {
  const labelled = (field: 'requesterLabel' | 'byLabel', id: string) => {
    const label = labels?.get(id);
    return label === undefined ? {} : { [field]: label };
  };
  const kind = approvalKind(a);
  let request: ApprovalPresentation['request'];
  if (kind === 'call') {
    const { arguments: args, ...call } = describeApprovalRequest(a, shown ?? null);
    const contractName = contractNameOf(shown ?? null, call.contract);
    request = {
      ...call,
      ...(contractName === null ? {} : { contractName }),
      ...(call.uniq === undefined || shown === undefined ? {} : { uniqBinding: uniqBinding(shown, call.contract, call.uniq) }),
      arguments: [...args],
    };
  } else {
    const standard = describeStandardRequest(a);
    const tx = standard.transaction as { to?: unknown; data?: unknown; input?: unknown } | undefined;
    const tokenCall = tx === undefined ? null : tokenCallShown(shown ?? null, tx.to, tx.data ?? tx.input);
    request = tokenCall === null ? standard : { ...standard, tokenCall };
  }
  return {
    id: a.id,
    kind,
    status: a.status,
    required: a.required,
    approvals: a.approvals,
    approvalCount: a.approvals,
    expires: a.expires.toISOString(),
    created: a.created.toISOString(),
    decided: a.decided?.toISOString() ?? null,
    rule: a.ruleId,
    group: a.group,
    requester: apiKeyActor(a.requester),
    ...labelled('requesterLabel', a.requester),
    request,
    requestHash: asBytes32(a.requestHash),
    votes: a.votes.map((v) => ({ by: apiKeyActor(v.apiKeyId), ...labelled('byLabel', v.apiKeyId), vote: v.vote, at: v.at.toISOString(), signature: v.signature ?? null })),
    result: approvalResult(a),
    simulation: simulationShown(shown ?? null, approvalSimulation(a)),
    blockedBy: approvalBlock(a),
  };
}
