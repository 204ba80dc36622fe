import type { PolicyDocument } from '../domain/policy/policy-document.js';
import type { AuditEvent } from './audit-log.port.js';

export type ProposalStatus = 'pending' | 'applied' | 'rejected' | 'superseded';

/** One signed vote on a proposal, as stored: the vault recovers its signer again whenever it counts it. */
export interface StoredVote {
  /** The address the vote was recovered to when it was cast (EIP-55); re-checked at every count. */
  readonly address: string;
  readonly decision: 'approve' | 'reject';
  readonly signature: string;
  readonly at: Date;
}

export interface StoredProposal {
  readonly id: string;
  readonly vaultId: string;
  /** The proposed state's canonical JSON, as hashed. */
  readonly state: string;
  readonly documentHash: string;
  readonly previousHash: string;
  readonly creator: string;
  readonly created: Date;
  readonly status: ProposalStatus;
  /** When it was applied, rejected or superseded. */
  readonly decided: Date | null;
  readonly votes: readonly StoredVote[];
}

/** A vault's governance as stored: nothing here is trusted until the chain is verified (governed-policies.ts). */
export interface GovernanceRecord {
  readonly genesisState: string;
  readonly genesisHash: string;
  /** The hash of the state last applied, as the store says. */
  readonly headHash: string;
  /** The proposals marked applied, in the order they were applied. */
  readonly applied: readonly StoredProposal[];
}

export interface FreezeCount {
  /** Freeze rows of the vault. */
  readonly frozen: number;
  /** Of them, those an ungoverned vault's `unfreeze` lifted (a governed vault counts its state's liftedFreezes instead). */
  readonly lifted: number;
}

/**
 * Governed vaults (docs/governance.md): the genesis state, proposals and their signed votes, freezes.
 * Every write that changes what is in force (genesis, apply) writes the policy row in the same
 * transaction, with its audit record.
 */
export interface GovernanceStore {
  /** The vault's governance, or null when it is not governed. */
  record(vaultId: string): Promise<GovernanceRecord | null>;
  /** Every vault with a governance row. */
  governedVaults(): Promise<string[]>;
  /** Makes the vault governed with `state` (policy row set to its policy), once: false when it already was. */
  createGenesis(vaultId: string, state: string, hash: string, policy: PolicyDocument | null, now: Date, event: AuditEvent): Promise<boolean>;
  addProposal(p: Omit<StoredProposal, 'status' | 'decided' | 'votes'>, event: AuditEvent): Promise<void>;
  proposals(vaultId: string): Promise<StoredProposal[]>;
  proposal(vaultId: string, id: string): Promise<StoredProposal | null>;
  /**
   * Adds a vote on a pending proposal: false when that address already voted on it or it is not pending.
   * A reject closes the proposal (status rejected) in the same transaction.
   */
  addVote(vaultId: string, proposalId: string, vote: StoredVote, event: AuditEvent): Promise<boolean>;
  /**
   * Puts a pending proposal in force: only while the head is still `previousHash` (a conditional update,
   * so of two instances applying at once one does, the other changes nothing); the policy row is set to
   * `policy`, pending proposals built on the old head are marked superseded. False when it changed nothing.
   */
  apply(vaultId: string, proposalId: string, previousHash: string, newHash: string, policy: PolicyDocument | null, now: Date, event: AuditEvent): Promise<boolean>;
  /** Appends a freeze row; resolves with the vault's freeze count after it. */
  freeze(vaultId: string, id: string, reason: string | null, actor: string, now: Date, event: AuditEvent): Promise<number>;
  /**
   * One indexed count, as committed now. With `remembered`, a count read earlier may answer (PostgreSQL
   * keeps one a few seconds): for the sign path's first check only, which the record's FreezeFence backs.
   */
  freezes(vaultId: string, options?: { readonly remembered?: boolean }): Promise<FreezeCount>;
  /** Marks every freeze row lifted (an ungoverned vault's `unfreeze`); resolves with how many it lifted. */
  liftFreezes(vaultId: string, now: Date, event: AuditEvent): Promise<number>;
}
