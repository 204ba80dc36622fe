import { presentApprovalOf } from '../../src/application/approvals.use-case.js';
import type { Approval } from '../../src/domain/approval.js';
import type { Wallet } from '../../src/domain/wallet.js';
import type { SignatureRecord } from '../../src/ports/signature-log.port.js';
import type { ApprovalView, SubmissionView, WalletView } from './response-schemas.js';

/** The wallet as the interface shows it: internal fields (key store, key reference, version) never leave. */
export function presentWallet(w: Wallet): WalletView {
  return {
    id: w.id,
    account: w.accountId,
    vault: w.vaultId,
    name: w.name,
    address: w.address,
    created: w.created.toISOString(),
    updated: w.updated.toISOString(),
    ...(w.expires ? { expires: w.expires.toISOString() } : {}),
  };
}

export function presentSubmission(r: SignatureRecord): SubmissionView {
  return {
    submissionHash: r.submissionHash,
    vault: r.vaultId,
    wallet: r.walletAddress,
    chain: r.chain,
    contract: r.contract,
    sender: r.sender,
    selector: r.selector,
    signed: r.created.toISOString(),
    transactionHash: r.transactionHash,
    submitted: r.submitted?.toISOString() ?? null,
  };
}

/** An approval as the API shows it (the status as of the read: pending turns expired at `expires`). */
export const presentApproval = (a: Approval): ApprovalView => presentApprovalOf(a);
