import { prepareAuditEvent } from '../../../src/domain/audit-chain.js';
import type { PolicyDocument } from '../../../src/domain/policy/policy-document.js';
import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { FreezeCount, GovernanceRecord, GovernanceStore, ProposalStatus, StoredProposal, StoredVote } from '../../../src/ports/governance-store.port.js';
import { countFreezes, freezesKey } from './freeze-counts.js';
import { rowPlaceholders } from './rows.js';
import type { SqlDatabase, SqlSession } from './sql-database.js';
import { writePolicyRow } from './sql.policy-repository.js';

interface ProposalRow {
  id: string;
  vault_id: string;
  state: string;
  document_hash: string;
  previous_hash: string;
  creator: string;
  created: unknown;
  status: ProposalStatus;
  decided: unknown;
}
interface VoteRow {
  proposal_id: string;
  address: string;
  decision: 'approve' | 'reject';
  signature: string;
  created: unknown;
}

const PROPOSAL_COLUMNS = 'id, vault_id, state, document_hash, previous_hash, creator, created, status, decided';
const COUNT = 'CAST(count(*) AS INTEGER)';

/** The governance tables (migration "governance"): vault_governance, governance_proposals, governance_votes, vault_freezes. */
export class SqlGovernanceStore implements GovernanceStore {
  constructor(private readonly db: SqlDatabase) {}

  async record(vaultId: string): Promise<GovernanceRecord | null> {
    const [row] = await this.db.all<{ genesis_state: string; genesis_hash: string; head_hash: string }>(
      'SELECT genesis_state, genesis_hash, head_hash FROM vault_governance WHERE vault_id = $1',
      [vaultId],
    );
    if (!row) return null;
    const applied = await this.withVotes(
      await this.db.all<ProposalRow>(`SELECT ${PROPOSAL_COLUMNS} FROM governance_proposals WHERE vault_id = $1 AND status = 'applied' ORDER BY applied_seq, id`, [vaultId]),
    );
    return { genesisState: row.genesis_state, genesisHash: row.genesis_hash, headHash: row.head_hash, applied };
  }

  async governedVaults(): Promise<string[]> {
    return (await this.db.all<{ vault_id: string }>('SELECT vault_id FROM vault_governance ORDER BY vault_id')).map((r) => r.vault_id);
  }

  createGenesis(vaultId: string, state: string, hash: string, policy: PolicyDocument | null, now: Date, event: AuditEvent): Promise<boolean> {
    const prepared = prepareAuditEvent(event);
    return this.db.auditedTransaction(async (tx, audit) => {
      const n = await tx.run(
        `INSERT INTO vault_governance (vault_id, genesis_state, genesis_hash, head_hash, created) VALUES ($1, $2, $3, $3, $4) ON CONFLICT (vault_id) DO NOTHING`,
        [vaultId, state, hash, now],
      );
      if (n === 0) return false;
      await writePolicyRow(tx, vaultId, policy, now);
      audit(prepared);
      return true;
    });
  }

  async addProposal(p: Omit<StoredProposal, 'status' | 'decided' | 'votes'>, event: AuditEvent): Promise<void> {
    const prepared = prepareAuditEvent(event);
    await this.db.auditedTransaction(async (tx, audit) => {
      await tx.run(
        `INSERT INTO governance_proposals (id, vault_id, state, document_hash, previous_hash, creator, created, status) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending')`,
        [p.id, p.vaultId, p.state, p.documentHash, p.previousHash, p.creator, p.created],
      );
      audit(prepared);
    });
  }

  async proposals(vaultId: string): Promise<StoredProposal[]> {
    return this.withVotes(await this.db.all<ProposalRow>(`SELECT ${PROPOSAL_COLUMNS} FROM governance_proposals WHERE vault_id = $1 ORDER BY created, id`, [vaultId]));
  }

  async proposal(vaultId: string, id: string): Promise<StoredProposal | null> {
    const rows = await this.db.all<ProposalRow>(`SELECT ${PROPOSAL_COLUMNS} FROM governance_proposals WHERE vault_id = $1 AND id = $2`, [vaultId, id]);
    return (await this.withVotes(rows))[0] ?? null;
  }

