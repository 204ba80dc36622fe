import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import {
  byId,
  canonicalStateJson,
  delayMs,
  diffStates,
  governedApiKey,
  governedWebhook,
  GOVERNED_STATE_VERSION,
  parseGovernanceSettings,
  readState,
  stateHash,
  withSecretHashes,
  type GovernanceSettings,
  type GovernedExport,
  type GovernedState,
  type StateDiff,
} from '../../domain/governance.js';
import type { PolicyDocument } from '../../domain/policy/policy-document.js';
import { decisionTypedData, policyChangeTypedData } from '../../domain/signed-decisions.js';
import type { ApiKeyStore } from '../../ports/api-key-store.port.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { GovernanceStore, ProposalStatus, StoredProposal } from '../../ports/governance-store.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import type { WebhookOutbox } from '../../ports/webhook-outbox.port.js';
import { auditEvent } from '../audit/audit-actor.js';
import { governanceUnverified, type GovernanceVerifier } from './governance-verifier.js';
import type { PolicyCache } from '../signing/policy-cache.js';
import { requireVault } from '../wallets/wallet-lookup.js';
import type { ExportGovernance } from '../keys/export-key.use-case.js';

/** A proposal as shown (HTTP, client, CLI): what it changes, who signed, when it takes effect, what to sign. */
export interface ProposalView {
  readonly id: string;
  readonly vault: string;
  readonly documentHash: string;
  readonly previous: string;
  /** pending, applied, rejected, or superseded (a pending one built on a state no longer in force reads superseded). */
  readonly status: ProposalStatus;
  readonly creator: string;
  readonly created: Date;
  readonly decided: Date | null;
  /** The current approvers whose valid signatures it carries. */
  readonly approvals: readonly string[];
  readonly required: number;
  /** When its quorum was complete and its delay passes (null while short of signatures). */
  readonly effectiveAt: Date | null;
  readonly rejectedBy: string | null;
  readonly diff: StateDiff;
  readonly state: GovernedState;
  /** The EIP-712 PolicyChange an approver signs to approve it (ethers' and viem's signTypedData, eth_signTypedData_v4). */
  readonly typedData: ReturnType<typeof policyChangeTypedData>;
  /** The EIP-712 Decision (`approval` the proposal id, `request` its documentHash, `decision` reject) an approver signs to reject it. */
  readonly rejectTypedData: ReturnType<typeof decisionTypedData>;
}

/** `governance show`: the state in force, its hash, and the pin the configuration should hold. */
export interface GovernanceView {
  readonly vault: string;
  readonly governed: boolean;
  readonly state: GovernedState | null;
  readonly hash: string | null;
  readonly genesisHash: string | null;
  /** The configuration line that pins this vault's genesis. */
  readonly pin: string | null;
  readonly pinned: boolean;
  readonly frozen: { readonly freezes: number; readonly lifted: number };
  readonly problem: string | null;
}

export type GovernanceSetResult =
  | { readonly genesis: { readonly hash: string; readonly pin: string; readonly state: GovernedState }; readonly warnings: readonly string[] }
  | { readonly proposal: { readonly id: string; readonly documentHash: string }; readonly warnings: readonly string[] };

export interface GovernanceDeps {
  readonly vaults: VaultStore;
  readonly store: GovernanceStore | undefined;
  readonly verifier: GovernanceVerifier;
  readonly cache: PolicyCache;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly auditLog: AuditLog;
  readonly pins: ReadonlyMap<string, string>;
  /** Where the genesis reads the vault's API keys and webhook endpoints (absent: the state governs neither). */
  readonly apiKeys?: ApiKeyStore;
  readonly webhooks?: WebhookOutbox;
  /** The passkeys of the vault's console approvers (absent: no console tables), which the genesis lists with their keys. */
  readonly passkeys?: (vaultId: string) => Promise<readonly { readonly apiKeyId: string; readonly credentialId: string; readonly publicKey: string }[]>;
}

/** What a change of a governed vault's keys or webhooks answers besides its result: the proposal it made, if any. */
export interface MadeProposal {
  readonly proposal?: { readonly id: string; readonly documentHash: string };
}

