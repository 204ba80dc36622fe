import { randomBytes } from 'node:crypto';
import { AuditListeners } from '../persistence/sql/audit-watch.js';
import { InProcessJobLock } from '../persistence/sqlite/in-process.job-lock.js';
import { auditRecordOf, chainedAfter, prepareAuditEvent } from '../../src/domain/audit-chain.js';
import { effectiveStatus, type Approval, type ApprovalBlock, type ApprovalStatus, type ApprovalVote } from '../../src/domain/approval.js';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import type { ApprovalPage, ApprovalStore, CountedVote, NewApproval, VoteOutcome } from '../../src/ports/approval-store.port.js';
import type { SignPolicy } from '../../src/domain/sign-policy.js';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import type { Account, ApiKeyRecord, Vault } from '../../src/domain/vault.js';
import type { Wallet } from '../../src/domain/wallet.js';
import type { AuditEvent, AuditLog, AuditRecord } from '../../src/ports/audit-log.port.js';
import type { KeyQuarantine, QuarantinedKey } from '../../src/ports/key-quarantine.port.js';
import type { PolicyRepository } from '../../src/ports/policy-repository.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import { heldAfter, valueWaitMs, witnessedMissing, type SignCountDemand } from '../../src/domain/sign-limits.js';
import type { SignCountDecision, SignCounter } from '../../src/ports/sign-counter.port.js';
import type { AttachResult, SignatureLog, SignatureRecord } from '../../src/ports/signature-log.port.js';
import type { IdempotencyRecord, WalletPage, WalletRepository } from '../../src/ports/wallet-repository.port.js';
import type { KeyExportRecord } from '../../src/ports/wallet-store.port.js';

const idempotencyKey = (vaultId: string, key: string) => JSON.stringify([vaultId, key]);
const visible = (w: Wallet, now: Date) => w.expires === null || w.expires.getTime() > now.getTime();
const byCreatedThenId = (a: Wallet, b: Wallet) => a.created.getTime() - b.created.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Applies a change, then appends `event` (when given and `apply` changed something); when the append
 * fails, undoes the change and rethrows: both or neither, as the SQL stores' one transaction.
 */
async function changeAudited(audit: AuditLog, event: AuditEvent | undefined, apply: () => (() => void) | null): Promise<boolean> {
  const undo = apply();
  if (undo === null) return false;
  if (event === undefined) return true;
  try {
    await audit.append(event);
  } catch (error) {
    undo();
    throw error;
  }
  return true;
}

/** In-memory twin of the SQLite repository for application unit tests; it passes the same contract. */
export class InMemoryWalletRepository implements WalletRepository {
  /** `audit` chains the events written with a change (updateWallet, removeWallet). */
  constructor(private readonly audit: AuditLog = new InMemoryAuditLog()) {}

  readonly accounts = new Map<string, Account>();
  readonly vaults = new Map<string, Vault>();
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  readonly wallets = new Map<string, Wallet>();
  /** Keyed by idempotencyKey(vaultId, key). */
  readonly idempotency = new Map<string, IdempotencyRecord>();
  /** The marker of wallets from before bindings (bindingUpgradePending): never set by the twin itself, which has no earlier release. */
  bindingUpgrade = false;

