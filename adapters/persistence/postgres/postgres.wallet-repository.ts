import type { Account, ApiKeyRecord, Vault } from '../../../src/domain/vault.js';
import type { Wallet } from '../../../src/domain/wallet.js';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { IdempotencyRecord, WalletPage, WalletRepository } from '../../../src/ports/wallet-repository.port.js';
import {
  asDate,
  IDEMPOTENCY_COLUMNS,
  toIdempotency,
  type IdempotencyRow,
  toApiKey, toVault, toWallet as fromRow, WALLET_COLUMNS, type ApiKeyRow, type VaultRow, type WalletRow as Row,
} from '../shared/rows.js';
import type { PostgresApiKeyCache } from './postgres.api-key-cache.js';
import type { PostgresDatabase } from './postgres.database.js';

type WalletRow = Row<Date>;
const toWallet = (r: WalletRow) => fromRow(r, asDate);

const W = (alias: string) => WALLET_COLUMNS.split(', ').map((c) => `${alias}.${c}`).join(', ');
/** Visible at $2 (the caller's `now`): not expired at that instant. */
const VISIBLE = '(expires IS NULL OR expires > $2)';

export const walletValues = (w: Wallet): unknown[] => [
  w.id,
  w.accountId,
  w.vaultId,
  w.name,
  w.address,
  w.keyStore,
  w.keyRef,
  w.created,
  w.updated,
  w.expires,
  w.version,
];
export const INSERT_WALLET = `INSERT INTO wallets (${WALLET_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;

/**
 * Wallets, vaults and API keys in PostgreSQL, shared by every instance. Concurrency rests on the
 * database: the version compare-and-set is one UPDATE (a second writer waits for the first, then finds
 * the version moved and changes nothing), and a page is read with its total in one statement, so both
 * come from one snapshot while other instances create.
 */
export class PostgresWalletRepository implements WalletRepository {
  constructor(
    private readonly db: PostgresDatabase,
    /** Answers authentication's lookups from memory, invalidated by the database's push (optional). */
    private readonly apiKeys?: PostgresApiKeyCache,
  ) {}

  async ensureAccount(id: string, now: Date): Promise<Account> {
    // The no-op update makes RETURNING give the existing row too, in one round trip and one snapshot.
    const { rows } = await this.db.query<{ id: string; created: Date }>(
      `INSERT INTO accounts (id, created) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET id = accounts.id RETURNING id, created`,
      [id, now],
    );
    return { id: rows[0]!.id, created: rows[0]!.created };
  }

  async insertVault(vault: Vault): Promise<void> {
    await this.db.query('INSERT INTO vaults (id, account_id, name, created) VALUES ($1, $2, $3, $4)', [
      vault.id,
      vault.accountId,
      vault.name,
      vault.created,
    ]);
  }

  async findVault(id: string): Promise<Vault | null> {
    const { rows } = await this.db.query<VaultRow<Date>>('SELECT id, account_id, name, created FROM vaults WHERE id = $1', [id]);
    return rows[0] ? toVault(rows[0], asDate) : null;
  }

  async listVaults(): Promise<Vault[]> {
    const { rows } = await this.db.query<VaultRow<Date>>('SELECT id, account_id, name, created FROM vaults ORDER BY created, id');
    return rows.map((r) => toVault(r, asDate));
  }

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await this.db.query('INSERT INTO api_keys (id, vault_id, secret_hash, created, revoked) VALUES ($1, $2, $3, $4, $5)', [
      key.id,
      key.vaultId,
      key.secretHash,
      key.created,
      key.revoked,
    ]);
  }

  findApiKey(id: string): Promise<ApiKeyRecord | null> {
    return this.apiKeys ? this.apiKeys.find(id, (key) => this.readApiKey(key)) : this.readApiKey(id);
  }

  private async readApiKey(id: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.db.query<ApiKeyRow<Date>>('SELECT id, vault_id, secret_hash, created, revoked FROM api_keys WHERE id = $1', [id]);
    return rows[0] ? toApiKey(rows[0], asDate) : null;
  }

  async listApiKeys(vaultId: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.db.query<ApiKeyRow<Date>>(
      'SELECT id, vault_id, secret_hash, created, revoked FROM api_keys WHERE vault_id = $1 ORDER BY created, id',
      [vaultId],
    );
    return rows.map((r) => toApiKey(r, asDate));
  }

  async revokeApiKey(id: string, now: Date): Promise<boolean> {
    // The table's trigger (migration 4) NOTIFYs with the update: every instance's PostgresApiKeyCache
    // drops the key as it commits, as it does for a change made by any other path.
    const result = await this.db.query('UPDATE api_keys SET revoked = COALESCE(revoked, $1) WHERE id = $2', [now, id]);
    return (result.rowCount ?? 0) > 0;
  }

  async countActiveApiKeys(vaultId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM api_keys WHERE vault_id = $1 AND revoked IS NULL', [vaultId]);
    return Number(rows[0]!.n);
  }

  async insertWallet(wallet: Wallet, idempotency?: IdempotencyRecord): Promise<void> {
    if (!idempotency) {
      await this.db.query(INSERT_WALLET, walletValues(wallet));
      return;
    }
    if (idempotency.vaultId !== wallet.vaultId) throw new Error('idempotency record of another vault');
    await this.db.transaction(async (tx) => {
      // Takes the slot only when it is free or its holder has expired at the new record's creation. A
      // concurrent claim of the same key on another instance waits on the key's index entry until this
      // transaction ends, then finds it taken (or free again, if this one rolled back).
      const claimed = await tx.query(
        `INSERT INTO idempotency_records (${IDEMPOTENCY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (vault_id, key) DO UPDATE SET
           request_hash = EXCLUDED.request_hash, response = EXCLUDED.response, created = EXCLUDED.created, expires = EXCLUDED.expires
         WHERE idempotency_records.expires <= EXCLUDED.created`,
        [idempotency.vaultId, idempotency.key, idempotency.requestHash, idempotency.response, idempotency.created, idempotency.expires],
      );
      if (claimed.rowCount === 0) {
        throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, `Idempotency-Key ${JSON.stringify(idempotency.key)} is already in use`);
      }
      await tx.query(INSERT_WALLET, walletValues(wallet));
    });
  }

  async findIdempotency(vaultId: string, key: string, now: Date): Promise<IdempotencyRecord | null> {
    const { rows } = await this.db.query<IdempotencyRow<Date>>(
      `SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_records WHERE vault_id = $1 AND key = $2 AND expires > $3`,
      [vaultId, key, now],
    );
    return rows[0] ? toIdempotency(rows[0], asDate) : null;
  }

  async deleteExpiredIdempotency(now: Date, limit: number): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM idempotency_records WHERE (vault_id, key) IN (
         SELECT vault_id, key FROM idempotency_records WHERE expires <= $1 ORDER BY expires LIMIT $2
       )`,
      [now, limit],
    );
    return rowCount ?? 0;
  }

  async findWallet(vaultId: string, address: string, now: Date): Promise<Wallet | null> {
    const { rows } = await this.db.query<WalletRow>(
      `SELECT ${WALLET_COLUMNS} FROM wallets WHERE vault_id = $1 AND ${VISIBLE} AND address = $3`,
      [vaultId, now, address],
    );
    return rows[0] ? toWallet(rows[0]) : null;
  }

  async listWallets(vaultId: string, now: Date, offset: number, limit: number): Promise<WalletPage> {
    // One statement is one snapshot: the page and the total agree even while other instances create.
    // The total row is always there, so an offset past the end still reports the count.
    const { rows } = await this.db.query<WalletRow & { total: string }>(
      `SELECT t.total, ${W('p')}
         FROM (SELECT count(*) AS total FROM wallets WHERE vault_id = $1 AND ${VISIBLE}) t
         LEFT JOIN LATERAL (
           SELECT ${WALLET_COLUMNS} FROM wallets WHERE vault_id = $1 AND ${VISIBLE}
           ORDER BY created, id LIMIT $3 OFFSET $4
         ) p ON true
        ORDER BY p.created, p.id`,
      [vaultId, now, limit, offset],
    );
    const count = Number(rows[0]?.total ?? 0);
    return { count, page: rows.filter((r) => r.id !== null).map(toWallet) };
  }

  async countWallets(vaultId: string, now: Date): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>(`SELECT count(*) AS n FROM wallets WHERE vault_id = $1 AND ${VISIBLE}`, [vaultId, now]);
    return Number(rows[0]!.n);
  }

  async updateWallet(wallet: Wallet): Promise<boolean> {
    // Row-locked compare-and-set: of two concurrent writers from any instances, the second re-checks
    // the version after the first commits and changes nothing.
    const result = await this.db.query(
      `UPDATE wallets SET name = $2, updated = $3, expires = $4, key_store = $5, key_ref = $6, version = $7
        WHERE id = $1 AND version = $7 - 1`,
      [wallet.id, wallet.name, wallet.updated, wallet.expires, wallet.keyStore, wallet.keyRef, wallet.version],
    );
    return result.rowCount === 1;
  }

  async findExpired(now: Date, limit: number): Promise<Wallet[]> {
    const { rows } = await this.db.query<WalletRow>(
      `SELECT ${WALLET_COLUMNS} FROM wallets WHERE expires IS NOT NULL AND expires <= $1 ORDER BY expires, id LIMIT $2`,
      [now, limit],
    );
    return rows.map(toWallet);
  }

  async markDeleted(id: string, now: Date): Promise<boolean> {
    const result = await this.db.query(
      'UPDATE wallets SET version = version + 1 WHERE id = $1 AND expires IS NOT NULL AND expires <= $2',
      [id, now],
    );
    return result.rowCount === 1;
  }

  async removeWallet(id: string): Promise<void> {
    await this.db.query('DELETE FROM wallets WHERE id = $1', [id]);
  }

  async findRecord(id: string): Promise<Wallet | null> {
    const { rows } = await this.db.query<WalletRow>(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE id = $1`, [id]);
    return rows[0] ? toWallet(rows[0]) : null;
  }

  async listByKeyStore(keyStore: string, afterId: string | null, limit: number): Promise<Wallet[]> {
    const { rows } = await this.db.query<WalletRow>(
      `SELECT ${WALLET_COLUMNS} FROM wallets WHERE key_store = $1 AND id > $2 ORDER BY id LIMIT $3`,
      [keyStore, afterId ?? '', limit],
    );
    return rows.map(toWallet);
  }

  async keyRefInUse(keyStore: string, keyRef: string): Promise<boolean> {
    const { rows } = await this.db.query('SELECT 1 FROM wallets WHERE key_store = $1 AND key_ref = $2 LIMIT 1', [keyStore, keyRef]);
    return rows.length > 0;
  }

  ping(): Promise<void> {
    return this.db.ping();
  }

  async close(): Promise<void> {
    // The pool is shared with the other adapters; whoever opened it closes it.
  }
}