/** The parts of a state held as lists of entries by id: API keys and webhook endpoints. */
export type GovernedEntries = 'apiKeys' | 'webhooks';
type EntriesOf<K extends GovernedEntries> = NonNullable<GovernedState[K]>;

/**
 * What ManageVaults and ManageWebhooks ask of governance: whether the vault's state in force governs
 * their part, and a change of it as a proposal.
 */
export interface EntriesProposer {
  /** The entries of the verified state in force, or null: the vault is not governed, or its state does not govern them. */
  governedEntries<K extends GovernedEntries>(vaultId: string, part: K): Promise<EntriesOf<K> | null>;
  /** A proposal of the state in force with `part` edited; null when the state does not govern it. */
  proposeEntries<K extends GovernedEntries>(vaultId: string, part: K, edit: (entries: EntriesOf<K>) => EntriesOf<K>, actor: string): Promise<{ id: string; documentHash: string } | null>;
}

export const pinLine = (vaultId: string, hash: string) => `VAULT_GOVERNANCE_PINS=${vaultId}:${hash}`;

/**
 * Governance of a vault's changes (docs/governance.md): `set` makes a vault governed (its genesis) or
 * proposes new governance settings; every policy edit of a governed vault is a proposal; approvers sign
 * PolicyChange to approve or reject; freeze needs no quorum, unfreezing a governed vault does.
 */
export class Governance implements EntriesProposer, ExportGovernance {
  constructor(private readonly deps: GovernanceDeps) {}

  private get store(): GovernanceStore {
    if (this.deps.store === undefined) throw new DomainError(ErrorCode.CONFLICT, 'this persistence keeps no governance (a persistence of an earlier release)');
    return this.deps.store;
  }

  async set(vaultId: string, input: { required: unknown; approvers: unknown; delay?: unknown }, actor: string): Promise<GovernanceSetResult> {
    const governance = parseGovernanceSettings(input);
    const warnings = governance.required === 1 ? ['--required 1: one approver alone can change this vault; two or more hold against one stolen key'] : [];
    await requireVault(this.deps.vaults, vaultId);
    const current = await this.verified(vaultId);
    if (current.governed !== null) {
      // A state made before keys, their secrets and webhooks were governed starts governing them with this change.
      const head = current.governed.head;
      const next = { ...head, governance, apiKeys: await this.capturedApiKeys(vaultId, head.apiKeys), webhooks: head.webhooks ?? (await this.currentWebhooks(vaultId)) };
      return { proposal: await this.propose(vaultId, next, actor), warnings };
    }
    const freezes = await this.store.freezes(vaultId);
    const state: GovernedState = roundTrip({
      version: GOVERNED_STATE_VERSION,
      vault: vaultId,
      previous: null,
      policy: current.document,
      governance,
      liftedFreezes: freezes.lifted,
      apiKeys: await this.currentApiKeys(vaultId),
      webhooks: await this.currentWebhooks(vaultId),
    });
    const text = canonicalStateJson(state);
    const hash = stateHash(text);
    const now = this.deps.clock.now();
    const event = auditEvent('governance.set', now, actor, vaultId, vaultId, { genesis: hash, required: governance.required, approvers: governance.approvers.join(','), delay: governance.delay });
    if (!(await this.store.createGenesis(vaultId, text, hash, state.policy, now, event))) throw new DomainError(ErrorCode.CONFLICT, `vault ${vaultId} became governed meanwhile; run the command again to propose a change`);
    this.deps.cache.invalidate(vaultId);
    if (!this.deps.pins.has(vaultId)) warnings.push(`add ${pinLine(vaultId, hash)} to the configuration: until then a database writer could remove this vault's governance`);
    return { genesis: { hash, pin: pinLine(vaultId, hash), state }, warnings };
  }

  async governedEntries<K extends GovernedEntries>(vaultId: string, part: K): Promise<EntriesOf<K> | null> {
    if (this.deps.store === undefined) return null;
    const current = await this.verified(vaultId);
    return (current.governed?.head[part] as EntriesOf<K> | undefined) ?? null;
  }

