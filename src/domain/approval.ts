import type { ApiKeyRole } from './api-key-access.js';
import { readHeldJson, unreadableHeld, versionedHeld, type HeldFields, type StandardHeld } from './signing/held-request.js';
import { CALL_KIND, type CallHeld } from './signing/kinds/call/call.kind.js';
import { REGISTERED_SIGNING_KINDS, type RegisteredSigningKind, type SigningKindName, type StandardKindName } from './signing/kinds/registered-signing-kinds.js';

/** Who may read approvals: the keys that ask (signer), read (reader) or vote (approver). */
export const APPROVAL_READERS: readonly ApiKeyRole[] = ['signer', 'reader', 'approver'];

/** Where a held sign stands: waiting for its quorum, signed, refused by a vote, or past its expiry. */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export type ApprovalVoteKind = 'approve' | 'reject';

export interface ApprovalVote {
  /** The voting key's id (never its value). */
  readonly apiKeyId: string;
  readonly vote: ApprovalVoteKind;
  readonly at: Date;
  /**
   * The EIP-712 `Decision` signature the vote came with (0x, 65 bytes); null or absent: a vote of a key
   * without credential. Kept so that the release, and anyone reading the approval, can verify it again.
   */
  readonly signature?: string | null;
}

/**
 * A sign held for a quorum: the request exactly as asked (canonical JSON of the Sign command's fields),
 * what the rule asks, the votes so far and, once approved, the Sign result.
 */
export interface Approval {
  readonly id: string;
  readonly vaultId: string;
  /** As stored: a pending approval past `expires` is expired for every purpose (effectiveStatus). */
  readonly status: ApprovalStatus;
  /** The policy's approval rule that held the sign (`a1`, ...). */
  readonly ruleId: string;
  readonly required: number;
  /** Only votes of approver keys of this group count; null: any approver key of the vault. */
  readonly group: string | null;
  /**
   * Approve votes that count as the approval is read: of keys still unrevoked, still holding approver and
   * of `group`. A vote of a key revoked since counts for nothing (`votes` still lists it).
   */
  readonly approvals: number;
  /** The requesting API key's id: it can never vote on its own request. */
  readonly requester: string;
  /**
   * The request as canonical JSON: a Sign command's fields (chain, contract, sender, abi, args, uniq?,
   * signer?), or a standard request `{"kind", "address", <its requestField>}`,
   * with the `version` of its kind's codec (absent in rows held before versions: version 1). Read it with
   * heldRequestOf or heldOfKind, never as it is.
   */
  readonly request: string;
  /** sha256 of `request`: what an Idempotency-Key repeat is compared with. */
  readonly requestHash: string;
  readonly idempotencyKey: string | null;
  readonly chain: string;
  readonly contract: string;
  readonly sender: string;
  readonly selector: string;
  /**
   * The canonical signature of the function (`transfer(address,uint256,(bytes32,bytes32,bytes32,uint8))`);
   * for a standard request a description: `message`, `typed-data Permit`, `transaction`.
   */
  readonly functionSignature: string;
  readonly created: Date;
  readonly expires: Date;
  /** When it was approved, rejected or marked expired. */
  readonly decided: Date | null;
  readonly votes: readonly ApprovalVote[];
  /**
   * The result once approved, as JSON text: Sign's `{"submissionHash", "args"}`, a message's or typed
   * data's `{"signature"}`, a transaction's `{"serialized", "hash"}`.
   */
  readonly result: string | null;
  /**
   * What the simulation of a held transaction found when it was held, as JSON text:
   * `{"chain", "method", "nativeOutflow"?, "tokenOutflow"?}` (outflows as decimal strings), shown to its
   * approvers; null when it was not simulated (no RPC for its chain, a rule's `simulate: false`, not a
   * transaction). It ran again at the release, on the chain as it is then.
   */
  readonly simulation?: string | null;
  /**
   * The held request's seal (0x, 65 bytes): its wallet's signature, made when it was held, over the row's
   * id, vault, requester, created, expires and requestHash (heldRequestSealDigest). Null: a request held by
   * a release before seals, which is never released (docs/security.md). Absent: a persistence of an
   * earlier release.
   */
  readonly seal?: string | null;
  /**
   * Why the last release attempt of this pending request, its quorum reached, signed nothing (a limit still
   * full, a freeze, governance that does not verify, a simulation that reverts, a sealed vault); null when
   * none failed so or the release succeeded since. Absent: a persistence of an earlier release.
   */
  readonly blockedBy?: ApprovalBlock | null;
}

