import { prepareAuditEvent } from '../../../src/domain/audit-chain.js';
import type { Approval, ApprovalBlock, ApprovalBlockReason, ApprovalStatus, ApprovalVote } from '../../../src/domain/approval.js';
import type { ApprovalPage, ApprovalStore, CountedVote, NewApproval, VoteOutcome } from '../../../src/ports/approval-store.port.js';
import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { FreezeFence } from '../../../src/ports/freeze-fence.js';
import type { SignatureRecord } from '../../../src/ports/signature-log.port.js';
import { AS_IS, FOUND_BY_SUBJECT, INSTANT, NUMBER, rowPlaceholders, signatureValues, SIGNATURES, Table } from './rows.js';
import type { SqlDatabase, SqlSession } from './sql-database.js';

const APPROVALS = new Table<Omit<Approval, 'votes' | 'approvals' | 'blockedBy'>>('approvals', {
  id: AS_IS, vaultId: AS_IS, status: AS_IS, ruleId: AS_IS, required: NUMBER, group: ['approver_group', AS_IS],
  requester: AS_IS, request: AS_IS, requestHash: AS_IS, idempotencyKey: AS_IS, chain: AS_IS, contract: AS_IS, sender: AS_IS, selector: AS_IS,
  functionSignature: AS_IS, created: INSTANT, expires: INSTANT, decided: INSTANT, result: AS_IS, simulation: AS_IS, seal: AS_IS,
});
/** Why the last release attempt signed nothing (ApprovalBlock), in the columns the abandon writes; null reason: nothing. */
const BLOCKED = 'blocked_by, blocked_code, blocked_message, blocked_at';
const VOTES = new Table<ApprovalVote>('approval_votes', { apiKeyId: AS_IS, vote: AS_IS, at: INSTANT, signature: AS_IS });

const INSERT = `INSERT INTO approvals (id, vault_id, status, rule_id, required, approver_group, approvals, requester, request, request_hash, idempotency_key,
  chain, contract, sender, selector, function_signature, created, expires, simulation, seal)
  VALUES ($1, $2, 'pending', $3, $4, $5, 0, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
  ON CONFLICT DO NOTHING`;
/**
 * The approve votes that count, over the key set as it is now, not as it was at the vote: of keys of the
 * vault still unrevoked, still holding approver, and of the rule's group when it names one. A key revoked
 * after voting counts for nothing. Any revocation time counts (not only a past one): one instance's clock
 * ahead of another's must not keep a revoked key's vote. The `approvals` column (votes as cast) is not read.
 */
const COUNTS = `v.approval_id = approvals.id AND v.vote = 'approve' AND k.vault_id = approvals.vault_id AND k.revoked IS NULL
  AND ',' || k.roles || ',' LIKE '%,approver,%' AND (approvals.approver_group IS NULL OR k.approver_group = approvals.approver_group)`;
/**
 * Counted per approver, not per key: the votes of keys with one approver address count once (a key without
 * one, a passkey's, is its own approver: each passkey belongs to one key). The release counts again from
 * the verified credentials (VoteOnApproval); this count is the one reads report and the claim's first bar.
 */
const COUNTED = `(SELECT count(DISTINCT COALESCE(lower(k.approver_address), k.id)) FROM approval_votes v JOIN api_keys k ON k.id = v.api_key_id WHERE ${COUNTS})`;
/** The votes COUNTED counts, each with its signature and its key's credential and group as they are now: what the release verifies. */
const COUNTED_VOTES = `SELECT v.api_key_id, v.signature, k.approver_address, k.approver_group FROM approval_votes v
  JOIN api_keys k ON k.id = v.api_key_id JOIN approvals ON approvals.id = v.approval_id
  WHERE approvals.vault_id = $1 AND approvals.id = $2 AND ${COUNTS} ORDER BY v.at, v.api_key_id`;