  async proposeEntries<K extends GovernedEntries>(vaultId: string, part: K, edit: (entries: EntriesOf<K>) => EntriesOf<K>, actor: string): Promise<{ id: string; documentHash: string } | null> {
    if (this.deps.store === undefined) return null;
    const current = await this.verified(vaultId);
    const entries = current.governed?.head[part] as EntriesOf<K> | undefined;
    if (current.governed === null || entries === undefined) return null;
    return this.propose(vaultId, { ...current.governed.head, [part]: edit(entries) }, actor);
  }

  /**
   * The vault's keys that are not revoked, as the genesis captures them, console approvers with their
   * passkeys (undefined: no key store to read).
   */
  private async currentApiKeys(vaultId: string): Promise<GovernedState['apiKeys']> {
    if (this.deps.apiKeys === undefined) return undefined;
    const keys = await this.deps.apiKeys.listApiKeys(vaultId);
    const passkeys = new Map((await this.deps.passkeys?.(vaultId))?.map((p) => [p.apiKeyId, p]));
    return keys.filter((k) => k.revoked === null).map((k) => governedApiKey(k, passkeys.get(k.id))).sort(byId);
  }

  /**
   * The keys a `governance set` proposal lists: the rows as the genesis captures them when the state lists
   * none, else the state's, each without a secret hash given its row's (a state made before secrets were).
   */
  private async capturedApiKeys(vaultId: string, listed: GovernedState['apiKeys']): Promise<GovernedState['apiKeys']> {
    if (listed === undefined) return this.currentApiKeys(vaultId);
    if (this.deps.apiKeys === undefined || listed.every((k) => k.secretHash !== undefined)) return listed;
    return withSecretHashes(listed, await this.deps.apiKeys.listApiKeys(vaultId));
  }

  private async currentWebhooks(vaultId: string): Promise<GovernedState['webhooks']> {
    if (this.deps.webhooks === undefined) return undefined;
    return (await this.deps.webhooks.listEndpoints(vaultId)).map(governedWebhook).sort(byId);
  }

  async show(vaultId: string): Promise<GovernanceView> {
    await requireVault(this.deps.vaults, vaultId);
    const loaded = await this.deps.verifier.load(vaultId);
    this.deps.cache.invalidate(vaultId);
    const record = await this.store.record(vaultId);
    const freezes = await this.store.freezes(vaultId);
    const head = loaded.governed;
    return {
      vault: vaultId,
      governed: record !== null,
      state: head?.head ?? null,
      hash: head?.headHash ?? null,
      genesisHash: record?.genesisHash ?? null,
      pin: record ? pinLine(vaultId, record.genesisHash) : null,
      pinned: this.deps.pins.has(vaultId),
      frozen: { freezes: freezes.frozen, lifted: head ? head.head.liftedFreezes : freezes.lifted },
      problem: loaded.problem,
    };
  }

  /** ExportKey's view of a governed vault: the exports its state in force allows, and those pending proposals would. */
  async exportsOf(vaultId: string): ReturnType<ExportGovernance['exportsOf']> {
    if (this.deps.store === undefined) return null;
    const current = await this.verified(vaultId);
    if (current.governed === null) return null;
    const inForce = current.governed.head.exports ?? [];
    const pending = (await this.store.proposals(vaultId))
      .filter((p) => statusOf(p, current.governed!.headHash) === 'pending')
      .map((p) => {
        const view = this.view(p, current.governed!);
        const exports = (view.state.exports ?? []).filter((e) => !inForce.some((f) => f.id === e.id));
        return { id: p.id, exports, approvals: view.approvals.length, required: view.required, effectiveAt: view.effectiveAt };
      })
      .filter((p) => p.exports.length > 0);
    return { inForce, pending };
  }

  /** A proposal of the state in force allowing one more export (ExportKey, on a governed vault). */
  async proposeExport(vaultId: string, entry: Omit<GovernedExport, 'id'>, actor: string): Promise<{ id: string; documentHash: string; entry: string }> {
    const current = await this.verified(vaultId);
    if (current.governed === null) throw new DomainError(ErrorCode.CONFLICT, `vault ${vaultId} is not governed`);
    const id = this.deps.ids.next();
    const exports = [...(current.governed.head.exports ?? []), { id, kind: entry.kind, wallet: entry.wallet, recipientKey: entry.recipientKey, recipient: entry.recipient }].sort(byId);
    return { ...(await this.propose(vaultId, { ...current.governed.head, exports }, actor)), entry: id };
  }

