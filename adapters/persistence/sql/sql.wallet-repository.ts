import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { Account, ApiKeyRecord, Vault } from '../../../src/domain/vault.js';
import type { Wallet } from '../../../src/domain/wallet.js';
import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { IdempotencyRecord, WalletPage, WalletRepository } from '../../../src/ports/wallet-repository.port.js';
import { apiKeyAccessColumns, IDEMPOTENCY_COLUMNS, toApiKey, toIdempotency, toVault, toWallet, WALLET_COLUMNS, type ApiKeyRow, type IdempotencyRow, type VaultRow, type WalletRow } from './rows.js';
import { runAudited, type ApiKeyCache, type SqlDatabase } from './sql-database.js';

const VAULT = 'SELECT id, account_id, name, created FROM vaults';
const API_KEY = 'SELECT id, vault_id, secret_hash, created, revoked, roles, allow_cidrs, approver_group FROM api_keys';
const WALLET = `SELECT ${WALLET_COLUMNS} FROM wallets`;
const INSERT_WALLET = `INSERT INTO wallets (${WALLET_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
// The no-op update makes RETURNING give the existing row too, in one statement and one snapshot.
const ENSURE_ACCOUNT = 'INSERT INTO accounts (id, created) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET id = accounts.id RETURNING id, created';
// Takes the slot only when it is free or its holder has expired at the new record's creation. A concurrent
// claim of the same key (another connection, another instance) waits on the key until this transaction
// ends, then finds it taken (or free again, if this one rolled back).
const CLAIM_IDEMPOTENCY = `INSERT INTO idempotency_records (${IDEMPOTENCY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (vault_id, key) DO UPDATE SET
    request_hash = EXCLUDED.request_hash, response = EXCLUDED.response, created = EXCLUDED.created, expires = EXCLUDED.expires
  WHERE idempotency_records.expires <= EXCLUDED.created`;
const FIND_IDEMPOTENCY = `SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_records WHERE vault_id = $1 AND key = $2 AND expires > $3`;
const DELETE_EXPIRED_IDEMPOTENCY = `DELETE FROM idempotency_records WHERE (vault_id, key) IN (
  SELECT vault_id, key FROM idempotency_records WHERE expires <= $1 ORDER BY expires LIMIT $2)`;
// Row-locked compare-and-set: of two concurrent writers, the second re-checks the version after the
// first commits and changes nothing.
const UPDATE_WALLET = `UPDATE wallets SET name = $2, updated = $3, expires = $4, key_store = $5, key_ref = $6, version = $7
  WHERE id = $1 AND version = $7 - 1`;

const walletValues = (w: Wallet): unknown[] => [w.id, w.accountId, w.vaultId, w.name, w.address, w.keyStore, w.keyRef, w.created, w.updated, w.expires, w.version];

/**
 * Accounts, vaults, API keys, wallets and idempotency records, written once for every SQL database (see
 * SqlDatabase for what each database does its own way). Concurrency rests on the database: the version
 * compare-and-set is one UPDATE, the idempotency claim and its wallet are one transaction.
 */
export class SqlWalletRepository implements WalletRepository {
  constructor(
    private readonly db: SqlDatabase,
    /** Answers authentication's lookups from memory (default: the database's own, if it has one). */
    private readonly apiKeys: ApiKeyCache | undefined = db.apiKeyCache,
  ) {}

  private async one<R>(sql: string, params: readonly unknown[]): Promise<R | undefined> {
    return (await this.db.all<R>(sql, params))[0];
  }

  private async wallets(sql: string, params: readonly unknown[]): Promise<Wallet[]> {
    return (await this.db.all<WalletRow<unknown>>(sql, params)).map((r) => toWallet(r, this.db.instant));
  }

  async ensureAccount(id: string, now: Date): Promise<Account> {
    const row = (await this.one<{ id: string; created: unknown }>(ENSURE_ACCOUNT, [id, now]))!;
    return { id: row.id, created: this.db.instant(row.created) };
  }

  async insertVault(vault: Vault): Promise<void> {
    await this.db.run('INSERT INTO vaults (id, account_id, name, created) VALUES ($1, $2, $3, $4)', [vault.id, vault.accountId, vault.name, vault.created]);
  }

  async findVault(id: string): Promise<Vault | null> {
    const row = await this.one<VaultRow<unknown>>(`${VAULT} WHERE id = $1`, [id]);
    return row ? toVault(row, this.db.instant) : null;
  }

  async listVaults(): Promise<Vault[]> {
    return (await this.db.all<VaultRow<unknown>>(`${VAULT} ORDER BY created, id`)).map((r) => toVault(r, this.db.instant));
  }

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await this.db.run('INSERT INTO api_keys (id, vault_id, secret_hash, created, revoked, roles, allow_cidrs, approver_group) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
      key.id,
      key.vaultId,
      key.secretHash,
      key.created,
      key.revoked,
      ...apiKeyAccessColumns(key),
    ]);
    this.apiKeys?.forget?.();
  }

  /** Read on every request (authentication): see the ApiKeyCache for why a revocation is seen at once. */
  findApiKey(id: string): Promise<ApiKeyRecord | null> {
    return this.apiKeys ? this.apiKeys.find(id, this.readApiKey) : this.readApiKey(id);
  }

  private readonly readApiKey = async (id: string): Promise<ApiKeyRecord | null> => {
    const row = await this.one<ApiKeyRow<unknown>>(`${API_KEY} WHERE id = $1`, [id]);
    return row ? toApiKey(row, this.db.instant) : null;
  };

  async listApiKeys(vaultId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db.all<ApiKeyRow<unknown>>(`${API_KEY} WHERE vault_id = $1 ORDER BY created, id`, [vaultId]);
    return rows.map((r) => toApiKey(r, this.db.instant));
  }

  async revokeApiKey(id: string, now: Date): Promise<boolean> {
    // PostgreSQL's trigger (migration 4) also announces the update to every instance's cache.
    const changed = await this.db.run('UPDATE api_keys SET revoked = COALESCE(revoked, $1) WHERE id = $2', [now, id]);
    this.apiKeys?.forget?.();
    return changed > 0;
  }

  async countActiveApiKeys(vaultId: string): Promise<number> {
    const row = await this.one<{ n: number | string }>('SELECT count(*) AS n FROM api_keys WHERE vault_id = $1 AND revoked IS NULL', [vaultId]);
    return Number(row!.n);
  }

  async insertWallet(wallet: Wallet, idempotency?: IdempotencyRecord): Promise<void> {
    if (!idempotency) {
      await this.db.run(INSERT_WALLET, walletValues(wallet));
      return;
    }
    if (idempotency.vaultId !== wallet.vaultId) throw new Error('idempotency record of another vault');
    const i = idempotency;
    await this.db.transaction(async (tx) => {
      if ((await tx.run(CLAIM_IDEMPOTENCY, [i.vaultId, i.key, i.requestHash, i.response, i.created, i.expires])) === 0) {
        // Thrown inside the transaction, so it rolls back and nothing is written.
        throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, `Idempotency-Key ${JSON.stringify(i.key)} is already in use`);
      }
      await tx.run(INSERT_WALLET, walletValues(wallet));
    });
  }

  async findIdempotency(vaultId: string, key: string, now: Date): Promise<IdempotencyRecord | null> {
    const row = await this.one<IdempotencyRow<unknown>>(FIND_IDEMPOTENCY, [vaultId, key, now]);
    return row ? toIdempotency(row, this.db.instant) : null;
  }

  deleteExpiredIdempotency(now: Date, limit: number): Promise<number> {
    return this.db.run(DELETE_EXPIRED_IDEMPOTENCY, [now, limit]);
  }

  async findWallet(vaultId: string, address: string, now: Date): Promise<Wallet | null> {
    const [wallet] = await this.wallets(`${WALLET} WHERE vault_id = $1 AND address = $2 AND (expires IS NULL OR expires > $3)`, [vaultId, address, now]);
    return wallet ?? null;
  }

  listWallets(vaultId: string, now: Date, offset: number, limit: number): Promise<WalletPage> {
    return this.db.walletPages.list(vaultId, now, offset, limit);
  }

  countWallets(vaultId: string, now: Date): Promise<number> {
    return this.db.walletPages.count(vaultId, now);
  }

  updateWallet(wallet: Wallet, recorded?: AuditEvent): Promise<boolean> {
    const w = wallet;
    return runAudited(this.db, UPDATE_WALLET, [w.id, w.name, w.updated, w.expires, w.keyStore, w.keyRef, w.version], recorded);
  }

  findExpired(now: Date, limit: number): Promise<Wallet[]> {
    return this.wallets(`${WALLET} WHERE expires IS NOT NULL AND expires <= $1 ORDER BY expires, id LIMIT $2`, [now, limit]);
  }

  async markDeleted(id: string, now: Date): Promise<boolean> {
    return (await this.db.run('UPDATE wallets SET version = version + 1 WHERE id = $1 AND expires IS NOT NULL AND expires <= $2', [id, now])) === 1;
  }

  async removeWallet(id: string, deleted?: AuditEvent): Promise<void> {
    await runAudited(this.db, 'DELETE FROM wallets WHERE id = $1', [id], deleted);
  }

  async findRecord(id: string): Promise<Wallet | null> {
    const [wallet] = await this.wallets(`${WALLET} WHERE id = $1`, [id]);
    return wallet ?? null;
  }

  listByKeyStore(keyStore: string, afterId: string | null, limit: number): Promise<Wallet[]> {
    return this.wallets(`${WALLET} WHERE key_store = $1 AND id > $2 ORDER BY id LIMIT $3`, [keyStore, afterId ?? '', limit]);
  }

  async keyRefInUse(keyStore: string, keyRef: string): Promise<boolean> {
    return (await this.db.all('SELECT 1 FROM wallets WHERE key_store = $1 AND key_ref = $2 LIMIT 1', [keyStore, keyRef])).length > 0;
  }

  ping(): Promise<void> {
    return this.db.ping();
  }

  async close(): Promise<void> {
    // The connection is shared with the other adapters; whoever opened it closes it.
  }
}