const SELECT = `SELECT ${APPROVALS.columns}, ${BLOCKED}, ${COUNTED} AS counted FROM approvals`;
const BY_ID = `${SELECT} WHERE vault_id = $1 AND id = $2`;
const BY_KEY = `${SELECT} WHERE vault_id = $1 AND idempotency_key = $2`;
const VOTES_OF = (n: number) => `SELECT approval_id, ${VOTES.columns} FROM approval_votes WHERE approval_id IN ${rowPlaceholders(1, n)} ORDER BY at, api_key_id`;
// What each status filter means at `now` ($2, given only where used: PostgreSQL types every parameter):
// pending turns expired at its expiry, marked or not.
const FILTERS: Record<ApprovalStatus | 'any', { readonly sql: string; readonly atNow: boolean }> = {
  any: { sql: 'TRUE', atNow: false },
  pending: { sql: "status = 'pending' AND expires > $2", atNow: true },
  expired: { sql: "(status = 'expired' OR (status = 'pending' AND expires <= $2))", atNow: true },
  approved: { sql: "status = 'approved'", atNow: false },
  rejected: { sql: "status = 'rejected'", atNow: false },
};
const VOTE = 'INSERT INTO approval_votes (approval_id, api_key_id, vote, at, signature) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING';
// Counted only while pending and unexpired: re-checked here, under the row's lock, whatever was read before.
const COUNT_VOTE = `UPDATE approvals SET approvals = approvals + $3,
  status = CASE WHEN CAST($4 AS TEXT) = 'reject' THEN 'rejected' ELSE status END,
  decided = CASE WHEN CAST($4 AS TEXT) = 'reject' THEN $5 ELSE decided END
  WHERE vault_id = $1 AND id = $2 AND status = 'pending' AND expires > $5`;
/**
 * Never decided: every end of an approval (approved, rejected, expired) writes its approval.decided record
 * in the transaction that decides it, so one on record means the row was decided, whatever its status
 * says now. A status a database writer sets back to pending (result and votes kept) releases nothing a
 * second time: without this a Sign call would get a second signature with a fresh nonce, a second valid
 * submission. The writer would have to remove the record as well, which breaks the audit chain (`audit
 * verify`, checkpoints). Through the (vault_id, subject) index: FOUND_BY_SUBJECT as written there.
 */
const NEVER_DECIDED = `NOT EXISTS (SELECT 1 FROM audit_log d WHERE d.vault_id = approvals.vault_id AND d.subject = approvals.id
  AND d.action = 'approval.decided' AND ${FOUND_BY_SUBJECT})`;
// The quorum is counted in the statement that claims (and again in the one that records the release), so
// a key revoked before either commits is not counted, whatever the caller read before.
const CLAIM = `UPDATE approvals SET release_token = $3, release_until = $5
  WHERE vault_id = $1 AND id = $2 AND status = 'pending' AND expires > $4 AND ${COUNTED} >= required
  AND (release_token IS NULL OR release_until <= $4) AND ${NEVER_DECIDED}`;
const ABANDON = 'UPDATE approvals SET release_token = NULL, release_until = NULL WHERE vault_id = $1 AND id = $2 AND release_token = $3';
// The same write, with why: the refusal is on the row exactly when the claim is given back for it.
const ABANDON_BLOCKED = `UPDATE approvals SET release_token = NULL, release_until = NULL,
  blocked_by = $4, blocked_code = $5, blocked_message = $6, blocked_at = $7 WHERE vault_id = $1 AND id = $2 AND release_token = $3`;
const APPROVE = `UPDATE approvals SET status = 'approved', decided = $4, result = $5, release_token = NULL, release_until = NULL,
  blocked_by = NULL, blocked_code = NULL, blocked_message = NULL, blocked_at = NULL
  WHERE vault_id = $1 AND id = $2 AND release_token = $3 AND status = 'pending' AND expires > $4 AND ${COUNTED} >= required AND ${NEVER_DECIDED}`;
