import { createHash } from 'node:crypto';
import { effectiveStatus, encodeHeld, type Approval } from '../../domain/approval.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import type { ApprovalStore, NewApproval } from '../../ports/approval-store.port.js';
import type { AuditDetails, AuditEvent } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { FreezeFence } from '../../ports/freeze-fence.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { SignatureRecord } from '../../ports/signature-log.port.js';
import { actorOf } from '../audit/audit-actor.js';
import { canonicalJson } from '../shared/idempotency.js';
import { sealHeldRequest } from './held-request-seals.js';
import type { Principal } from '../access/principal.js';
import type { DenialRecord, SignPolicyGate } from '../signing/sign-policy-gate.js';
import type { WalletBindings } from '../wallets/wallet-binding.js';
import type { Wallet } from '../../domain/wallet.js';

/**
 * Whether a held approval is of `body` (a kind's fields, as hold() takes them): as stored now, with its
 * codec's version; or as stored before versions were written (its text has none), for a repeat across
 * the upgrade.
 */
function sameRequest(approval: Approval, body: HoldSpec['body']): boolean {
  if (approval.requestHash === sha256(canonicalJson(encodeHeld(body)))) return true;
  // The text of a row held before versions is the fields alone (a kind's fields carry no `version`).
  return approval.requestHash === sha256(canonicalJson(body));
}

/** A request an approval rule holds: nothing is signed until its quorum approves (`status` pending). */
export interface ApprovalRequested {
  readonly approval: Approval;
}

/**
 * The state of an approval as a repeat of its request answers it: pending as the approval, approved as its
 * result (`T`: Sign's, or a standard request's), otherwise refused.
 */
export function approvalOutcome<T>(approval: Approval, now: Date): T | ApprovalRequested {
  switch (effectiveStatus(approval, now)) {
    case 'pending':
      return { approval };
    case 'approved':
      return JSON.parse(approval.result!) as T;
    case 'rejected':
      throw new DomainError(ErrorCode.APPROVAL_REJECTED, `approval ${approval.id}: the request was rejected; it is never signed`);
    case 'expired':
      throw new DomainError(ErrorCode.APPROVAL_EXPIRED, `approval ${approval.id}: the request expired before its quorum; it is never signed`);
  }
}

/** What a held request stores and records: the request whole, the approval's columns and its audit facts. */
export interface HoldSpec {
  /** What the approval stores (canonical JSON of JSON values only) and what a repeat must equal. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly chain: string;
  readonly contract: string;
  readonly sender: string;
  readonly selector: string;
  /** The function's signature, or what lists show in its place (`message`, `transaction`, ...). */
  readonly description: string;
  /** The details approval.requested adds to the shared ones (a call's sender; a payload's kind and wallet). */
  readonly details: AuditDetails;
  /** What a simulation found, as JSON (standard requests; a call stores none). */
  readonly simulation?: string | null;
  /** The wallet the request is of, whose key seals the approval row (HeldRequestSeals). */
  readonly wallet: Wallet;
}

export interface HeldRequestsDeps {
  /** Holds the requests a hold rule matches; without it, such a request is refused. */
  readonly approvals?: ApprovalStore;
  /** Ids of new approvals. */
  readonly ids?: IdGenerator;
  readonly clock: Clock;
  readonly gate: SignPolicyGate;
  /** The wallets' keys (through their bindings' check): the held request's wallet seals its row. */
  readonly bindings: Pick<WalletBindings, 'sign'>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The approvals of requests a hold rule matches, for Sign and the standard requests alike: the hold (the
 * request stored whole with approval.requested), a repeat of it by Idempotency-Key, and the write of its
 * release. `noun` names the request in a refusal (`sign request`, `request`).
 */
export class HeldRequests {
  constructor(
    private readonly deps: HeldRequestsDeps,
    private readonly noun: string,
  ) {}

  /**
   * A repeat of a held request (same Idempotency-Key, per vault): its approval's state (pending: the
   * approval; approved: its result; rejected or expired: refused), or null when the key is unknown (or no
   * approvals are held). The same key with another request is IDEMPOTENCY_CONFLICT.
   */
  async repeated<T>(vaultId: string, key: string | undefined, body: HoldSpec['body']): Promise<T | ApprovalRequested | null> {
    const approvals = this.deps.approvals;
    if (key === undefined || approvals === undefined) return null;
    const approval = await approvals.findByIdempotencyKey(vaultId, key);
    if (approval === null) return null;
    if (!sameRequest(approval, body)) {
      throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, `Idempotency-Key: already used for another ${this.noun} of this vault (approval ${approval.id}); use a new key for a new request`);
    }
    return approvalOutcome<T>(approval, this.deps.clock.now());
  }

