import { timingSafeEqual } from 'node:crypto';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { AuditDetails, AuditLog } from '../../../src/ports/audit-log.port.js';
import type { Clock } from '../../../src/ports/clock.port.js';
import { audit } from '../../../src/application/audit/audit-actor.js';
import type { MasterKeyHolder } from './master-key-holder.js';
import { combineShares, parseShare, ShareError, type MasterKeyShare } from './master-key-shares.js';

/** What `GET /api/v1/sys/seal-status` and the unseal answer: `threshold` is null until a share says it. */
export interface SealStatus {
  readonly sealed: boolean;
  readonly threshold: number | null;
  readonly progress: number;
}

export interface ShamirUnsealDeps {
  readonly holder: MasterKeyHolder;
  /** Null when `key` is the key directory's master key; else why not (master-key-check.ts). */
  readonly verify: (key: Buffer) => Promise<string | null>;
  /** The split the key directory records as current (current-split.ts), or null when none is recorded. */
  readonly currentSplit: () => Promise<string | null>;
  readonly auditLog: AuditLog;
  readonly clock: Clock;
  /** VAULT_UNSEAL_TIMEOUT_SECONDS, in ms: shares submitted longer ago than this since the first are forgotten. */
  readonly timeoutMs: number;
}

/**
 * The unseal of VAULT_SEAL=shamir, in this process: shares are held in memory, one per index, until the
 * threshold of one split is reached; then the key they reconstruct is checked (against the shares' own
 * key check, then against the key directory's check value) and only then handed to the holder. Nothing
 * is written to disk. A refused share is recorded in the audit trail (`seal.share-refused`, with why and
 * its index and split where it parsed), never the share itself; so is each accepted one, the unseal and
 * the seal. The progress resets `timeoutMs` after the first share, read from the clock port.
 */
export class ShamirUnseal {
  private pending: MasterKeyShare[] = [];
  private firstAt = 0;
  /** The threshold of the last split a share was accepted from, so the status keeps it once unsealed. */
  private threshold: number | null = null;
  /** One unseal at a time: two custodians submitting at once must not both combine, or both miss. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: ShamirUnsealDeps) {}

  status(): SealStatus {
    this.expire();
    return this.snapshot();
  }

  /** Takes one custodian's share (a share file's text or its parsed JSON); `client` is recorded with it. */
  submit(input: unknown, client: string): Promise<SealStatus> {
    const run = this.queue.then(() => this.take(input, client));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Drops the key (and any progress): every sign is VAULT_SEALED again until the next unseal. */
  async seal(actor: string): Promise<SealStatus> {
    const wasSealed = this.deps.holder.sealed;
    this.deps.holder.drop();
    this.reset();
    await this.record('seal.sealed', actor, { wasSealed });
    return this.snapshot();
  }

  private async take(input: unknown, client: string): Promise<SealStatus> {
    this.expire();
    // A late custodian's share once the vault is open changes nothing: answered, not combined.
    if (!this.deps.holder.sealed) return this.snapshot();
    let share: MasterKeyShare;
    try {
      share = parseShare(input);
    } catch (error) {
      if (!(error instanceof ShareError)) throw error;
      throw await this.refused(client, 'malformed', {}, ErrorCode.INVALID_ARGUMENT, `share: ${error.message}; nothing was counted`);
    }
    const current = await this.deps.currentSplit();
    if (current !== null && current !== share.split) {
      throw await this.refused(client, 'retired-split', describe(share), ErrorCode.CONFLICT, `share: of split ${share.split}, which a re-split replaced (\`wallet-vault master-key resplit\`); submit a share of the current split; nothing was counted`);
    }
    const first = this.pending[0];
    if (first !== undefined && first.split !== share.split) {
      throw await this.refused(client, 'other-split', describe(share), ErrorCode.CONFLICT, `share: of another split (${share.split}) than the ${this.pending.length} share(s) submitted so far (${first.split}); nothing was counted`);
    }
    if (this.pending.some((p) => p.index === share.index || sameBytes(p.share, share.share))) {
      throw await this.refused(client, 'repeated', describe(share), ErrorCode.CONFLICT, `share: share ${share.index} of this split was already submitted; each custodian submits a different share`);
    }
    if (this.pending.length === 0) this.firstAt = this.deps.clock.now().getTime();
    this.pending.push(share);
    this.threshold = share.threshold;
    await this.record('seal.share-accepted', `unseal:${client}`, { ...describe(share), progress: this.pending.length });
    if (this.pending.length < share.threshold) return this.snapshot();
    return this.open(client);
  }

  private async open(client: string): Promise<SealStatus> {
    const shares = this.pending;
    this.pending = [];
    const key = await combineShares(shares).finally(() => shares.forEach((s) => s.share.fill(0)));
    if (key === null) {
      throw await this.refused(client, 'wrong-key', describe(shares[0]!), ErrorCode.CONFLICT, 'share: the shares submitted do not reconstruct the key of their split (a share was altered); nothing was unsealed and the progress starts again');
    }
    try {
      const problem = await this.deps.verify(key);
      if (problem !== null) throw await this.refused(client, 'other-vault', describe(shares[0]!), ErrorCode.CONFLICT, `share: ${problem}; nothing was unsealed and the progress starts again`);
      this.deps.holder.fill(key);
    } finally {
      key.fill(0);
    }
    await this.record('seal.unsealed', `unseal:${client}`, { split: shares[0]!.split, threshold: shares[0]!.threshold });
    return this.snapshot();
  }

  /** The refusal to throw, once recorded (`seal.share-refused`, with why; never the share). */
  private async refused(client: string, reason: string, details: AuditDetails, code: ErrorCode, message: string): Promise<DomainError> {
    await this.record('seal.share-refused', `unseal:${client}`, { reason, ...details });
    return new DomainError(code, message);
  }

  private record(action: 'seal.share-accepted' | 'seal.share-refused' | 'seal.unsealed' | 'seal.sealed', actor: string, details: AuditDetails): Promise<void> {
    return audit(this.deps.auditLog, action, this.deps.clock.now(), actor, null, null, details);
  }

  private expire(): void {
    if (this.pending.length > 0 && this.deps.clock.now().getTime() - this.firstAt >= this.deps.timeoutMs) this.reset();
  }

  private reset(): void {
    for (const p of this.pending) p.share.fill(0);
    this.pending = [];
  }

  private snapshot(): SealStatus {
    const sealed = this.deps.holder.sealed;
    return { sealed, threshold: this.pending[0]?.threshold ?? this.threshold, progress: sealed ? this.pending.length : 0 };
  }
}

/** What identifies a share in the audit trail: its split and index, never its bytes. */
function describe(share: MasterKeyShare): AuditDetails {
  return { split: share.split, index: share.index, threshold: share.threshold };
}

/** Share bytes are secret: compared in constant time (the lengths are not: every share of a split has the key's). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
