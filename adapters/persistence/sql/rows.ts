import { parseCidrs, parseRoles } from '../../../src/domain/api-key-access.js';
import type { ApiKeyRecord, Vault } from '../../../src/domain/vault.js';
import type { Wallet } from '../../../src/domain/wallet.js';
import type { AuditAction, AuditRecord } from '../../../src/ports/audit-log.port.js';
import type { SignatureRecord } from '../../../src/ports/signature-log.port.js';
import type { IdempotencyRecord } from '../../../src/ports/wallet-repository.port.js';

// The SQL databases share one schema shape; only the type of an instant differs (SQLite: milliseconds,
// PostgreSQL: timestamptz read as Date). Rows are typed over it and mapped to the domain in one place.

export interface WalletRow<T> {
  id: string;
  account_id: string;
  vault_id: string;
  name: string;
  address: string;
  key_store: string;
  key_ref: string;
  created: T;
  updated: T;
  expires: T | null;
  version: number;
}
export interface ApiKeyRow<T> {
  id: string;
  vault_id: string;
  secret_hash: string;
  created: T;
  revoked: T | null;
  /** Comma-separated roles (API_KEY_ROLES). */
  roles: string;
  /** Comma-separated CIDR ranges; null: from anywhere. */
  allow_cidrs: string | null;
  /** The approver group (issue 25); null: none. */
  approver_group?: string | null;
}
export interface VaultRow<T> {
  id: string;
  account_id: string;
  name: string;
  created: T;
}
export interface SignatureRow<T> {
  submission_hash: string;
  vault_id: string;
  wallet_id: string;
  wallet_address: string;
  chain: string;
  contract: string;
  sender: string;
  selector: string;
  created: T;
  transaction_hash: string | null;
  submitted: T | null;
}
export interface IdempotencyRow<T> {
  vault_id: string;
  key: string;
  request_hash: string;
  response: string;
  created: T;
  expires: T;
}
export interface AuditRow<T> {
  seq: number | string;
  at: T;
  actor: string;
  vault_id: string | null;
  subject: string | null;
  action: string;
  /** JSON text (SQLite) or jsonb already parsed (PostgreSQL). */
  details: string | AuditRecord['details'];
  prev_hash: string;
  hash: string;
}

/** Reads an instant as the database stores it. */
export type InstantDecoder<T> = (value: T) => Date;
export const fromMillis: InstantDecoder<number> = (ms) => new Date(ms);
export const asDate: InstantDecoder<Date> = (d) => d;

const opt = <T>(value: T | null, at: InstantDecoder<T>): Date | null => (value === null ? null : at(value));

export const WALLET_COLUMNS = 'id, account_id, vault_id, name, address, key_store, key_ref, created, updated, expires, version';
export const SIGNATURE_COLUMNS =
  'submission_hash, vault_id, wallet_id, wallet_address, chain, contract, sender, selector, created, transaction_hash, submitted';

export const toWallet = <T>(r: WalletRow<T>, at: InstantDecoder<T>): Wallet => ({
  id: r.id,
  accountId: r.account_id,
  vaultId: r.vault_id,
  name: r.name,
  address: r.address,
  keyStore: r.key_store,
  keyRef: r.key_ref,
  created: at(r.created),
  updated: at(r.updated),
  expires: opt(r.expires, at),
  version: r.version,
});
export const toApiKey = <T>(r: ApiKeyRow<T>, at: InstantDecoder<T>): ApiKeyRecord => ({
  id: r.id,
  vaultId: r.vault_id,
  secretHash: r.secret_hash,
  created: at(r.created),
  revoked: opt(r.revoked, at),
  roles: parseRoles(r.roles),
  allowCidrs: r.allow_cidrs === null ? null : parseCidrs(r.allow_cidrs),
  ...(r.approver_group ? { group: r.approver_group } : {}),
});
/** The columns `roles`, `allow_cidrs` and `approver_group` of a record, as toApiKey reads them. */
export const apiKeyAccessColumns = (key: ApiKeyRecord): [string, string | null, string | null] => [
  key.roles.join(','),
  key.allowCidrs === null ? null : key.allowCidrs.map((c) => c.text).join(','),
  key.group ?? null,
];
export const toVault = <T>(r: VaultRow<T>, at: InstantDecoder<T>): Vault => ({ id: r.id, accountId: r.account_id, name: r.name, created: at(r.created) });
export const toSignatureRecord = <T>(r: SignatureRow<T>, at: InstantDecoder<T>): SignatureRecord => ({
  submissionHash: r.submission_hash,
  vaultId: r.vault_id,
  walletId: r.wallet_id,
  walletAddress: r.wallet_address,
  chain: r.chain,
  contract: r.contract,
  sender: r.sender,
  selector: r.selector,
  created: at(r.created),
  transactionHash: r.transaction_hash,
  submitted: opt(r.submitted, at),
});
export const IDEMPOTENCY_COLUMNS = 'vault_id, key, request_hash, response, created, expires';
export const toIdempotency = <T>(r: IdempotencyRow<T>, at: InstantDecoder<T>): IdempotencyRecord => ({
  vaultId: r.vault_id,
  key: r.key,
  requestHash: r.request_hash,
  response: r.response,
  created: at(r.created),
  expires: at(r.expires),
});

export const AUDIT_COLUMNS = 'seq, at, actor, vault_id, subject, action, details, prev_hash, hash';
export const toAuditRecord = <T>(r: AuditRow<T>, at: InstantDecoder<T>): AuditRecord => ({
  seq: Number(r.seq),
  at: at(r.at),
  actor: r.actor,
  vaultId: r.vault_id,
  subject: r.subject,
  action: r.action as AuditAction,
  details: typeof r.details === 'string' ? (JSON.parse(r.details) as AuditRecord['details']) : r.details,
  prevHash: r.prev_hash,
  hash: r.hash,
});
