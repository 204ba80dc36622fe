import { readTypedData } from '../../domain/signing/kinds/typed-data/typed-data.input.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import { canonicalStateJson, delayMs, readState, stateHash, type GovernedState } from '../../domain/governance.js';
import type { PolicyDocument } from '../../domain/policy/policy-document.js';
import type { ChainDirectory } from '../../domain/policy/sign-intent.js';
import { decisionTypedData, policyChangeTypedData, type DecisionKind } from '../../domain/signed-decisions.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { GovernanceRecord, GovernanceStore, StoredProposal } from '../../ports/governance-store.port.js';
import type { PolicyRepository } from '../../ports/policy-repository.port.js';
import { audit, SYSTEM } from '../audit/audit-actor.js';
import { documentFromLegacy } from '../../domain/policy/legacy-policy.js';
import { isPolicyDocument, type StoredPolicy } from '../../ports/policy-repository.port.js';

/** The document a stored policy decides as: itself, or the one an earlier release's allow-lists migrate to. */
export function documentOf(stored: StoredPolicy | null, chains: ChainDirectory): PolicyDocument | null {
  if (stored === null) return null;
  return isPolicyDocument(stored) ? stored : documentFromLegacy(stored, chains);
}

/** What a vault's signatures are decided with, once read and (for a governed vault) verified. */
export interface VaultPolicyState {
  readonly document: PolicyDocument | null;
  /** The state in force and its hash; null for a vault that is not governed. */
  readonly governed: { readonly head: GovernedState; readonly headHash: string } | null;
  /** Why a governed vault's state could not be verified: every sign of it is refused while this is set. */
  readonly problem: string | null;
}

/** What the vault tells the metrics and `/readyz` about governance. */
export interface GovernanceHealth {
  /** Governed or pinned vaults whose state did not verify at their last load, with why. */
  readonly unverified: ReadonlyArray<{ readonly vault: string; readonly problem: string }>;
  /** Governed vaults the configuration does not pin (a database writer could remove their governance). */
  readonly unpinned: readonly string[];
}

export interface GovernanceVerifierDeps {
  readonly store: GovernanceStore | undefined;
  readonly policies: PolicyRepository;
  readonly payloads: { recoverTypedDataSigner(input: unknown, signature: string): string | null };
  readonly clock: Clock;
  readonly auditLog: AuditLog;
  /** VAULT_GOVERNANCE_PINS: vault id to its genesis hash, from the configuration (outside the database). */
  readonly pins: ReadonlyMap<string, string>;
  readonly chains: ChainDirectory;
}

const MAX_RECOVERED = 10_000;
/** How old the check behind recentHealth() may be: the policy cache's time (POLICY_CACHE_TTL_MS). */
const RECENT_HEALTH_MS = 5_000;

/**
 * Reads a vault's policy and, when it is governed, proves it (docs/governance.md "What is in force is
 * what was signed"): the genesis hashes to its pin; each applied state names the hash of the one before
 * it and carries PolicyChange signatures of at least M approvers of the state before it, recovered here;
 * the head the store names is the chain's end; the policy row is the head's policy. Anything else is a
 * problem that refuses every sign of the vault, recorded once per detection (`governance.unverified`).
 * On the way it applies a proposal whose quorum and delay are complete (lazily, on any instance: the
 * store's conditional update lets one win).
 */
export class GovernanceVerifier {
  /** Recovered signers by vault, proposal, document and signature: the same signature is recovered once. */
  private readonly recovered = new Map<string, string | null>();
  private readonly problems = new Map<string, string>();
  /**
   * Vaults this process has found governed. No command removes a vault's governance, so a vault of this set
   * whose governance rows are gone had them deleted in the database: refused, not read as ungoverned.
   */
  private readonly governed = new Set<string>();
  /**
   * Proposals this process has seen rejected (a valid reject cast through it, or a proposal listed as
   * rejected), by vault and id: one of them found applied had its reject row deleted in the database, so
   * the veto stands on this instance whatever the rows say. Oldest forgotten first past MAX_VETOES.
   */
  private readonly vetoed = new Set<string>();
  private readonly appliedListeners: ((vaultId: string) => void)[] = [];
  private lastCheck: { readonly at: number; readonly run: Promise<void> } | undefined;

