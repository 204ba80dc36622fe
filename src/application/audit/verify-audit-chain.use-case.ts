import { auditRecordHash, GENESIS_HASH, type ChainHead } from '../../domain/audit-chain.js';
import type { AuditLog, AuditRecord } from '../../ports/audit-log.port.js';

export type AuditVerdict =
  | {
      readonly ok: true;
      /** Records checked: the whole chain (from `from` on, when given). */
      readonly records: number;
      /** The last record; keep its seq and hash elsewhere (a signed checkpoint) to detect a later truncation of the tail. */
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

export interface VerifyOptions {
  /**
   * A head known to be good (a signed checkpoint's): the chain must still reach it, the record at its
   * seq with its hash. Records removed from the end down to or below it are found, and a chain
   * rewritten up to it, which no link alone betrays, is refused at its seq.
   */
  readonly checkpoint?: ChainHead;
  /**
   * A head this process verified before: the walk starts there (its record must still have that hash)
   * rather than at seq 1. What lies before it is not read again.
   */
  readonly from?: ChainHead;
  /** Told of each record checked, in order (the checkpoint job looks for its last checkpoint this way). */
  readonly onRecord?: (record: AuditRecord) => void;
}

const PAGE = 1000;

/**
 * Walks the whole trail in pages and checks that seq runs 1, 2, 3 ... without gaps, that each record
 * names its predecessor's hash, and that each hash is the one its content gives. Any edit, insertion,
 * removal or reordering inside the chain shows at the first record it touches. What a chain cannot show
 * alone is the removal of the newest records; a signed checkpoint of an earlier head (`checkpoint`) does.
 */
export class VerifyAuditChain {
  constructor(
    private readonly auditLog: AuditLog,
    private readonly pageSize = PAGE,
  ) {}

  async execute(options: VerifyOptions = {}): Promise<AuditVerdict> {
    const { checkpoint, from, onRecord } = options;
    let previous: ChainHead | null = null;
    let records = 0;
    if (from && from.seq > 0) {
      const [first] = await this.auditLog.list({ afterSeq: from.seq - 1, limit: 1 });
      if (!first || first.seq !== from.seq) return { ok: false, records, brokenSeq: from.seq, problem: `seq ${from.seq} is missing (it was verified before)` };
      if (first.hash !== from.hash || first.hash !== auditRecordHash(first.seq, first.prevHash, first)) {
        return { ok: false, records, brokenSeq: from.seq, problem: `seq ${from.seq}: altered since it was verified` };
      }
      previous = from;
    }
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
        if (checkpoint && record.seq === checkpoint.seq && record.hash !== checkpoint.hash) {
          return broken(`seq ${record.seq}: its hash is not the checkpoint's (the chain up to it was rewritten)`);
        }
        previous = { seq: record.seq, hash: record.hash };
        records++;
        onRecord?.(record);
      }
    }
    const end = previous?.seq ?? 0;
    if (checkpoint && end < checkpoint.seq) {
      return {
        ok: false,
        records,
        brokenSeq: end + 1,
        problem: `seq ${end + 1} is missing: the checkpoint covers up to seq ${checkpoint.seq}, the chain ends at ${end === 0 ? 'no record' : `seq ${end}`} (records were removed from its end)`,
      };
    }
    return { ok: true, records, head: previous ? { seq: previous.seq, hash: previous.hash } : null };
  }
}
