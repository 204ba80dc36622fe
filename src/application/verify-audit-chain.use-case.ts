import { auditRecordHash, GENESIS_HASH } from '../domain/audit-chain.js';
import type { AuditLog, AuditRecord } from '../ports/audit-log.port.js';

export type AuditVerdict =
  | {
      readonly ok: true;
      /** Records checked: the whole chain. */
      readonly records: number;
      /** The last record; keep its seq and hash elsewhere to detect a later truncation of the tail. */
      readonly head: { readonly seq: number; readonly hash: string } | null;
    }
  | {
      readonly ok: false;
      /** Records checked before the first broken one. */
      readonly records: number;
      /** The first record that does not fit the chain (for a gap: the seq that is missing). */
      readonly brokenSeq: number;
      readonly problem: string;
    };

const PAGE = 1000;

/**
 * Walks the whole trail in pages and checks that seq runs 1, 2, 3 ... without gaps, that each record
 * names its predecessor's hash, and that each hash is the one its content gives. Any edit, insertion,
 * removal or reordering inside the chain shows at the first record it touches. What a chain cannot show
 * alone is the removal of the newest records; comparing `head` with a copy kept elsewhere does.
 */
export class VerifyAuditChain {
  constructor(
    private readonly auditLog: AuditLog,
    private readonly pageSize = PAGE,
  ) {}

  async execute(): Promise<AuditVerdict> {
    let previous: AuditRecord | null = null;
    let records = 0;
    for (;;) {
      const page = await this.auditLog.list({ afterSeq: previous?.seq ?? 0, limit: this.pageSize });
      if (page.length === 0) break;
      for (const record of page) {
        const expectedSeq = (previous?.seq ?? 0) + 1;
        const broken = (problem: string, brokenSeq = record.seq): AuditVerdict => ({ ok: false, records, brokenSeq, problem });
        if (record.seq !== expectedSeq) {
          return broken(`seq ${expectedSeq} is missing (the next record is seq ${record.seq})`, expectedSeq);
        }
        if (record.prevHash !== (previous?.hash ?? GENESIS_HASH)) {
          return broken(`seq ${record.seq}: prevHash does not match the hash of seq ${expectedSeq - 1}`);
        }
        if (record.hash !== auditRecordHash(record.seq, record.prevHash, record)) {
          return broken(`seq ${record.seq}: its content does not match its hash (the record was altered)`);
        }
        previous = record;
        records++;
      }
    }
    return { ok: true, records, head: previous ? { seq: previous.seq, hash: previous.hash } : null };
  }
}