  constructor(private readonly deps: GovernanceVerifierDeps) {}

  async load(vaultId: string): Promise<VaultPolicyState> {
    const state = await this.verify(vaultId);
    if (state.governed !== null && state.problem === null && (await this.applyEffective(vaultId, state.governed))) {
      // Whoever keeps states (PolicyCache) drops the vault's now, so no read begun before the apply is kept.
      for (const listener of this.appliedListeners) listener(vaultId);
      return this.verify(vaultId);
    }
    return state;
  }

  /** Remembers that `proposalId` was rejected (a reject vote this process recorded, or a proposal read as rejected). */
  rememberVeto(vaultId: string, proposalId: string): void {
    const key = vetoKey(vaultId, proposalId);
    if (this.vetoed.has(key)) return;
    if (this.vetoed.size >= MAX_VETOES) this.vetoed.delete(this.vetoed.values().next().value as string);
    this.vetoed.add(key);
  }

  /** Told of each proposal this process put in force, after its commit. */
  onApplied(listener: (vaultId: string) => void): void {
    this.appliedListeners.push(listener);
  }

  health(): GovernanceHealth {
    return {
      unverified: [...this.problems].map(([vault, problem]) => ({ vault, problem })),
      unpinned: [...this.governed].filter((v) => !this.deps.pins.has(v)),
    };
  }

  /** Loads every governed and every pinned vault once (at start, and for `/readyz`): health() then covers them all. */
  async checkAll(): Promise<GovernanceHealth> {
    const vaults = new Set([...(this.deps.store ? await this.deps.store.governedVaults() : []), ...this.deps.pins.keys()]);
    for (const vault of vaults) await this.load(vault);
    return this.health();
  }

  /**
   * health() after a checkAll() at most `maxAgeMs` old (default 5 s, the policy cache's time): what
   * `/readyz` and the metric report. A vault edited in the database is seen within that time even when
   * nothing signs with it; callers meanwhile share one run, so frequent probes cost one check per period.
   * A check that fails (the database away: readiness says so) reports what is known.
   */
  recentHealth(maxAgeMs = RECENT_HEALTH_MS): Promise<GovernanceHealth> {
    const now = this.deps.clock.now().getTime();
    if (this.lastCheck === undefined || now - this.lastCheck.at >= maxAgeMs || now < this.lastCheck.at) {
      this.lastCheck = { at: now, run: this.checkAll().then(() => undefined, () => undefined) };
    }
    return this.lastCheck.run.then(() => this.health());
  }

  /**
   * The address that signed this proposal's `decision` (cached: recovery is the costly part). An approve
   * is the PolicyChange(vault, proposal, documentHash); a reject is the Decision(vault, approval =
   * proposal, request = documentHash, "reject"), another message, so an approve signature (visible in the
   * votes, or intercepted) can never be replayed as a reject.
   */
  signerOf(vaultId: string, proposalId: string, documentHash: string, signature: string, decision: DecisionKind = 'approve'): string | null {
    const key = `${decision}\n${vaultId}\n${proposalId}\n${documentHash}\n${signature}`;
    if (this.recovered.has(key)) return this.recovered.get(key)!;
    let signer: string | null;
    try {
      signer = this.deps.payloads.recoverTypedDataSigner(readTypedData(proposalTypedData(vaultId, proposalId, documentHash, decision)), signature);
    } catch {
      signer = null;
    }
    if (this.recovered.size >= MAX_RECOVERED) this.recovered.delete(this.recovered.keys().next().value as string);
    this.recovered.set(key, signer);
    return signer;
  }

