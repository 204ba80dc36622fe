import type { AuditEvent } from './audit-log.port.js';

/** A key of this deployment that no wallet names, kept (never signing) until an operator decides. */
export interface QuarantinedKey {
  readonly keyStore: string;
  readonly keyRef: string;
  /** Lower-case hex address of the key. */
  readonly address: string;
  /** The vault the store says the key was created for, or null when it does not record one. */
  readonly vaultId: string | null;
  readonly quarantined: Date;
}

/**
 * This deployment's identity and its quarantined keys, in the database. The deployment id is created
 * once, with the database (a migration gives one to a database created by an older release); a backup
 * restored keeps it, a new database gets another. Every write is durable when it resolves.
 */
export interface KeyQuarantine {
  /** The id recorded on every key this deployment creates. */
  deploymentId(): Promise<string>;
  /**
   * Records `key`; false (and nothing written) when this store's key is already quarantined. With
   * `quarantined`, that audit event is chained in the same transaction, only when the key was added: held
   * and recorded together or not at all, and recorded once however often it is added.
   */
  add(key: QuarantinedKey, quarantined?: AuditEvent): Promise<boolean>;
  /** Whether this store's key is quarantined. */
  has(keyStore: string, keyRef: string): Promise<boolean>;
  /** Every quarantined key, oldest quarantine first. */
  list(): Promise<QuarantinedKey[]>;
  /**
   * Forgets the key's quarantine; forgetting one that is not there succeeds. With `recorded`, that audit
   * event is chained in the same transaction, only when this call removed the key (as `add`'s).
   */
  remove(keyStore: string, keyRef: string, recorded?: AuditEvent): Promise<void>;
}
