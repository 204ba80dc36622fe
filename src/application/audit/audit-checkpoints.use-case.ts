import type { ChainHead } from '../../domain/audit-chain.js';
import { checkpointProblem, parseCheckpoint, type AuditCheckpoint, type CheckpointKey } from '../../domain/audit-checkpoint.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { AuditLog, AuditRecord } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { WebhookOutbox } from '../../ports/webhook-outbox.port.js';
import { audit, SYSTEM } from './audit-actor.js';
import { VerifyAuditChain, type AuditVerdict } from './verify-audit-chain.use-case.js';

/** What `audit verify --checkpoint` found: the checkpoint refused (not signed by the trusted key), or the chain's verdict against it. */
export type CheckpointVerdict = { readonly refused: string } | (AuditVerdict & { readonly refused?: undefined });

/**
 * Signed checkpoints of the audit chain's head (docs/security.md, "Audit checkpoints"): `wallet-vault
 * audit checkpoint`, the scheduled one (ScheduledCheckpoints), and `audit verify --checkpoint`.
 */
export class AuditCheckpoints {
  private readonly chain: VerifyAuditChain;

  constructor(
    private readonly auditLog: AuditLog,
    private readonly clock: Clock,
    private readonly outbox: WebhookOutbox | undefined,
  ) {
    this.chain = new VerifyAuditChain(auditLog);
  }

  /**
   * Verifies the whole chain, signs its head and records the checkpoint (`audit.checkpoint`). A broken
   * chain is never signed: that would vouch for the damage (CONFLICT naming the first broken seq).
   */
  async write(key: CheckpointKey, actor: string): Promise<AuditCheckpoint> {
    return this.signAndRecord(key, actor, await this.verifiedHead(this.chain.execute()));
  }

  /** Signs `head` (verified by the caller) now, and records it. */
  async signAndRecord(key: CheckpointKey, actor: string, head: ChainHead | null): Promise<AuditCheckpoint> {
    const now = this.clock.now();
    const checkpoint = key.sign(head?.seq ?? 0, head?.hash ?? '0'.repeat(64), now.toISOString());
    const details = { checkpoint: JSON.stringify(checkpoint) };
    // The webhook outbox delivers a vault's records to its endpoints: one record for each vault whose
    // endpoints take checkpoints (the same checkpoint in each), or one of no vault when none does.
    const vaults = await this.checkpointVaults();
    for (const vaultId of vaults.length > 0 ? vaults : [null]) await audit(this.auditLog, 'audit.checkpoint', now, actor, vaultId, null, details);
    return checkpoint;
  }

  /**
   * The checkpoint's signature by `trustedKey` first (a forged or edited one is refused without reading
   * the chain), then the whole chain, which must still reach the checkpoint's head with its hash.
   */
  async verify(checkpoint: AuditCheckpoint, trustedKey: string): Promise<CheckpointVerdict> {
    const problem = checkpointProblem(checkpoint, trustedKey);
    if (problem !== null) return { refused: `checkpoint refused: ${problem}` };
    return this.chain.execute({ checkpoint });
  }

  /** The head of a verdict that must be intact. */
  async verifiedHead(verdict: Promise<AuditVerdict>): Promise<ChainHead | null> {
    const v = await verdict;
    if (!v.ok) throw new DomainError(ErrorCode.CONFLICT, `audit chain broken at seq ${v.brokenSeq}: ${v.problem}; no checkpoint is signed over a broken chain`);
    return v.head;
  }

  private async checkpointVaults(): Promise<string[]> {
    const endpoints = this.outbox ? await this.outbox.listEndpoints() : [];
    return [...new Set(endpoints.filter((e) => e.events.includes('audit.checkpoint')).map((e) => e.vaultId))];
  }
}

/** The checkpoint an `audit.checkpoint` record carries, when it is one `key` signed; else null. */
export function signedCheckpointOf(record: AuditRecord, publicKey: string): AuditCheckpoint | null {
  const text = record.details.checkpoint;
  if (record.action !== 'audit.checkpoint' || typeof text !== 'string') return null;
  try {
    const checkpoint = parseCheckpoint(text);
    return checkpointProblem(checkpoint, publicKey) === null ? checkpoint : null;
  } catch {
    return null;
  }
}

/**
 * The scheduled checkpoint (createVault's `auditCheckpoints`): run with the other background jobs, under
 * their job lock, it verifies the records appended since its last run (the whole chain at its first) and,
 * when the last checkpoint this key signed is `intervalMs` old or more (or there is none) and records
 * other than checkpoints came since, signs the head and records it as `system`. The last checkpoint is found in the chain itself, so instances sharing a database write one
 * per interval between them; a record of one that this key did not sign does not count.
 */
export class ScheduledCheckpoints {
  private verified: ChainHead | undefined;
  private lastCheckpoint: number | undefined;
  /** A record other than a checkpoint of this key came after the last such checkpoint. */
  private newSinceCheckpoint = false;

  constructor(
    private readonly checkpoints: AuditCheckpoints,
    private readonly chain: VerifyAuditChain,
    private readonly clock: Clock,
    private readonly key: CheckpointKey,
    private readonly intervalMs: number,
  ) {}

  /** The checkpoint written, or null when none was due. Throws when the chain is broken (nothing is signed). */
  async runOnce(): Promise<AuditCheckpoint | null> {
    const onRecord = (record: AuditRecord) => {
      const checkpoint = signedCheckpointOf(record, this.key.publicKey);
      if (checkpoint) this.lastCheckpoint = Math.max(this.lastCheckpoint ?? 0, record.at.getTime());
      this.newSinceCheckpoint = !checkpoint;
    };
    const head = await this.checkpoints.verifiedHead(this.chain.execute({ ...(this.verified ? { from: this.verified } : {}), onRecord }));
    if (head) this.verified = head;
    // Nothing to sign on an empty chain, nor when nothing but checkpoints came since the last one: the
    // last checkpoint still covers every record (an idle deployment does not grow its trail hourly).
    if (!head || !this.newSinceCheckpoint) return null;
    if (this.lastCheckpoint !== undefined && this.clock.now().getTime() - this.lastCheckpoint < this.intervalMs) return null;
    const written = await this.checkpoints.signAndRecord(this.key, SYSTEM, head);
    this.lastCheckpoint = Date.parse(written.at);
    this.newSinceCheckpoint = false;
    return written;
  }
}

