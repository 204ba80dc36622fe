import type { TokenAmount } from '../../domain/policy/address-book.js';
import type { Approval, ApprovalBlockReason } from '../../domain/approval.js';
import type { SignResult } from '../signing/sign-call.use-case.js';

/* What became of a held request, as both the API's presentation and the console's view show it. */

/** The result of an approved request: Sign's, a message's or typed data's `{signature}`, a transaction's `{serialized, hash}`. */
export type ApprovalResultView = SignResult | { signature: string } | { serialized: string; hash: string };

/** What a held transaction's simulation found (outflows in wei or token units, decimal; absent: not asked of the node). */
export interface SimulationView {
  chain: string;
  method: 'eth_call' | 'eth_simulateV1';
  nativeOutflow?: string;
  tokenOutflow?: Record<string, string>;
  /** The tokenOutflow of the tokens the policy document's `tokens` names, in their units (approval-units.ts); absent: none named. */
  tokenOutflowUnits?: Record<string, TokenAmount>;
}

/** The result of an approved request (Sign's, or a standard request's), or null. */
export const approvalResult = (approval: Approval): ApprovalResultView | null =>
  approval.status === 'approved' && approval.result !== null ? (JSON.parse(approval.result) as ApprovalResultView) : null;

/** What the simulation before the hold found, or null when none ran. */
export const approvalSimulation = (approval: Approval): SimulationView | null => (approval.simulation ? (JSON.parse(approval.simulation) as SimulationView) : null);

/** Why a pending request with its quorum was not released (its last release attempt's refusal), as the API, the CLI and the console show it. */
export interface ApprovalBlockView {
  reason: ApprovalBlockReason;
  code: string;
  message: string;
  at: string;
}

/** The approval's blockedBy while it is pending; null when no release was refused, or once it is decided. */
export const approvalBlock = (approval: Approval): ApprovalBlockView | null => {
  const b = approval.blockedBy;
  return approval.status !== 'pending' || b === undefined || b === null ? null : { reason: b.reason, code: b.code, message: b.message, at: b.at.toISOString() };
};