  /**
   * The approve votes of `proposal` that count under `before` (the state it replaces): a valid signature
   * of the proposal's own document by an approver of that state, each address once; and when the M-th
   * of them was cast (null while fewer than M).
   */
  quorumOf(proposal: StoredProposal, before: GovernedState): { approvers: string[]; completedAt: Date | null; rejectedBy: string | null } {
    const approvers: string[] = [];
    let completedAt: Date | null = null;
    let rejectedBy: string | null = null;
    const hash = stateHash(proposal.state);
    for (const vote of [...proposal.votes].sort((a, b) => a.at.getTime() - b.at.getTime())) {
      const signer = this.signerOf(proposal.vaultId, proposal.id, hash, vote.signature, vote.decision);
      // A vote counts only for the address its signature recovers to, and only when that is a current approver.
      if (signer === null || signer !== vote.address || !before.governance.approvers.includes(signer)) continue;
      if (vote.decision === 'reject') {
        rejectedBy ??= signer;
        continue;
      }
      if (approvers.includes(signer)) continue;
      approvers.push(signer);
      if (approvers.length === before.governance.required) completedAt = vote.at;
    }
    return { approvers, completedAt, rejectedBy };
  }

  private async verify(vaultId: string): Promise<VaultPolicyState> {
    const stored = await this.deps.policies.find(vaultId);
    const document = documentOf(stored, this.deps.chains);
    const record = this.deps.store ? await this.deps.store.record(vaultId) : null;
    const pin = this.deps.pins.get(vaultId);
    if (record === null) {
      if (pin === undefined && this.governed.has(vaultId)) {
        return this.settle(vaultId, { document, governed: null, problem: `this instance found vault ${vaultId} governed, and the database no longer holds its governance: its rows were deleted in the database (no command removes governance)` });
      }
      if (pin === undefined) return this.settle(vaultId, { document, governed: null, problem: null });
      return this.settle(vaultId, { document, governed: null, problem: `the configuration pins vault ${vaultId}'s governance (${pin}), and the database holds no governance for it` });
    }
    this.governed.add(vaultId);
    const checked = this.check(vaultId, record, pin, document);
    return this.settle(vaultId, { document, ...checked });
  }

  private check(vaultId: string, record: GovernanceRecord, pin: string | undefined, document: PolicyDocument | null): Omit<VaultPolicyState, 'document'> {
    const fail = (problem: string, head: GovernedState | null = null, headHash = '') => ({ governed: head === null ? null : { head, headHash }, problem });
    const genesisHash = stateHash(record.genesisState);
    if (genesisHash !== record.genesisHash) return fail(`the genesis state does not hash to the genesis hash stored beside it`);
    if (pin !== undefined && pin.toLowerCase() !== genesisHash) return fail(`the genesis state's hash ${genesisHash} is not the pinned ${pin}`);
    let head: GovernedState;
    try {
      head = readState(record.genesisState, vaultId);
      if (head.previous !== null) return fail('the genesis state names a previous state');
    } catch (error) {
      return fail(`the genesis state is unreadable (${(error as Error).message})`);
    }
    let headHash = genesisHash;
    for (const proposal of record.applied) {
      let next: GovernedState;
      try {
        next = readState(proposal.state, vaultId);
      } catch (error) {
        return fail(`applied proposal ${proposal.id} is unreadable (${(error as Error).message})`, head, headHash);
      }
      const hash = stateHash(proposal.state);
      if (hash !== proposal.documentHash) return fail(`applied proposal ${proposal.id}'s state does not hash to its documentHash`, head, headHash);
      if (next.previous !== headHash || proposal.previousHash !== headHash) return fail(`applied proposal ${proposal.id} does not follow the state before it (${headHash})`, head, headHash);
      const { approvers, rejectedBy } = this.quorumOf(proposal, head);
      // A vote is stored only while its proposal is pending, a reject closes it in the vote's own transaction,
      // and an apply marks only a pending proposal applied: an applied proposal never legitimately carries a
      // valid reject. One that does is a veto overridden in the database.
      if (rejectedBy !== null) {
        return fail(`applied proposal ${proposal.id} carries a valid reject of ${rejectedBy}, an approver of the state before it: a vetoed proposal is never in force`, head, headHash);
      }
      if (this.vetoed.has(vetoKey(vaultId, proposal.id))) {
        return fail(`applied proposal ${proposal.id} was rejected, as this instance saw: its reject was deleted in the database, and a vetoed proposal is never in force`, head, headHash);
      }
      if (approvers.length < head.governance.required) {
        return fail(`applied proposal ${proposal.id} carries ${approvers.length} valid PolicyChange signature(s) of the approvers before it, and needs ${head.governance.required}`, head, headHash);
      }
      head = next;
      headHash = hash;
    }
    if (record.headHash !== headHash) return fail(`the stored head ${record.headHash} is not the end of the signed chain (${headHash})`, head, headHash);
    if (canonicalPolicy(document) !== canonicalPolicy(head.policy)) return fail(`the policy row is not the policy of the state in force (${headHash}): it was changed outside governance`, head, headHash);
    return { governed: { head, headHash }, problem: null };
  }