const DUE = `${SELECT} WHERE status = 'pending' AND expires <= $1 AND (release_token IS NULL OR release_until <= $1)
  ORDER BY expires LIMIT $2`;
const MARK_EXPIRED = `UPDATE approvals SET status = 'expired', decided = expires, release_token = NULL, release_until = NULL
  WHERE vault_id = $1 AND id = $2 AND status = 'pending' AND expires <= $3 AND (release_token IS NULL OR release_until <= $3)`;

/** Approvals over the SQL seam, for both dialects; every change with its audit records in one transaction. */
export class SqlApprovalStore implements ApprovalStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(a: NewApproval, requested: AuditEvent): Promise<Approval | null> {
    const event = prepareAuditEvent(requested);
    const inserted = await this.db.auditedTransaction(async (tx, audit) => {
      const n = await tx.run(INSERT, [
        a.id, a.vaultId, a.ruleId, a.required, a.group, a.requester, a.request, a.requestHash, a.idempotencyKey,
        a.chain, a.contract, a.sender, a.selector, a.functionSignature, a.created, a.expires, a.simulation ?? null, a.seal ?? null,
      ]);
      if (n === 1) audit(event);
      return n === 1;
    });
    return inserted ? { ...a, simulation: a.simulation ?? null, seal: a.seal ?? null, status: 'pending', approvals: 0, decided: null, votes: [], result: null, blockedBy: null } : null;
  }

  find(vaultId: string, id: string): Promise<Approval | null> {
    return this.one(this.db, BY_ID, [vaultId, id]);
  }

  findByIdempotencyKey(vaultId: string, key: string): Promise<Approval | null> {
    return this.one(this.db, BY_KEY, [vaultId, key]);
  }

  async list(vaultId: string, q: { status?: ApprovalStatus; now: Date; offset: number; count: number }): Promise<ApprovalPage> {
    const filter = FILTERS[q.status ?? 'any'];
    const where = `vault_id = $1 AND ${filter.sql}`;
    const params: unknown[] = filter.atNow ? [vaultId, q.now] : [vaultId];
    const [total] = await this.db.all<{ n: number | string }>(`SELECT count(*) AS n FROM approvals WHERE ${where}`, params);
    const n = params.length;
    const rows = await this.db.all<object>(`${SELECT} WHERE ${where} ORDER BY created, id LIMIT $${n + 1} OFFSET $${n + 2}`, [
      ...params,
      q.count,
      q.offset,
    ]);
    return { count: Number(total?.n ?? 0), page: await this.withVotes(this.db, rows) };
  }

  async vote(vaultId: string, id: string, vote: ApprovalVote, events: (approval: Approval) => AuditEvent[]): Promise<VoteOutcome> {
    try {
      return await this.db.auditedTransaction(async (tx, audit) => {
        if ((await tx.run(VOTE, [id, vote.apiKeyId, vote.vote, vote.at, vote.signature ?? null])) === 0) throw new Refused({ kind: 'already-voted' });
        const counted = await tx.run(COUNT_VOTE, [vaultId, id, vote.vote === 'approve' ? 1 : 0, vote.vote, vote.at]);
        if (counted === 0) throw new Refused({ kind: 'closed' });
        const approval = (await this.one(tx, BY_ID, [vaultId, id]))!;
        for (const event of events(approval)) audit(prepareAuditEvent(event));
        return { kind: 'recorded', approval } as const;
      });
    } catch (error) {
      // Thrown inside, so the transaction rolled back: the vote row of a closed approval is not kept.
      if (error instanceof Refused) return error.outcome;
      throw error;
    }
  }

  async countedVotes(vaultId: string, id: string): Promise<CountedVote[]> {
    const rows = await this.db.all<{ api_key_id: string; signature: string | null; approver_address: string | null; approver_group: string | null }>(COUNTED_VOTES, [vaultId, id]);
    return rows.map((r) => ({ apiKeyId: r.api_key_id, signature: r.signature, approverAddress: r.approver_address, group: r.approver_group ?? null }));
  }

  async claimRelease(vaultId: string, id: string, token: string, now: Date, leaseUntil: Date): Promise<boolean> {
    return (await this.db.run(CLAIM, [vaultId, id, token, now, leaseUntil])) === 1;
  }

  async abandonRelease(vaultId: string, id: string, token: string, blocked?: ApprovalBlock): Promise<void> {
    if (blocked === undefined) await this.db.run(ABANDON, [vaultId, id, token]);
    else await this.db.run(ABANDON_BLOCKED, [vaultId, id, token, blocked.reason, blocked.code, blocked.message, blocked.at]);
  }

  release(vaultId: string, id: string, token: string, now: Date, s: SignatureRecord | null, result: string, events: readonly AuditEvent[], fence?: FreezeFence | null): Promise<boolean> {
    const prepared = events.map(prepareAuditEvent);
    return this.db.auditedTransaction(async (tx, audit) => {
      if ((await tx.run(APPROVE, [vaultId, id, token, now, result])) === 0) return false;
      if (s !== null) await tx.run(SIGNATURES.insert, signatureValues(s));
      prepared.forEach(audit);
      return true;
    }, fence);
  }

  async expire(now: Date, limit: number, decided: (approval: Approval) => AuditEvent): Promise<Approval[]> {
    const due = await this.withVotes(this.db, await this.db.all<object>(DUE, [now, limit]));
    const expired: Approval[] = [];
    // One transaction each: an approval voted or claimed meanwhile is left as it is (the update's condition).
    for (const approval of due) {
      const marked = await this.db.auditedTransaction(async (tx, audit) => {
        if ((await tx.run(MARK_EXPIRED, [approval.vaultId, approval.id, now])) === 0) return null;
        const done: Approval = { ...approval, status: 'expired', decided: approval.expires };
        audit(prepareAuditEvent(decided(done)));
        return done;
      });
      if (marked) expired.push(marked);
    }
    return expired;
  }

  private async one(session: SqlSession, sql: string, params: unknown[]): Promise<Approval | null> {
    const rows = await session.all<object>(sql, params);
    return rows.length === 0 ? null : (await this.withVotes(session, rows))[0]!;
  }

  private async withVotes(session: SqlSession, rows: object[]): Promise<Approval[]> {
    if (rows.length === 0) return [];
    const approvals = rows.map((r) => ({ ...APPROVALS.read(r, this.db.instant), blockedBy: this.readBlock(r), approvals: Number((r as { counted: number | string }).counted) }));
    const votes = await session.all<{ approval_id: string }>(VOTES_OF(rows.length), approvals.map((a) => a.id));
    return approvals.map((a) => ({ ...a, votes: votes.filter((v) => v.approval_id === a.id).map(this.readVote) }));
  }

  /** The row's ApprovalBlock, or null when no refused release is on it. */
  private readBlock(row: object): ApprovalBlock | null {
    const r = row as { blocked_by: string | null; blocked_code: string | null; blocked_message: string | null; blocked_at: unknown };
    if (r.blocked_by === null || r.blocked_by === undefined) return null;
    return { reason: r.blocked_by as ApprovalBlockReason, code: r.blocked_code ?? '', message: r.blocked_message ?? '', at: this.db.instant(r.blocked_at as never) };
  }

  /** A vote as stored; `signature` only when it has one (a vote of a key without credential has none). */
  private readonly readVote = (row: object): ApprovalVote => {
    const { signature, ...vote } = VOTES.read(row, this.db.instant);
    return signature ? { ...vote, signature } : vote;
  }
}

class Refused extends Error {
  constructor(readonly outcome: VoteOutcome) {
    super(outcome.kind);
  }
}