  async ensureAccount(id: string, now: Date): Promise<Account> {
    if (!this.accounts.has(id)) this.accounts.set(id, { id, created: now });
    return this.accounts.get(id)!;
  }
  async insertVault(vault: Vault): Promise<void> {
    if (!this.accounts.has(vault.accountId)) throw new Error('no such account');
    this.vaults.set(vault.id, vault);
  }
  async findVault(id: string): Promise<Vault | null> {
    return this.vaults.get(id) ?? null;
  }
  async listVaults(): Promise<Vault[]> {
    return [...this.vaults.values()].sort((a, b) => a.created.getTime() - b.created.getTime());
  }
  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    this.apiKeys.set(key.id, key);
  }
  async findApiKey(id: string): Promise<ApiKeyRecord | null> {
    return this.apiKeys.get(id) ?? null;
  }
  async listApiKeys(vaultId: string): Promise<ApiKeyRecord[]> {
    return [...this.apiKeys.values()].filter((k) => k.vaultId === vaultId).sort((a, b) => a.created.getTime() - b.created.getTime());
  }
  async revokeApiKey(id: string, now: Date): Promise<boolean> {
    const key = this.apiKeys.get(id);
    if (!key) return false;
    if (key.revoked === null) this.apiKeys.set(id, { ...key, revoked: now });
    return true;
  }
  setApproverAddress(id: string, address: string, recorded: AuditEvent): Promise<boolean> {
    return changeAudited(this.audit, recorded, () => {
      const key = this.apiKeys.get(id);
      if (!key) return null;
      this.apiKeys.set(id, { ...key, approverAddress: address });
      return () => this.apiKeys.set(id, key);
    });
  }
  setApiKeyRoles(id: string, roles: readonly ApiKeyRole[], recorded: AuditEvent): Promise<boolean> {
    return changeAudited(this.audit, recorded, () => {
      const key = this.apiKeys.get(id);
      if (!key || key.revoked !== null) return null;
      this.apiKeys.set(id, { ...key, roles: [...roles] });
      return () => this.apiKeys.set(id, key);
    });
  }
  rotateApiKey(id: string, successor: ApiKeyRecord, overlapEnds: Date, recorded: AuditEvent): Promise<boolean> {
    return changeAudited(this.audit, recorded, () => {
      const key = this.apiKeys.get(id);
      if (!key || key.revoked !== null || key.replacedBy != null) return null;
      this.apiKeys.set(id, { ...key, replacedBy: successor.id, overlapEnds });
      this.apiKeys.set(successor.id, successor);
      return () => {
        this.apiKeys.set(id, key);
        this.apiKeys.delete(successor.id);
      };
    });
  }
  async markFirstUsed(id: string, now: Date): Promise<void> {
    const key = this.apiKeys.get(id);
    if (key && key.firstUsed == null) this.apiKeys.set(id, { ...key, firstUsed: now });
  }
  async countActiveApiKeys(vaultId: string): Promise<number> {
    return [...this.apiKeys.values()].filter((k) => k.vaultId === vaultId && k.revoked === null).length;
  }
  async insertWallet(wallet: Wallet, idempotency?: IdempotencyRecord): Promise<void> {
    // Every check before any write, so a refused insert leaves nothing behind (the SQL transaction's effect).
    if (idempotency) {
      if (idempotency.vaultId !== wallet.vaultId) throw new Error('idempotency record of another vault');
      const held = this.idempotency.get(idempotencyKey(idempotency.vaultId, idempotency.key));
      if (held && held.expires.getTime() > idempotency.created.getTime()) {
        throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, `Idempotency-Key ${JSON.stringify(idempotency.key)} is already in use`);
      }
    }
    if ([...this.wallets.values()].some((w) => w.address === wallet.address)) throw new Error('duplicate address');
    this.wallets.set(wallet.id, wallet);
    if (idempotency) this.idempotency.set(idempotencyKey(idempotency.vaultId, idempotency.key), idempotency);
  }
  private readonly derivationIndexes = new Map<string, number>();
  async reserveDerivationIndex(vaultId: string): Promise<number> {
    const index = this.derivationIndexes.get(vaultId) ?? 0;
    this.derivationIndexes.set(vaultId, index + 1);
    return index;
  }
  /** The key exports done (recordExport). */
  readonly exports: KeyExportRecord[] = [];
  recordExport(r: KeyExportRecord, recorded: AuditEvent): Promise<boolean> {
    return changeAudited(this.audit, recorded, () => {
      if (r.authorization !== null && this.exports.some((e) => e.authorization === r.authorization)) return null;
      const before = new Map(this.wallets);
      this.exports.push(r);
      for (const w of this.wallets.values()) {
        const hit = r.kind === 'hd-seed' ? w.vaultId === r.vaultId && w.derivationPath !== null : w.id === r.walletId;
        if (hit) this.wallets.set(w.id, { ...w, exported: w.exported ?? r.at, version: w.version + 1 });
      }
      return () => {
        this.exports.splice(this.exports.indexOf(r), 1);
        this.wallets.clear();
        for (const [k, v] of before) this.wallets.set(k, v);
      };
    });
  }
  async seedExported(vaultId: string): Promise<Date | null> {
    return this.exports.find((e) => e.vaultId === vaultId && e.kind === 'hd-seed')?.at ?? null;
  }
  async findIdempotency(vaultId: string, key: string, now: Date): Promise<IdempotencyRecord | null> {
    const record = this.idempotency.get(idempotencyKey(vaultId, key));
    return record && record.expires.getTime() > now.getTime() ? record : null;
  }
  async deleteExpiredIdempotency(now: Date, limit: number): Promise<number> {
    const expired = [...this.idempotency.entries()]
      .filter(([, r]) => r.expires.getTime() <= now.getTime())
      .sort(([, a], [, b]) => a.expires.getTime() - b.expires.getTime())
      .slice(0, limit);
    for (const [k] of expired) this.idempotency.delete(k);
    return expired.length;
  }
  async findWallet(vaultId: string, address: string, now: Date): Promise<Wallet | null> {
    return [...this.wallets.values()].find((w) => w.vaultId === vaultId && w.address === address && visible(w, now)) ?? null;
  }
  async findWalletByAddress(address: string): Promise<Wallet | null> {
    return [...this.wallets.values()].find((w) => w.address === address) ?? null;
  }
  async listWallets(vaultId: string, now: Date, offset: number, limit: number): Promise<WalletPage> {
    const all = [...this.wallets.values()].filter((w) => w.vaultId === vaultId && visible(w, now)).sort(byCreatedThenId);
    return { count: all.length, page: all.slice(offset, offset + limit) };
  }
  async countWallets(vaultId: string, now: Date): Promise<number> {
    return (await this.listWallets(vaultId, now, 0, 0)).count;
  }
  updateWallet(wallet: Wallet, recorded?: AuditEvent): Promise<boolean> {
    return changeAudited(this.audit, recorded, () => {
      const current = this.wallets.get(wallet.id);
      if (!current || current.version !== wallet.version - 1) return null;
      this.wallets.set(wallet.id, wallet);
      return () => this.wallets.set(wallet.id, current);
    });
  }
  async findExpired(now: Date, limit: number): Promise<Wallet[]> {
    return [...this.wallets.values()]
      .filter((w) => w.expires !== null && w.expires.getTime() <= now.getTime())
      .sort((a, b) => a.expires!.getTime() - b.expires!.getTime())
      .slice(0, limit);
  }
  async markDeleted(id: string, now: Date): Promise<boolean> {
    const current = this.wallets.get(id);
    if (!current || current.expires === null || current.expires.getTime() > now.getTime()) return false;
    this.wallets.set(id, { ...current, version: current.version + 1 });
    return true;
  }
  async removeWallet(id: string, deleted?: AuditEvent): Promise<void> {
    await changeAudited(this.audit, deleted, () => {
      const current = this.wallets.get(id);
      if (!current) return null;
      this.wallets.delete(id);
      return () => this.wallets.set(id, current);
    });
  }
  async findRecord(id: string): Promise<Wallet | null> {
    return this.wallets.get(id) ?? null;
  }
  async listByKeyStore(keyStore: string, afterId: string | null, limit: number): Promise<Wallet[]> {
    return [...this.wallets.values()]
      .filter((w) => w.keyStore === keyStore && w.id > (afterId ?? ''))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  }
  async keyRefInUse(keyStore: string, keyRef: string): Promise<boolean> {
    return [...this.wallets.values()].some((w) => w.keyStore === keyStore && w.keyRef === keyRef);
  }
  async listUnbound(query: { readonly vaultId?: string; readonly afterId: string | null; readonly limit: number }): Promise<Wallet[]> {
    return [...this.wallets.values()]
      .filter((w) => w.binding === null && (query.vaultId === undefined || w.vaultId === query.vaultId) && w.id > (query.afterId ?? ''))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, query.limit);
  }
  async bindingUpgradePending(): Promise<boolean> {
    return this.bindingUpgrade;
  }
  async finishBindingUpgrade(): Promise<void> {
    this.bindingUpgrade = false;
  }
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