  /** Records a new problem once (not per sign); a vault that verifies again forgets it. */
  private async settle(vaultId: string, state: VaultPolicyState): Promise<VaultPolicyState> {
    const known = this.problems.get(vaultId);
    if (state.problem === null) {
      this.problems.delete(vaultId);
      return state;
    }
    if (known !== state.problem) {
      this.problems.set(vaultId, state.problem);
      await audit(this.deps.auditLog, 'governance.unverified', this.deps.clock.now(), SYSTEM, vaultId, vaultId, { problem: state.problem });
    }
    return state;
  }

  /** Applies the first pending proposal whose quorum and delay are complete; true when one was applied (by this call). */
  private async applyEffective(vaultId: string, current: { head: GovernedState; headHash: string }): Promise<boolean> {
    const store = this.deps.store!;
    const now = this.deps.clock.now();
    const delay = delayMs(current.head.governance.delay);
    for (const proposal of await store.proposals(vaultId)) {
      if (proposal.status === 'rejected') this.rememberVeto(vaultId, proposal.id);
      if (proposal.status !== 'pending' || proposal.previousHash !== current.headHash) continue;
      const { approvers, completedAt, rejectedBy } = this.quorumOf(proposal, current.head);
      if (rejectedBy !== null || completedAt === null || now.getTime() < completedAt.getTime() + delay) continue;
      let next: GovernedState;
      try {
        next = readState(proposal.state, vaultId);
      } catch {
        continue;
      }
      if (stateHash(proposal.state) !== proposal.documentHash || next.previous !== current.headHash) continue;
      const event = {
        action: 'governance.applied' as const,
        at: now,
        actor: SYSTEM,
        vaultId,
        subject: proposal.id,
        details: { documentHash: proposal.documentHash, previous: current.headHash, approvers: approvers.join(',') },
      };
      return store.apply(vaultId, proposal.id, current.headHash, proposal.documentHash, next.policy, now, event);
    }
    return false;
  }
}

/** Rejected proposals remembered at most (each a few dozen bytes). */
const MAX_VETOES = 10_000;
const vetoKey = (vaultId: string, proposalId: string) => `${vaultId}\n${proposalId}`;

/** The policy as compared with the state's: canonical JSON, an empty uniq map the same as none (the row keeps pins apart). */
function canonicalPolicy(policy: PolicyDocument | null): string {
  if (policy === null) return 'null';
  const { uniqs, ...rest } = policy;
  return canonicalStateJson(uniqs !== undefined && Object.keys(uniqs).length > 0 ? { ...rest, uniqs } : rest);
}

/** What an approver signs to approve (PolicyChange) or reject (Decision, `reject`) a proposal (docs/governance.md). */
export function proposalTypedData(vaultId: string, proposalId: string, documentHash: string, decision: DecisionKind) {
  return decision === 'approve' ? policyChangeTypedData(vaultId, proposalId, documentHash) : decisionTypedData(vaultId, proposalId, documentHash, 'reject');
}

/** The refusal of every sign of a vault whose governance did not verify. */
export function governanceUnverified(vaultId: string, problem: string): DomainError {
  return new DomainError(ErrorCode.GOVERNANCE_UNVERIFIED, `vault ${vaultId}'s governance does not verify, so it signs nothing: ${problem}`);
}
