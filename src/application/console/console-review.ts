import type { Approval, ApprovalStatus } from '../../domain/approval.js';
import { heldRequestOf } from '../../domain/approval.js';
import { TYPED_DATA_KIND } from '../../domain/signing/kinds/typed-data/typed-data.kind.js';
import { invalidArgument } from '../../domain/errors.js';
import type { AuditRecord } from '../../ports/audit-log.port.js';
import { typedDataFieldPage, type ApprovalView, type TypedDataFieldPage } from '../approvals/approval-view.js';
import type { ProposalView } from '../governance/governance.use-case.js';
import { fieldsShown } from '../approvals/approval-units.js';
import { ConsoleRoom, type ConsoleCaller } from './console-room.js';

/*
 * What a signed-in approver reads: its vault's approvals decoded (newest first), held typed data's fields
 * page by page, each with its audit records, and the vault's governance proposals (read-only here).
 */

/** Approvals a console list shows at most (newest first). */
const LIST_MAX = 100;

export class ConsoleReview extends ConsoleRoom {
  /** `GET /console/api/approvals?state=pending|decided`: the approver's vault's approvals, newest first (at most 100). */
  async approvals(caller: ConsoleCaller, state: 'pending' | 'decided'): Promise<ApprovalView[]> {
    const vaultId = caller.approver.vault;
    const statuses: ApprovalStatus[] = state === 'pending' ? ['pending'] : ['approved', 'rejected', 'expired'];
    const newest = await Promise.all(statuses.map((status) => this.newest(vaultId, status)));
    const chosen = newest.flat().sort((a, b) => b.created.getTime() - a.created.getTime() || (a.id < b.id ? 1 : -1)).slice(0, LIST_MAX);
    return this.views(vaultId, chosen);
  }

  /** The newest LIST_MAX approvals of one status (the store lists oldest first: the last page). */
  private async newest(vaultId: string, status: ApprovalStatus): Promise<readonly Approval[]> {
    const { count } = await this.deps.listApprovals.execute(vaultId, { status, count: 1 });
    if (count === 0) return [];
    return (await this.deps.listApprovals.execute(vaultId, { status, offset: Math.max(0, count - LIST_MAX), count: LIST_MAX })).page;
  }

  /** `GET /console/api/approvals/{id}`: one approval decoded, with the audit records whose subject it is. */
  async approval(caller: ConsoleCaller, id: string): Promise<{ approval: ApprovalView; audit: AuditRecord[] }> {
    const approval = await this.deps.getApproval.execute(caller.approver.vault, id);
    const [view] = await this.views(approval.vaultId, [approval]);
    return { approval: view!, audit: await this.auditOf(approval.vaultId, approval.id, 200) };
  }

  /**
   * `GET /console/api/approvals/{id}/fields?offset=N`: a page of held typed data's fields from the N-th (the
   * view carries the first); 400 naming `offset` when it is no whole number, or the approval holds no typed data.
   */
  async typedDataFields(caller: ConsoleCaller, id: string, offset: unknown): Promise<TypedDataFieldPage> {
    const from = typeof offset === 'string' && /^\d{1,9}$/.test(offset) ? Number(offset) : Number.NaN;
    if (!Number.isSafeInteger(from)) throw invalidArgument('offset: a whole number of fields from 0');
    const approval = await this.deps.getApproval.execute(caller.approver.vault, id);
    const held = heldRequestOf(approval);
    if (held.kind !== TYPED_DATA_KIND.name) throw invalidArgument(`approval ${approval.id}: holds no typed data (its kind is ${held.kind})`);
    const page = typedDataFieldPage(held.held.payload, from);
    const domain = ((held.held.payload as { domain?: { verifyingContract?: unknown } } | null)?.domain ?? {}).verifyingContract;
    const primaryType = String((held.held.payload as { primaryType?: unknown } | null)?.primaryType);
    const policy = await this.deps.getApproval.shownPolicy(approval.vaultId);
    return { ...page, fields: fieldsShown(policy, typeof domain === 'string' ? domain : null, primaryType, page.fields) };
  }

  private auditOf(vaultId: string, subject: string, limit: number): Promise<AuditRecord[]> {
    return this.parts().store.auditOf(vaultId, subject, limit);
  }

  /** `GET /console/api/proposals`: the vault's governance proposals (read-only here, docs/console.md). */
  async proposals(caller: ConsoleCaller, state: 'pending' | 'decided'): Promise<ProposalView[]> {
    const all = await this.deps.governance.list(caller.approver.vault);
    return all.filter((p) => (state === 'pending') === (p.status === 'pending'));
  }

  async proposal(caller: ConsoleCaller, id: string): Promise<{ proposal: ProposalView; audit: AuditRecord[] }> {
    const proposal = await this.deps.governance.get(caller.approver.vault, id);
    return { proposal, audit: await this.auditOf(caller.approver.vault, id, 200) };
  }

  /** `GET /console/api/history`: decided approvals and proposals. */
  async history(caller: ConsoleCaller): Promise<{ approvals: ApprovalView[]; proposals: ProposalView[] }> {
    return { approvals: await this.approvals(caller, 'decided'), proposals: await this.proposals(caller, 'decided') };
  }
}