  /** ManagePolicies' proposer: a governed vault's new policy as a proposal; null when the vault is not governed. */
  async proposePolicy(vaultId: string, policy: PolicyDocument | null, actor: string): Promise<{ id: string; documentHash: string } | null> {
    if (this.deps.store === undefined) return null;
    const current = await this.verified(vaultId);
    if (current.governed === null) return null;
    return this.propose(vaultId, { ...current.governed.head, policy }, actor);
  }

  /** `governance unfreeze` of a governed vault: a proposal lifting every freeze so far; of an ungoverned vault, done at once (audited). */
  async unfreeze(vaultId: string, actor: string): Promise<{ proposal: { id: string; documentHash: string } } | { lifted: number }> {
    await requireVault(this.deps.vaults, vaultId);
    const current = await this.verified(vaultId);
    const freezes = await this.store.freezes(vaultId);
    if (current.governed !== null) return { proposal: await this.propose(vaultId, { ...current.governed.head, liftedFreezes: freezes.frozen }, actor) };
    const now = this.deps.clock.now();
    const lifted = await this.store.liftFreezes(vaultId, now, auditEvent('vault.unfrozen', now, actor, vaultId, vaultId, { freezes: freezes.frozen }));
    this.deps.cache.invalidate(vaultId);
    return { lifted };
  }

  /** Freezes the vault at once: every signature refused (VAULT_FROZEN) on every instance from the next one on. No quorum. */
  async freeze(vaultId: string, reason: string | null, actor: string): Promise<{ freezes: number }> {
    if (reason !== null && reason.length > 500) throw invalidArgument('reason: at most 500 characters');
    await requireVault(this.deps.vaults, vaultId);
    const now = this.deps.clock.now();
    const freezes = await this.store.freeze(vaultId, this.deps.ids.next(), reason, actor, now, auditEvent('vault.frozen', now, actor, vaultId, vaultId, { reason }));
    return { freezes };
  }

  async list(vaultId: string): Promise<ProposalView[]> {
    await requireVault(this.deps.vaults, vaultId);
    const current = await this.verified(vaultId);
    if (current.governed === null) return [];
    return (await this.store.proposals(vaultId)).map((p) => this.view(p, current.governed!));
  }

  async get(vaultId: string, id: string): Promise<ProposalView> {
    const current = await this.verified(vaultId);
    const proposal = await this.store.proposal(vaultId, id);
    if (proposal === null || current.governed === null) throw new DomainError(ErrorCode.PROPOSAL_NOT_FOUND, `proposal ${id} not found in this vault`);
    return this.view(proposal, current.governed);
  }

