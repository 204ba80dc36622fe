import { presentApprovalOf } from '../../src/application/approvals/approval-presenter.js';
import { type KeyLabels, type ShownPolicy } from '../../src/application/approvals/approval-reads.js';
import type { Approval } from '../../src/domain/approval.js';
import type { Wallet } from '../../src/domain/wallet.js';
import type { SignatureRecord } from '../../src/ports/signature-log.port.js';
import type { GovernanceView, ProposalView } from '../../src/application/governance/governance.use-case.js';
import type { ApprovalView, GovernanceJson, ProposalJson, SubmissionView, WalletView } from './response-schemas.js';

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
    ...(w.derivationPath ? { derivationPath: w.derivationPath } : {}),
    ...(w.exported ? { exported: w.exported.toISOString() } : {}),
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

/** An approval as the API shows it (the status as of the read: pending turns expired at `expires`); `shown`: the policy in force, for a call's contract. */
export const presentApproval = (a: Approval, shown?: ShownPolicy, labels?: KeyLabels): ApprovalView => presentApprovalOf(a, shown, labels);

/** A proposal as the API shows it: instants as ISO text, the rest as the use case reads it. */
export function presentProposal(p: ProposalView): ProposalJson {
  return {
    id: p.id,
    vault: p.vault,
    documentHash: p.documentHash,
    previous: p.previous,
    status: p.status,
    creator: p.creator,
    created: p.created.toISOString(),
    decided: p.decided?.toISOString() ?? null,
    approvals: [...p.approvals],
    approvalCount: p.approvals.length,
    required: p.required,
    effectiveAt: p.effectiveAt?.toISOString() ?? null,
    rejectedBy: p.rejectedBy,
    diff: p.diff,
    // The policy document as stored: its schema is docs/policy.md's, not restated here.
    state: p.state as unknown as ProposalJson['state'],
    typedData: p.typedData as unknown as ProposalJson['typedData'],
    rejectTypedData: p.rejectTypedData as unknown as ProposalJson['rejectTypedData'],
  };
}

export function presentGovernance(g: GovernanceView): GovernanceJson {
  return {
    vault: g.vault,
    governed: g.governed,
    state: g.state as unknown as GovernanceJson['state'],
    hash: g.hash,
    genesisHash: g.genesisHash,
    pin: g.pin,
    pinned: g.pinned,
    frozen: g.frozen.freezes > g.frozen.lifted,
    freezes: g.frozen.freezes,
    liftedFreezes: g.frozen.lifted,
    problem: g.problem,
  };
}
