import type { ApprovalBlock, ApprovalBlockReason } from '../../domain/approval.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';

/**
 * The refusals that leave a request with its quorum pending for a reason its approvers should read where its
 * status is shown, by their stable code. Anything else (the chain's RPC, the key store, a revoked requester)
 * is a fault of the moment, answered to the caller and not recorded on the approval.
 */
const BLOCKING: Readonly<Partial<Record<ErrorCode, ApprovalBlockReason>>> = {
  [ErrorCode.RATE_LIMITED]: 'limit',
  [ErrorCode.SIGN_LIMIT_REACHED]: 'limit',
  [ErrorCode.SIGN_LIMIT_RECORDS_MISSING]: 'limit',
  [ErrorCode.PRICE_FEED_STALE]: 'limit',
  [ErrorCode.PRICE_FEED_UNAVAILABLE]: 'limit',
  [ErrorCode.VAULT_FROZEN]: 'freeze',
  [ErrorCode.GOVERNANCE_UNVERIFIED]: 'governance',
  [ErrorCode.SIMULATION_REVERTED]: 'simulation',
  [ErrorCode.VAULT_SEALED]: 'sealed',
};

/** Why a failed release left the request pending, as recorded on it; null for a failure that records nothing. */
export function releaseBlockOf(error: unknown, at: Date): ApprovalBlock | null {
  if (!(error instanceof DomainError)) return null;
  const reason = BLOCKING[error.code];
  return reason === undefined ? null : { reason, code: error.code, message: error.message, at };
}