export class InMemorySignatureLog implements SignatureLog {
  readonly records = new Map<string, SignatureRecord>();

  /** `audit` chains the signature.issued events recorded with signatures. */
  constructor(private readonly audit: AuditLog) {}

  async record(entry: SignatureRecord, issued?: AuditEvent): Promise<void> {
    if (this.records.has(entry.submissionHash)) throw new Error('duplicate submission hash');
    this.records.set(entry.submissionHash, entry);
    try {
      if (issued) await this.audit.append(issued);
    } catch (error) {
      this.records.delete(entry.submissionHash); // both or neither, as the real logs' one transaction
      throw error;
    }
  }
  async find(vaultId: string, submissionHash: string): Promise<SignatureRecord | null> {
    const r = this.records.get(submissionHash);
    return r && r.vaultId === vaultId ? r : null;
  }
  async attachTransaction(vaultId: string, submissionHash: string, transactionHash: string, now: Date): Promise<AttachResult> {
    const r = await this.find(vaultId, submissionHash);
    if (!r) return 'missing';
    if (r.transactionHash === null) {
      this.records.set(submissionHash, { ...r, transactionHash, submitted: now });
      return 'attached';
    }
    return r.transactionHash === transactionHash ? 'unchanged' : 'conflict';
  }
}

/** In-memory twin of the SQLite audit log: the same chain, numbering and checks; it passes the same contract. */
export class InMemoryAuditLog implements AuditLog {
  readonly records: AuditRecord[] = [];

