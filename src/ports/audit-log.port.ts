import type { FreezeFence } from './freeze-fence.js';
/** Every security-relevant event the service records. */
export const AUDIT_ACTIONS = [
  'vault.created',
  'api-key.created',
  'api-key.revoked',
  'auth.refused',
  'wallet.created',
  'wallet.renamed',
  'wallet.expired',
  'wallet.unexpired',
  'wallet.deleted',
  'signature.issued',
  'sign.denied',
  // Standard signing (src/application/signing/standard-signing.ts): an EIP-191 message, EIP-712 typed data, a transaction.
  'sign.message',
  'sign.typed-data',
  'sign.transaction',
  'policy.changed',
  // Webhooks (docs/webhooks.md): an endpoint added or removed by the operator.
  'webhook.changed',
  'key.quarantined',
  'key.restored',
  'key.destroyed',
  // Key import: a wallet made of a key the operator brought (`wallet-vault keys import`).
  'key.imported',
  // Key export: a wallet's key or a vault's HD seed encrypted to a recipient's public key (`wallet-vault keys export`).
  'key.exported',
  // Approvals: a sign held for a quorum, each vote, and how it ended (approved, rejected, expired).
  'approval.requested',
  'approval.voted',
  'approval.decided',
  // Governance (docs/governance.md): a vault made governed, proposals, their signed votes, what
  // was applied, a state that did not verify; freezes and their lifting.
  'governance.set',
  'governance.proposed',
  'governance.voted',
  'governance.applied',
  'governance.unverified',
  'vault.frozen',
  'vault.unfrozen',
  // Operator actions outside the vaults' data: the local master key rotated, a store's keys
  // re-wrapped, the database's schema migrated; and the signed checkpoints of the chain's head.
  'master-key.rotated',
  'keys.rewrapped',
  'schema.migrated',
  'audit.checkpoint',
  // Signed decisions: a credential attached to an approver key, and votes the release found
  // without a valid signature of their key's credential (counted for nothing, the approval left pending).
  'api-key.credential-set',
  'approval.vote-invalid',
  // API keys with a lifecycle: a key replaced by a new one, the old one working for an overlap.
  'api-key.rotated',
  // A key's roles changed by an operator (on a governed vault: a proposal, recorded as governance.proposed).
  'api-key.roles-changed',
  // EIP-7702: an authorization delegating a wallet's account to a contract's code.
  'sign.authorization',
  // The approvers' console (docs/console.md): an invite made, an approver enrolled with a passkey,
  // a console session started (passkey sign-in or enrolment) and ended (signed out).
  'approver.invited',
  'approver.enrolled',
  'approver.session-started',
  'approver.session-ended',
  // Wallet bindings (docs/security.md, "What a database writer can change"): a wallet's key bound to its
  // vault (by the upgrade, for a wallet of an earlier release, or by an operator), and a signature refused
  // because the wallet's row no longer matches what its key was bound to.
  'wallet.bound',
  'wallet.binding-invalid',
  // Rows a database writer removed that this instance counted (a sign limit's counts, a vault's freezes):
  // the refusal that follows is recorded too.
  'records.missing',
  // The seal (VAULT_SEAL=shamir, docs/keystores.md#sealed-start): the master key split into custodians'
  // shares (and split anew from the threshold of them), each share submitted (accepted or refused, never
  // the share itself), the unseal, the seal.
  'master-key.split',
  'master-key.resplit',
  'seal.share-accepted',
  'seal.share-refused',
  'seal.unsealed',
  'seal.sealed',
  // Backups (docs/operations.md#backup-and-restore): one written (what it holds, never a key), and one
  // restored into an empty database (the backup's audit head, which the restored chain continues).
  'backup.created',
  'backup.restored',
  // Named operators (docs/operators.md): one made with its credential, one revoked, one signed in through
  // the identity provider (OpenID Connect).
  'operator.created',
  'operator.revoked',
  'operator.signed-in',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Scalars only, so the canonical form that is hashed is unambiguous. */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null>>;

/** One event as the application reports it. Never carries key material, API keys or secrets. */
export interface AuditEvent {
  readonly action: AuditAction;
  readonly at: Date;
  /** Who did it: `api-key:<id>` (the key's id, never its value), `operator:<name>` (a named operator), `operator` (the local CLI, break-glass) or `system` (jobs). */
  readonly actor: string;
  /** The vault concerned, or null (an authentication refused before any vault was established). */
  readonly vaultId: string | null;
  /** What it was done to: a wallet address, an API key id, a submission hash; or null. */
  readonly subject: string | null;
  readonly details: AuditDetails;
}

/** An event as stored: numbered, and chained to the record before it. */
export interface AuditRecord extends AuditEvent {
  /** 1, 2, 3 ... with no gaps. */
  readonly seq: number;
  /** `hash` of record seq-1; 64 zeros for the first record. */
  readonly prevHash: string;
  /** auditRecordHash(seq, prevHash, event) (src/domain/audit-chain.ts), lower-case hex. */
  readonly hash: string;
}

/**
 * An append-only, hash-chained trail. Appends from every instance sharing the store form one chain;
 * the adapter serialises them (the chain head is read and extended atomically).
 */
export interface AuditLog {
  /**
   * Appends the event durably (numbered and chained) before resolving. An event that assertAuditEvent
   * (src/domain/audit-chain.ts) refuses is rejected and nothing is written; concurrent appends of other
   * events are not affected. What is stored is the event as it was when `append` was called. With
   * `fence` (a signing record), refused with VAULT_FROZEN, nothing written, when the vault was frozen since.
   */
  append(event: AuditEvent, fence?: FreezeFence | null): Promise<void>;
  /**
   * Records in `seq` order after `afterSeq` (0 for the start), at most `limit`, optionally of one vault
   * only. `seq` numbers the whole chain, also with `vaultId`: the next page starts after the last seq seen.
   */
  list(query: { readonly afterSeq: number; readonly limit: number; readonly vaultId?: string }): Promise<AuditRecord[]>;
}