/** What kind of refusal left a request with its quorum pending (releaseBlockOf classifies it by its ErrorCode). */
export type ApprovalBlockReason = 'limit' | 'freeze' | 'governance' | 'simulation' | 'sealed';

/** A release's refusal as recorded on the approval: the reason, the error's stable code and message, and when. */
export interface ApprovalBlock {
  readonly reason: ApprovalBlockReason;
  readonly code: string;
  readonly message: string;
  readonly at: Date;
}

/**
 * What a held request is: one of the registered signing kinds (a Sign call, or a standard payload of a
 * wallet). Stored in the request itself (a standard request's canonical JSON carries `"kind"`; a Sign
 * call's fields have none).
 */
export type ApprovalKind = SigningKindName;

/** A held request's kind, as its fields say: a standard payload's `kind`, else a Sign call (whose fields have none). */
export function kindOfHeld(fields: HeldFields): RegisteredSigningKind {
  const kind = fields.kind;
  return REGISTERED_SIGNING_KINDS.find((k) => k.standard && k.name === kind) ?? CALL_KIND;
}

/** The kind of the request an approval holds (no column of its own: its request says it). */
export function approvalKind(approval: Pick<Approval, 'request'>): ApprovalKind {
  return kindOfHeld(readHeldJson(approval.request).fields).name;
}

/** What an approval holds: its kind and the request as that kind's codec reads it (checked, any stored version). */
export type HeldRequestOf = { readonly kind: typeof CALL_KIND.name; readonly held: CallHeld } | { readonly kind: StandardKindName; readonly held: StandardHeld };

export function heldRequestOf(approval: Pick<Approval, 'request'>): HeldRequestOf {
  const { version, fields } = readHeldJson(approval.request);
  const kind = kindOfHeld(fields);
  return { kind: kind.name, held: kind.held.decode(fields, version) } as HeldRequestOf;
}

/** The request an approval of `kind` holds, as its release reads it; unreadableHeld() when it holds another kind. */
export function heldOfKind<K extends RegisteredSigningKind>(kind: K, approval: Pick<Approval, 'request'>): ReturnType<K['held']['decode']> {
  const { version, fields } = readHeldJson(approval.request);
  const held = kindOfHeld(fields);
  if (held !== kind) throw unreadableHeld(`it holds a ${held.name}, not a ${kind.name}`);
  return kind.held.decode(fields, version) as ReturnType<K['held']['decode']>;
}

/** A kind's request as an approval stores it: the kind's fields and the version of its codec (canonical JSON of this). */
export function encodeHeld(fields: HeldFields): Readonly<Record<string, unknown>> {
  return versionedHeld(fields, kindOfHeld(fields).held.version);
}

const APPROVAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether path text can name an approval at all (ids are UUIDs): anything else names none, answered
 * without asking a database (PostgreSQL refuses a NUL in text with an error of its own).
 */
export const isWellFormedApprovalId = (id: string): boolean => id.length === 36 && APPROVAL_ID.test(id);

/** The status as every read reports it: pending turns expired at `expires`, whether or not the job has marked it. */
export function effectiveStatus(approval: Pick<Approval, 'status' | 'expires'>, now: Date): ApprovalStatus {
  return approval.status === 'pending' && approval.expires.getTime() <= now.getTime() ? 'expired' : approval.status;
}