  private readonly listeners = new AuditListeners();
  /** Persistence.watchAudit: every store of the twin appends through this log. */
  readonly watch = this.listeners.watch;

  async append(event: AuditEvent): Promise<void> {
    // The stores' own chaining; the head is the last record (a test may have tampered with it, as with a row).
    this.records.push(auditRecordOf(chainedAfter(this.records.at(-1) ?? null, prepareAuditEvent(event))));
    this.listeners.tell(event.action);
  }

  async list(query: { readonly afterSeq: number; readonly limit: number; readonly vaultId?: string }): Promise<AuditRecord[]> {
    return this.records
      .filter((r) => r.seq > query.afterSeq && (query.vaultId === undefined || r.vaultId === query.vaultId))
      .slice(0, query.limit);
  }
}

export class InMemoryPolicyRepository implements PolicyRepository {
  readonly policies = new Map<string, { policy: SignPolicy; updated: Date }>();

  async find(vaultId: string): Promise<SignPolicy | null> {
    // A copy, as a database would return: a caller changing it changes nothing stored.
    const entry = this.policies.get(vaultId);
    return entry ? structuredClone(entry.policy) : null;
  }
  async save(vaultId: string, policy: SignPolicy | null, now: Date): Promise<void> {
    if (policy === null) this.policies.delete(vaultId);
    else this.policies.set(vaultId, { policy: structuredClone(policy), updated: now });
  }
}

const missing = (d: SignCountDemand): SignCountDecision => ({ allowed: false, retryAfterMs: d.windowMs, refusedBy: d.key, missing: true });

/** In-memory twin of the sign counts: one process's, atomic because a take never awaits. */
export class InMemorySignCounter implements SignCounter {
  /** The instants (ms) of the signs counted in the window, oldest first, by key. */
  readonly counts = new Map<string, number[]>();
  /** What each sign under a limit in value moved, oldest first, by key. */
  readonly amounts = new Map<string, { at: number; amount: bigint }[]>();

