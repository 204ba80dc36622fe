import type { ApiKeyRole } from '../domain/api-key-access.js';
import type { ApiKeyRecord } from '../domain/vault.js';
import type { AuditEvent } from './audit-log.port.js';

/** The hashes of a vault's API keys. Every method that writes is durable when it resolves. */
export interface ApiKeyStore {
  /** Inserts an API key record. */
  insertApiKey(key: ApiKeyRecord): Promise<void>;
  /** The API key record by its id (revoked ones included), or null. */
  findApiKey(id: string): Promise<ApiKeyRecord | null>;
  /** API keys of a vault, oldest first, revoked ones included. */
  listApiKeys(vaultId: string): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked at `now`; returns false when there is no such key. Revoking twice keeps the first time. */
  revokeApiKey(id: string, now: Date): Promise<boolean>;
  /**
   * Sets the approver address (the credential its votes are signed with) of key `id`, with `recorded` in
   * the same transaction; false (nothing written) when there is no such key.
   */
  setApproverAddress(id: string, address: string, recorded: AuditEvent): Promise<boolean>;
  /**
   * Replaces the roles of unrevoked key `id` (API_KEY_ROLES order), with `recorded` in the same
   * transaction; false (nothing written) when there is no such key or it is revoked.
   */
  setApiKeyRoles(id: string, roles: readonly ApiKeyRole[], recorded: AuditEvent): Promise<boolean>;
  /**
   * Rotation: marks key `id` replaced by `successor` until `overlapEnds`, inserts `successor`
   * and records `recorded`, in one transaction; false (nothing written) when `id` is no key, is revoked or
   * was rotated already.
   */
  rotateApiKey(id: string, successor: ApiKeyRecord, overlapEnds: Date, recorded: AuditEvent): Promise<boolean>;
  /** Records the first use of a key made by a rotation (a second call keeps the first time): it ends the old key's overlap. */
  markFirstUsed(id: string, now: Date): Promise<void>;
  /** Number of keys of the vault that are not revoked. */
  countActiveApiKeys(vaultId: string): Promise<number>;
}
