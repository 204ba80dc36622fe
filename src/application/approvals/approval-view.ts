import { heldRequestOf, type Approval, type HeldRequestOf } from '../../domain/approval.js';
import { contractNameOf } from '../../domain/policy/contract-names.js';
import type { PolicyRule } from '../../domain/policy/policy-document.js';
import { KIND_VIEWS } from '../signing/kinds/registered-application-kinds.js';
import { approvalBlock, approvalResult, approvalSimulation } from './approval-outcome.js';
import { simulationShown } from './approval-units.js';
import { heldBy, type ApprovalView, type ApprovalViewContext, type KindView } from './approval-view-parts.js';

// The view's parts (its types, the operator's names of arguments, typed data's pages), where the kinds' views read them too.
export * from './approval-view-parts.js';

export function approvalView(a: Approval, ctx: ApprovalViewContext): ApprovalView {
  const held = heldRequestOf(a);
  const { kind } = held;
  const rule = heldBy(ctx.policy, a.ruleId);
  const view = (KIND_VIEWS[kind] as (held: HeldRequestOf['held'], ctx: ApprovalViewContext, rule: PolicyRule | undefined) => KindView)(held.held, ctx, rule);
  const { wallet, chainName, chainId, contract, function: fn, call, transaction, value, fee, typedData, message, authorization } = view;
  return {
    id: a.id,
    vault: a.vaultId,
    wallet: { address: wallet, name: wallet === null ? null : ctx.walletName(wallet) },
    chain: { name: chainName, id: chainId },
    kind,
    contract: contract === null ? null : { address: contract, name: contractNameOf(ctx.policy, contract) },
    function: fn,
    call,
    transaction,
    value,
    fee,
    typedData,
    message,
    authorization,
    requester: { id: a.requester, name: ctx.approverName(a.requester), label: ctx.keyLabel(a.requester) },
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
      approver: { id: v.apiKeyId, name: ctx.approverName(v.apiKeyId), label: ctx.keyLabel(v.apiKeyId) },
      decision: v.vote,
      at: v.at.toISOString(),
      kind: ctx.hasPasskey(v.apiKeyId) ? 'passkey' : v.signature ? 'address' : 'unsigned',
    })),
    status: a.status,
    result: approvalResult(a),
    simulation: simulationShown(ctx.policy, approvalSimulation(a)),
    blockedBy: approvalBlock(a),
  };
}
