import type { ApprovalStatus } from '../../domain/approval.js';
import type { ApprovalPage, ApprovalStore } from '../../ports/approval-store.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { PolicyCache } from '../signing/policy-cache.js';
import { asOf, documentForReads } from './approval-reads.js';
import { withPolicyQuorum } from './held-quorum.js';

/** A vault's approvals, oldest first, optionally of one status (`?status=pending`), each with the quorum the policy in force asks. */
export class ListApprovals {
  constructor(
    private readonly store: ApprovalStore | undefined,
    private readonly clock: Clock,
    private readonly policies?: Pick<PolicyCache, 'state'>,
  ) {}

  async execute(vaultId: string, query: { status?: ApprovalStatus; offset?: number; count?: number } = {}): Promise<ApprovalPage> {
    const now = this.clock.now();
    if (this.store === undefined) return { count: 0, page: [] };
    const page = await this.store.list(vaultId, { status: query.status, now, offset: query.offset ?? 0, count: query.count ?? 100 });
    const document = page.page.length === 0 ? null : await documentForReads(this.policies, vaultId);
    return { count: page.count, page: page.page.map((a) => withPolicyQuorum(asOf(a, now), document)) };
  }
}
