import { invalidArgument } from '../../domain/errors.js';
import type { AuditLog, AuditRecord } from '../../ports/audit-log.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import { requireVault } from '../wallets/wallet-lookup.js';

export const AUDIT_LIST_DEFAULT = 100;
export const AUDIT_LIST_MAX = 1000;

/** A page of the audit trail in `seq` order, optionally of one vault. */
export class ListAuditRecords {
  constructor(
    private readonly auditLog: AuditLog,
    private readonly repository: VaultStore,
  ) {}

  async execute(query: { afterSeq?: number; limit?: number; vaultId?: string }): Promise<AuditRecord[]> {
    const afterSeq = query.afterSeq ?? 0;
    const limit = query.limit ?? AUDIT_LIST_DEFAULT;
    if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) throw invalidArgument('after: must be an integer >= 0');
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > AUDIT_LIST_MAX) {
      throw invalidArgument(`limit: must be an integer from 1 to ${AUDIT_LIST_MAX}`);
    }
    // A vault that does not exist is said so, as every other command does, not shown as an empty trail.
    if (query.vaultId !== undefined) await requireVault(this.repository, query.vaultId);
    return this.auditLog.list({ afterSeq, limit, ...(query.vaultId === undefined ? {} : { vaultId: query.vaultId }) });
  }
}
