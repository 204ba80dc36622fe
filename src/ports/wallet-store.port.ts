import type { Wallet } from '../domain/wallet.js';
import type { AuditEvent } from './audit-log.port.js';
import type { IdempotencyRecord } from './idempotency-store.port.js';

/** One key export as kept: who, what and to which recipient key (its fingerprint), never the key. */
export interface KeyExportRecord {
  readonly id: string;
  readonly vaultId: string;
  readonly kind: 'wallet' | 'hd-seed';
  /** The wallet exported (kind `wallet`); null for the seed. */
  readonly walletId: string | null;
  /** The recipient key's fingerprint (`sha256:<hex>`). */
  readonly recipient: string;
  /** The governed export entry carried out (once), or null on an ungoverned vault. */
  readonly authorization: string | null;
  readonly actor: string;
  readonly at: Date;
}

export interface WalletPage {
  /** Total wallets of the vault that are not deleted at `now`. */
  readonly count: number;
  readonly page: Wallet[];
}

/**
 * Wallet records. Every method that writes is durable when it resolves. Reads that take `now` treat a
 * wallet whose `expires` is at or before `now` as deleted.
 */
export interface WalletStore {
  /**
   * Inserts a wallet; the address is unique across the whole repository. With `idempotency`, its record
   * is written in the same transaction: both or neither (`idempotency.vaultId` must be `wallet.vaultId`).
   * When a record for the same (vaultId, key) exists that has not expired at `idempotency.created`,
   * nothing is written and the promise rejects with a DomainError IDEMPOTENCY_CONFLICT, whatever its
   * request hash (the caller re-reads it with findIdempotency and compares); an expired one is replaced.
   */
  insertWallet(wallet: Wallet, idempotency?: IdempotencyRecord): Promise<void>;
  /**
   * The next HD derivation index of the vault (0 first), reserved durably before it resolves: never
   * handed out again, even when the wallet it was for is never written.
   */
  reserveDerivationIndex(vaultId: string): Promise<number>;
  /**
   * Records a key export (docs/keystores.md#key-export) and marks what it exposed `exported` at `at`, in one
   * transaction with `recorded` chained: the wallet `walletId`, or (kind `hd-seed`) the vault's seed and
   * every wallet derived from it. A mark already set is kept (the first export's time, for ever). With an
   * `authorization` (a governed proposal's export entry), false when that entry was already carried out:
   * nothing is written then.
   */
  recordExport(record: KeyExportRecord, recorded: AuditEvent): Promise<boolean>;
  /** When the vault's HD seed was first exported, or null: a wallet derived from it later is exported from its creation. */
  seedExported(vaultId: string): Promise<Date | null>;
  /** The wallet with this checksummed address in this vault, unless deleted at `now`. */
  findWallet(vaultId: string, address: string, now: Date): Promise<Wallet | null>;
  /**
   * The wallet record with this checksummed address in any vault, deleted or not (the address is unique
   * across the repository until the record is removed), or null: what a key import asks before it stores a key.
   */
  findWalletByAddress(address: string): Promise<Wallet | null>;
  /** Wallets of a vault ordered by `created` then `id`, skipping deleted ones. */
  listWallets(vaultId: string, now: Date, offset: number, limit: number): Promise<WalletPage>;
  /** Number of wallets of the vault that are not deleted at `now`. */
  countWallets(vaultId: string, now: Date): Promise<number>;
  /**
   * Writes `wallet` if the stored version is still `wallet.version - 1`; returns false on a lost race
   * (the caller re-reads and retries). The new record carries `wallet.version`. With `recorded`, that
   * audit event is chained in the same transaction as the write, and only when the write wins: the change
   * and its record are durable together or not at all (an event the audit log refuses writes nothing).
   */
  updateWallet(wallet: Wallet, recorded?: AuditEvent): Promise<boolean>;

  /** Up to `limit` wallets (deleted or marked) whose expiry is at or before `now`, oldest expiry first. */
  findExpired(now: Date, limit: number): Promise<Wallet[]>;
  /**
   * Claims an expired wallet for the purge, in one conditional write: true when the record is still
   * expired at `now` (`expires <= now`), false when it is not (unexpired since it was found) or gone.
   * The claim moves `version` on, so a change read before it (an unexpire racing the expiry instant)
   * loses its compare-and-set and re-reads a deleted wallet; a wallet unexpired first is not claimed.
   */
  markDeleted(id: string, now: Date): Promise<boolean>;
  /**
   * Removes the wallet record for good; removing one that is gone succeeds. With `deleted`, that audit
   * event is chained in the same transaction, only when this call removed the record: the removal and its
   * record are durable together or not at all, and a second removal records nothing.
   */
  removeWallet(id: string, deleted?: AuditEvent): Promise<void>;
  /** The wallet record with this id, deleted or not, or null once removed. */
  findRecord(id: string): Promise<Wallet | null>;
  /** Wallet records (deleted ones included) whose keys live in `keyStore`, by id after `afterId`, at most `limit`. */
  listByKeyStore(keyStore: string, afterId: string | null, limit: number): Promise<Wallet[]>;
  /** Whether any wallet record (deleted or not) names this key. */
  keyRefInUse(keyStore: string, keyRef: string): Promise<boolean>;
  /**
   * Wallet records (deleted ones included) with no binding, of `vaultId` when given, by id after
   * `afterId`, at most `limit`: what the upgrade, or an operator, binds (BindWallets).
   */
  listUnbound(query: { readonly vaultId?: string; readonly afterId: string | null; readonly limit: number }): Promise<Wallet[]>;
  /**
   * Whether the wallets of a release before bindings still wait for the upgrade to bind them: the marker
   * the migration that added bindings leaves (only where it found wallets), until finishBindingUpgrade.
   */
  bindingUpgradePending(): Promise<boolean>;
  /** Removes that marker, durably: from then on an unbound wallet is bound only by an operator. */
  finishBindingUpgrade(): Promise<void>;
}