  addVote(vaultId: string, proposalId: string, vote: StoredVote, event: AuditEvent): Promise<boolean> {
    const prepared = prepareAuditEvent(event);
    return this.db.auditedTransaction(async (tx, audit) => {
      // The status is read and the vote written in one transaction; the primary key keeps one vote per address.
      const open = await tx.run(`UPDATE governance_proposals SET status = status WHERE vault_id = $1 AND id = $2 AND status = 'pending'`, [vaultId, proposalId]);
      if (open === 0) return false;
      const n = await tx.run(
        'INSERT INTO governance_votes (proposal_id, address, decision, signature, created) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
        [proposalId, vote.address, vote.decision, vote.signature, vote.at],
      );
      if (n === 0) return false;
      if (vote.decision === 'reject') {
        await tx.run(`UPDATE governance_proposals SET status = 'rejected', decided = $3 WHERE vault_id = $1 AND id = $2`, [vaultId, proposalId, vote.at]);
      }
      audit(prepared);
      return true;
    });
  }

  apply(vaultId: string, proposalId: string, previousHash: string, newHash: string, policy: PolicyDocument | null, now: Date, event: AuditEvent): Promise<boolean> {
    const prepared = prepareAuditEvent(event);
    return this.db.auditedTransaction(async (tx, audit) => {
      // The head moves only from the state this proposal replaces: of two instances applying, one does.
      const moved = await tx.run('UPDATE vault_governance SET head_hash = $3 WHERE vault_id = $1 AND head_hash = $2', [vaultId, previousHash, newHash]);
      if (moved === 0) return false;
      const [seq] = await tx.all<{ n: number }>(`SELECT ${COUNT} AS n FROM governance_proposals WHERE vault_id = $1 AND status = 'applied'`, [vaultId]);
      const marked = await tx.run(
        `UPDATE governance_proposals SET status = 'applied', decided = $3, applied_seq = $4 WHERE vault_id = $1 AND id = $2 AND status = 'pending'`,
        [vaultId, proposalId, now, Number(seq?.n ?? 0) + 1],
      );
      if (marked === 0) throw new Error(`proposal ${proposalId} is no longer pending`);
      await tx.run(`UPDATE governance_proposals SET status = 'superseded', decided = $3 WHERE vault_id = $1 AND status = 'pending' AND previous_hash <> $2`, [vaultId, newHash, now]);
      await writePolicyRow(tx, vaultId, policy, now);
      audit(prepared);
      return true;
    });
  }

  async freeze(vaultId: string, id: string, reason: string | null, actor: string, now: Date, event: AuditEvent): Promise<number> {
    const prepared = prepareAuditEvent(event);
    return this.db.auditedTransaction(async (tx, audit) => {
      await tx.run('INSERT INTO vault_freezes (id, vault_id, reason, actor, created) VALUES ($1, $2, $3, $4, $5)', [id, vaultId, reason, actor, now]);
      audit(prepared);
      return (await countFreezes(tx, vaultId)).frozen;
    }).finally(() => this.db.guardedReads?.forget());
  }

  /**
   * Read by every sign: from the database's guarded reads where it has them (a freeze committed by another
   * connection moves SQLite's data version; PostgreSQL shares a turn's reads, and keeps one for `remembered`
   * readers a few seconds), else counted each time.
   */
  freezes(vaultId: string, options: { readonly remembered?: boolean } = {}): Promise<FreezeCount> {
    const reads = this.db.guardedReads;
    const load = () => countFreezes(this.db, vaultId);
    return reads ? reads.read(freezesKey(vaultId), load, options.remembered === true) : load();
  }

  liftFreezes(vaultId: string, now: Date, event: AuditEvent): Promise<number> {
    const prepared = prepareAuditEvent(event);
    return this.db.auditedTransaction(async (tx, audit) => {
      const n = await tx.run('UPDATE vault_freezes SET lifted = $2 WHERE vault_id = $1 AND lifted IS NULL', [vaultId, now]);
      if (n > 0) audit(prepared);
      return n;
    }).finally(() => this.db.guardedReads?.forget());
  }

  private async withVotes(rows: ProposalRow[]): Promise<StoredProposal[]> {
    if (rows.length === 0) return [];
    const votes = await this.db.all<VoteRow>(
      `SELECT proposal_id, address, decision, signature, created FROM governance_votes WHERE proposal_id IN ${rowPlaceholders(1, rows.length)} ORDER BY created, address`,
      rows.map((r) => r.id),
    );
    const instant = (v: unknown) => this.db.instant(v);
    return rows.map((r) => ({
      id: r.id,
      vaultId: r.vault_id,
      state: r.state,
      documentHash: r.document_hash,
      previousHash: r.previous_hash,
      creator: r.creator,
      created: instant(r.created),
      status: r.status,
      decided: r.decided === null || r.decided === undefined ? null : instant(r.decided),
      votes: votes.filter((v) => v.proposal_id === r.id).map((v) => ({ address: v.address, decision: v.decision, signature: v.signature, at: instant(v.created) })),
    }));
  }
}
