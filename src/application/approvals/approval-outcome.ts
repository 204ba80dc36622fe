import type { TokenAmount } from '../../domain/policy/address-book.js';
import type { Approval } from '../../domain/approval.js';
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