  async take(demands: readonly SignCountDemand[], now: Date): Promise<SignCountDecision> {
    const at = now.getTime();
    let refused: SignCountDecision = { allowed: true, retryAfterMs: 0 };
    for (const d of demands) {
      if (d.value !== undefined) {
        const entries = (this.amounts.get(d.key) ?? []).filter((e) => e.at > at - d.windowMs);
        this.amounts.set(d.key, entries);
        if (d.witnessed !== undefined && witnessedMissing(d.witnessed, heldAfter(entries, d.witnessed.after.getTime()))) return missing(d);
        const wait = valueWaitMs(entries, d.value.amount, d.value.max, d.windowMs, at);
        if (wait > refused.retryAfterMs) refused = { allowed: false, retryAfterMs: wait, refusedBy: d.key };
        continue;
      }
      const kept = (this.counts.get(d.key) ?? []).filter((t) => t > at - d.windowMs);
      this.counts.set(d.key, kept);
      if (d.witnessed !== undefined && kept.filter((t) => t > d.witnessed!.after.getTime()).length < d.witnessed.signs) return missing(d);
      // The max-th newest sign in the window holds it full until it leaves.
      const full = kept[kept.length - d.max];
      const wait = full === undefined ? 0 : full + d.windowMs - at;
      if (wait > refused.retryAfterMs) refused = { allowed: false, retryAfterMs: wait, refusedBy: d.key };
    }
    if (!refused.allowed) return refused;
    for (const d of demands) {
      if (d.value === undefined) this.counts.get(d.key)!.push(at);
      else this.amounts.get(d.key)!.push({ at, amount: d.value.amount });
    }
    return { allowed: true, retryAfterMs: 0 };
  }
}

/**
 * The SQLite deployment's lock is already in memory; the twin adds a way to play the other instance that
 * holds a job, so application tests can check what happens when the lock is taken elsewhere.
 */
export class InMemoryJobLock extends InProcessJobLock {
  /** Marks `job` as held by another instance until the returned function is called. */
  holdElsewhere(job: string): () => void {
    if (this.held.has(job)) throw new Error(`job ${job} is already held`);
    this.held.add(job);
    return () => this.held.delete(job);
  }
}

/** In-memory twin of the deployment row and the quarantined keys. */
export class InMemoryKeyQuarantine implements KeyQuarantine {
  readonly keys = new Map<string, QuarantinedKey>();

  /** `audit` chains the events written with a change (add, remove). */
  constructor(
    private readonly deployment: string = randomBytes(16).toString('hex'),
    private readonly audit: AuditLog = new InMemoryAuditLog(),
  ) {}

  async deploymentId(): Promise<string> {
    return this.deployment;
  }
  add(key: QuarantinedKey, quarantined?: AuditEvent): Promise<boolean> {
    const id = JSON.stringify([key.keyStore, key.keyRef]);
    return changeAudited(this.audit, quarantined, () => {
      if (this.keys.has(id)) return null;
      this.keys.set(id, { ...key });
      return () => this.keys.delete(id);
    });
  }
  async has(keyStore: string, keyRef: string): Promise<boolean> {
    return this.keys.has(JSON.stringify([keyStore, keyRef]));
  }
  async list(): Promise<QuarantinedKey[]> {
    return [...this.keys.values()].sort((a, b) => a.quarantined.getTime() - b.quarantined.getTime());
  }
  async remove(keyStore: string, keyRef: string, recorded?: AuditEvent): Promise<void> {
    const id = JSON.stringify([keyStore, keyRef]);
    await changeAudited(this.audit, recorded, () => {
      const current = this.keys.get(id);
      if (!current) return null;
      this.keys.delete(id);
      return () => this.keys.set(id, current);
    });
  }
}

/**
 * In-memory twin of the SQL approvals: each method runs to its end without awaiting between its check and
 * its change (one process, one event loop), so it is as atomic as the database's conditional updates.
 */
export class InMemoryApprovalStore implements ApprovalStore {
  readonly approvals = new Map<string, Approval>();
  private readonly claims = new Map<string, { token: string; until: number }>();

