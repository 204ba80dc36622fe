import type { ApprovalStore } from '../../ports/approval-store.port.js';
import type { Clock } from '../../ports/clock.port.js';
import { SYSTEM } from '../audit/audit-actor.js';

/** Approvals marked expired per pass of the job. */
const EXPIRE_BATCH = 100;

/**
 * Marks pending approvals past their expiry as expired, each with approval.decided {status: expired}, so the
 * end of every request is on record (reads already report them expired). Run periodically by the server.
 */
export class ExpireApprovals {
  constructor(
    private readonly store: ApprovalStore | undefined,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<{ expired: number }> {
    if (this.store === undefined) return { expired: 0 };
    let expired = 0;
    for (;;) {
      const now = this.clock.now();
      const done = await this.store.expire(now, EXPIRE_BATCH, (a) => ({
        action: 'approval.decided',
        at: now,
        actor: SYSTEM,
        vaultId: a.vaultId,
        subject: a.id,
        details: { approval: a.id, status: 'expired' },
      }));
      expired += done.length;
      if (done.length < EXPIRE_BATCH) return { expired };
    }
  }
}