  /**
   * Stores the request whole as a pending approval (with approval.requested, as of `now`) and answers it:
   * nothing is signed until its quorum approves. Without an approval store, refused (recorded as `denial`).
   */
  async hold<T>(principal: Principal, decision: PolicyDecision, held: HoldSpec, key: string | undefined, denial: DenialRecord, now: Date): Promise<T | ApprovalRequested> {
    const { approvals, ids, gate } = this.deps;
    if (approvals === undefined || ids === undefined) {
      // Nothing to hold it in (a persistence of an earlier release): refusing is the only way to keep the rule.
      return gate.refuse(principal, "policy: this vault's hold rules need a persistence that holds approvals, and this one does not", denial);
    }
    const rule = { id: decision.rule!, ...decision.hold! };
    const request = canonicalJson(encodeHeld(held.body));
    const expires = new Date(now.getTime() + rule.expiresInMs);
    const id = ids.next();
    const requestHash = sha256(request);
    // Before the row is written: who asked and until when are the wallet key's word, not the database's.
    const seal = await sealHeldRequest(this.deps.bindings, held.wallet, { id, vaultId: principal.vaultId, requester: principal.apiKeyId, created: now, expires, requestHash });
    const approval: NewApproval = {
      id,
      vaultId: principal.vaultId,
      ruleId: rule.id,
      required: rule.required,
      group: rule.group ?? null,
      requester: principal.apiKeyId,
      request,
      requestHash,
      idempotencyKey: key ?? null,
      chain: held.chain,
      contract: held.contract,
      sender: held.sender,
      selector: held.selector,
      functionSignature: held.description,
      created: now,
      expires,
      ...(held.simulation === undefined ? {} : { simulation: held.simulation }),
      seal,
    };
    const requested: AuditEvent = {
      action: 'approval.requested',
      at: now,
      actor: actorOf(principal),
      vaultId: principal.vaultId,
      subject: approval.id,
      // Keys in sorted order: the canonical JSON the audit chain hashes is then the object as it is.
      details: sorted({
        approval: approval.id,
        chain: held.chain,
        contract: held.contract,
        expires: expires.toISOString(),
        function: held.description,
        group: approval.group,
        required: rule.required,
        rule: rule.id,
        selector: held.selector,
        ...held.details,
      }),
    };
    const created = await approvals.create(approval, requested);
    if (created !== null) return { approval: created };
    // The key was bound by a request that raced this one: answer as a repeat of it.
    const known = await this.repeated<T>(principal.vaultId, key, held.body);
    if (known === null) throw new DomainError(ErrorCode.CONFLICT, 'Idempotency-Key: in use by a request being stored; retry');
    return known;
  }

  /** Where approvals are held; INTERNAL without (a release is reached only through a held approval). */
  store(): ApprovalStore {
    const approvals = this.deps.approvals;
    if (approvals === undefined) throw new DomainError(ErrorCode.INTERNAL, 'approvals: this persistence holds none');
    return approvals;
  }

  /** Who signs an approved request: the key that asked, as it asked (its roles were checked then). */
  releasePrincipal(approval: Approval): Principal {
    return { apiKeyId: approval.requester, vaultId: approval.vaultId, roles: [] };
  }

  /**
   * Writes a released request's signature (`signature`, when it has a record of its own), its audit record
   * `signed`, approval.decided (with `decided` details) and the approval's `result` in one transaction,
   * only while `token` still holds the release: a signature is never handed out unrecorded, nor recorded
   * twice. CONFLICT (nothing written, `lost` saying what that means) when the claim was lost; VAULT_FROZEN
   * (nothing written) when the vault was frozen since the release's check (`fence`).
   */
  async released(
    approval: Approval,
    token: string,
    actor: string,
    at: Date,
    written: { readonly signature: SignatureRecord | null; readonly signed: AuditEvent; readonly decided?: AuditDetails; readonly result: object; readonly fence: FreezeFence | null },
    lost: string,
  ): Promise<void> {
    const approvals = this.store();
    const decided: AuditEvent = {
      action: 'approval.decided',
      at,
      actor,
      vaultId: approval.vaultId,
      subject: approval.id,
      details: { approval: approval.id, status: 'approved', ...written.decided },
    };
    const done = await approvals.release(approval.vaultId, approval.id, token, at, written.signature, JSON.stringify(written.result), [written.signed, decided], written.fence);
    if (!done) throw new DomainError(ErrorCode.CONFLICT, `approval ${approval.id}: its release was taken over, it expired, or a key whose vote made the quorum was revoked meanwhile; ${lost}`);
  }
}

function sorted(details: AuditDetails): AuditDetails {
  return Object.fromEntries(Object.entries(details).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