  /**
   * The released signatures and the audit records go to the same twins the vault uses; the votes that
   * count are those of `keys`' API keys as they are at each read (approvalCounted).
   */
  constructor(
    private readonly audit: InMemoryAuditLog,
    private readonly signatures: InMemorySignatureLog,
    private readonly keys: { readonly apiKeys: ReadonlyMap<string, ApiKeyRecord> },
  ) {}

  /** The approvers whose approve votes count now, as the SQL store's COUNTED: unrevoked keys of the vault, approvers, of the group, an address once. */
  private counted(a: Approval): number {
    return new Set(this.countedOf(a).map((v) => this.keys.apiKeys.get(v.apiKeyId)!.approverAddress?.toLowerCase() ?? v.apiKeyId)).size;
  }

  private countedOf(a: Approval): ApprovalVote[] {
    return a.votes.filter((v) => {
      const key = this.keys.apiKeys.get(v.apiKeyId);
      return v.vote === 'approve' && key !== undefined && key.vaultId === a.vaultId && key.revoked === null && key.roles.includes('approver') && (a.group === null || key.group === a.group);
    });
  }
  /** Decided on record (approval.decided), whatever its status says now: as the SQL store's NEVER_DECIDED. */
  private decidedBefore(a: Approval): boolean {
    return this.audit.records.some((r) => r.vaultId === a.vaultId && r.subject === a.id && r.action === 'approval.decided');
  }

  /** An approval as reads answer it: a copy, its count over the keys as they are now. */
  private shown(a: Approval): Approval {
    return { ...structuredClone(a), approvals: this.counted(a) };
  }