  /**
   * A signed vote: the signature must recover, over this proposal's PolicyChange (approve) or its
   * Decision `reject` (reject: another message, so an approve signature is no reject), to an approver of
   * the state in force (else APPROVAL_SIGNATURE_INVALID), once per address. One signed reject closes the
   * proposal. An approve that completes the quorum applies it at once when there is no delay.
   */
  async vote(vaultId: string, id: string, decision: 'approve' | 'reject', signature: unknown, actor: string): Promise<ProposalView> {
    const current = await this.verified(vaultId);
    const proposal = await this.store.proposal(vaultId, id);
    if (proposal === null || current.governed === null) throw new DomainError(ErrorCode.PROPOSAL_NOT_FOUND, `proposal ${id} not found in this vault`);
    const status = statusOf(proposal, current.governed.headHash);
    if (status !== 'pending') throw new DomainError(ErrorCode.PROPOSAL_CLOSED, `proposal ${id} is ${status}: it takes no more votes`);
    if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) {
      throw new DomainError(ErrorCode.APPROVAL_SIGNATURE_INVALID, `proposal ${id}: signature is required, a 65-byte 0x-hex EIP-712 signature of its ${SIGNED[decision]}`);
    }
    // Signed over the document hash recomputed from the stored state, not the column beside it.
    const signer = this.deps.verifier.signerOf(vaultId, id, stateHash(proposal.state), signature, decision);
    if (signer === null || !current.governed.head.governance.approvers.includes(signer)) {
      throw new DomainError(ErrorCode.APPROVAL_SIGNATURE_INVALID, `proposal ${id}: the signature is not a ${SIGNED[decision]} signature of an approver of vault ${vaultId}`);
    }
    const now = this.deps.clock.now();
    const event = auditEvent('governance.voted', now, actor, vaultId, id, { approver: signer, decision, documentHash: proposal.documentHash });
    if (!(await this.store.addVote(vaultId, id, { address: signer, decision, signature, at: now }, event))) {
      throw new DomainError(ErrorCode.APPROVAL_ALREADY_VOTED, `proposal ${id}: ${signer} has already signed it, or it closed meanwhile`);
    }
    // Before anything else reads the rows: a reject this instance recorded is remembered, whatever becomes of its row.
    if (decision === 'reject') this.deps.verifier.rememberVeto(vaultId, id);
    this.deps.cache.invalidate(vaultId);
    // Applies it when this vote completed the quorum and there is no delay (any later load does otherwise).
    await this.deps.verifier.load(vaultId);
    return this.get(vaultId, id);
  }

  private async propose(vaultId: string, next: GovernedState, actor: string): Promise<{ id: string; documentHash: string }> {
    const current = await this.verified(vaultId);
    const state: GovernedState = roundTrip({ ...next, version: GOVERNED_STATE_VERSION, vault: vaultId, previous: current.governed!.headHash });
    const text = canonicalStateJson(state);
    const documentHash = stateHash(text);
    const id = this.deps.ids.next();
    const now = this.deps.clock.now();
    const diff = diffStates(current.governed!.head, state);
    await this.store.addProposal(
      { id, vaultId, state: text, documentHash, previousHash: state.previous!, creator: actor, created: now },
      auditEvent('governance.proposed', now, actor, vaultId, id, { documentHash, previous: state.previous, diff: JSON.stringify(diff) }),
    );
    return { id, documentHash };
  }

  /** The vault's state, verified: a governed vault whose state does not verify takes no proposal or vote until it is repaired. */
  private async verified(vaultId: string) {
    const loaded = await this.deps.verifier.load(vaultId);
    if (loaded.problem !== null) throw governanceUnverified(vaultId, loaded.problem);
    return loaded;
  }

  private view(p: StoredProposal, current: { head: GovernedState; headHash: string }): ProposalView {
    const state = readState(p.state, p.vaultId);
    // Counted under the state in force (an applied proposal's own quorum was checked under the state before it when it loaded).
    const before = current.head;
    const { approvers, completedAt, rejectedBy } = this.deps.verifier.quorumOf(p, before);
    const delay = delayMs(before.governance.delay);
    return {
      id: p.id,
      vault: p.vaultId,
      documentHash: p.documentHash,
      previous: p.previousHash,
      status: statusOf(p, current.headHash),
      creator: p.creator,
      created: p.created,
      decided: p.decided,
      approvals: approvers,
      required: before.governance.required,
      effectiveAt: completedAt === null ? null : new Date(completedAt.getTime() + delay),
      rejectedBy,
      diff: diffStates(before, state),
      state,
      typedData: policyChangeTypedData(p.vaultId, p.id, p.documentHash),
      rejectTypedData: decisionTypedData(p.vaultId, p.id, p.documentHash, 'reject'),
    };
  }
}

/** What each decision is signed over, as the refusals name it. */
const SIGNED = { approve: 'PolicyChange', reject: 'Decision (reject)' } as const;

/** A pending proposal built on a state no longer in force can never apply: it reads superseded. */
function statusOf(p: StoredProposal, headHash: string): ProposalStatus {
  return p.status === 'pending' && p.previousHash !== headHash ? 'superseded' : p.status;
}

/** The state as stored and read back (undefined fields gone), so the hash of what is written is the hash of what is read. */
function roundTrip(state: GovernedState): GovernedState {
  return JSON.parse(JSON.stringify(state)) as GovernedState;
}

export type { GovernanceSettings };