  async create(a: NewApproval, requested: AuditEvent): Promise<Approval | null> {
    prepareAuditEvent(requested); // refused before anything is stored, as the SQL store's
    if (a.idempotencyKey !== null && [...this.approvals.values()].some((o) => o.vaultId === a.vaultId && o.idempotencyKey === a.idempotencyKey)) return null;
    const approval: Approval = { ...a, status: 'pending', approvals: 0, decided: null, votes: [], result: null, blockedBy: null };
    this.approvals.set(a.id, approval);
    await this.audit.append(requested);
    return this.shown(approval);
  }
  async find(vaultId: string, id: string): Promise<Approval | null> {
    const a = this.approvals.get(id);
    return a && a.vaultId === vaultId ? this.shown(a) : null;
  }
  async findByIdempotencyKey(vaultId: string, key: string): Promise<Approval | null> {
    const a = [...this.approvals.values()].find((o) => o.vaultId === vaultId && o.idempotencyKey === key);
    return a ? this.shown(a) : null;
  }
  async list(vaultId: string, q: { status?: ApprovalStatus; now: Date; offset: number; count: number }): Promise<ApprovalPage> {
    const all = [...this.approvals.values()]
      .filter((a) => a.vaultId === vaultId && (q.status === undefined || effectiveStatus(a, q.now) === q.status))
      .sort((a, b) => a.created.getTime() - b.created.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { count: all.length, page: all.slice(q.offset, q.offset + q.count).map((a) => this.shown(a)) };
  }
  async vote(vaultId: string, id: string, vote: ApprovalVote, events: (approval: Approval) => AuditEvent[]): Promise<VoteOutcome> {
    const a = this.approvals.get(id);
    if (a === undefined || a.vaultId !== vaultId) return { kind: 'closed' };
    if (a.votes.some((v) => v.apiKeyId === vote.apiKeyId)) return { kind: 'already-voted' };
    if (a.status !== 'pending' || a.expires.getTime() <= vote.at.getTime()) return { kind: 'closed' };
    // As the SQL store reads it back: `signature` only when there is one.
    const { signature, ...unsigned } = vote;
    const cast: Approval = {
      ...a,
      votes: [...a.votes, signature ? { ...unsigned, signature } : unsigned],
      approvals: a.approvals + (vote.vote === 'approve' ? 1 : 0),
      ...(vote.vote === 'reject' ? { status: 'rejected' as const, decided: vote.at } : {}),
    };
    const counted = this.shown(cast);
    const records = events(counted);
    records.forEach((e) => prepareAuditEvent(e));
    this.approvals.set(id, cast);
    for (const e of records) await this.audit.append(e);
    return { kind: 'recorded', approval: counted };
  }
  async countedVotes(vaultId: string, id: string): Promise<CountedVote[]> {
    const a = this.approvals.get(id);
    if (a === undefined || a.vaultId !== vaultId) return [];
    return this.countedOf(a).map((v) => {
      const key = this.keys.apiKeys.get(v.apiKeyId)!;
      return { apiKeyId: v.apiKeyId, signature: v.signature ?? null, approverAddress: key.approverAddress ?? null, group: key.group ?? null };
    });
  }
  async claimRelease(vaultId: string, id: string, token: string, now: Date, leaseUntil: Date): Promise<boolean> {
    const a = this.approvals.get(id);
    if (a === undefined || a.vaultId !== vaultId || a.status !== 'pending' || a.expires.getTime() <= now.getTime() || this.counted(a) < a.required || this.decidedBefore(a)) return false;
    const claim = this.claims.get(id);
    if (claim !== undefined && claim.until > now.getTime()) return false;
    this.claims.set(id, { token, until: leaseUntil.getTime() });
    return true;
  }
  async abandonRelease(_vaultId: string, id: string, token: string, blocked?: ApprovalBlock): Promise<void> {
    if (this.claims.get(id)?.token !== token) return;
    this.claims.delete(id);
    const a = this.approvals.get(id);
    if (a !== undefined && blocked !== undefined) this.approvals.set(id, { ...a, blockedBy: blocked });
  }
  async release(vaultId: string, id: string, token: string, now: Date, signature: SignatureRecord | null, result: string, events: readonly AuditEvent[]): Promise<boolean> {
    const a = this.approvals.get(id);
    if (a === undefined || a.vaultId !== vaultId || this.claims.get(id)?.token !== token || a.status !== 'pending' || a.expires.getTime() <= now.getTime()) return false;
    if (this.counted(a) < a.required || this.decidedBefore(a)) return false;
    events.forEach((e) => prepareAuditEvent(e));
    this.claims.delete(id);
    this.approvals.set(id, { ...a, status: 'approved', decided: now, result, blockedBy: null });
    if (signature !== null) await this.signatures.record(signature);
    for (const e of events) await this.audit.append(e);
    return true;
  }
  async expire(now: Date, limit: number, decided: (approval: Approval) => AuditEvent): Promise<Approval[]> {
    const due = [...this.approvals.values()]
      .filter((a) => a.status === 'pending' && a.expires.getTime() <= now.getTime() && !((this.claims.get(a.id)?.until ?? 0) > now.getTime()))
      .slice(0, limit);
    const done: Approval[] = [];
    for (const a of due) {
      const expired: Approval = { ...a, status: 'expired', decided: a.expires };
      this.approvals.set(a.id, expired);
      await this.audit.append(decided(expired));
      done.push(this.shown(expired));
    }
    return done;
  }
}

/**
 * Every twin above as one `Persistence`, for `createVault({ persistence: inMemoryPersistence() })` in an
 * application's own tests: nothing on disk, gone on close. No shared replay guard, so the vault keeps
 * nonces in memory, as it does for one process on SQLite.
 */
export function inMemoryPersistence(): Persistence {
  const auditLog = new InMemoryAuditLog();
  const signatureLog = new InMemorySignatureLog(auditLog);
  const repository = new InMemoryWalletRepository(auditLog);
  return {
    repository,
    signatureLog,
    auditLog,
    policies: new InMemoryPolicyRepository(),
    jobLock: new InMemoryJobLock(),
    keyQuarantine: new InMemoryKeyQuarantine(undefined, auditLog),
    signCounter: new InMemorySignCounter(),
    approvals: new InMemoryApprovalStore(auditLog, signatureLog, repository),
    watchAudit: auditLog.watch,
    description: 'in memory',
    close: async () => undefined,
  };
}
