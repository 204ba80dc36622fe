import { prepareAuditEvent } from '../../../src/domain/audit-chain.js';
import type { ApiKeyRole } from '../../../src/domain/api-key-access.js';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { Account, ApiKeyRecord, Vault } from '../../../src/domain/vault.js';
import type { Wallet } from '../../../src/domain/wallet.js';
import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { IdempotencyRecord, WalletPage, WalletRepository } from '../../../src/ports/wallet-repository.port.js';
import type { KeyExportRecord } from '../../../src/ports/wallet-store.port.js';
import { apiKeyValues, AS_IS, IDEMPOTENCY, INSERT_API_KEY, INSTANT, SELECT_API_KEY, Table, toApiKey, VAULTS, WALLETS, type InstantDecoder } from './rows.js';
import { runAudited, type ApiKeyCache, type SqlDatabase } from './sql-database.js';

const ACCOUNTS = new Table<Account>('accounts', { id: AS_IS, created: INSTANT });
// One statement: two instances reserving at once each get their own index.
const RESERVE_DERIVATION_INDEX = `INSERT INTO hd_indexes (vault_id, next_index) VALUES ($1, 1)
  ON CONFLICT (vault_id) DO UPDATE SET next_index = hd_indexes.next_index + 1 RETURNING next_index - 1 AS reserved`;
// The no-op update makes RETURNING give the existing row too, in one statement and one snapshot.
const ENSURE_ACCOUNT = `${ACCOUNTS.insert} ON CONFLICT (id) DO UPDATE SET id = accounts.id RETURNING ${ACCOUNTS.columns}`;
// Takes the slot only when it is free or its holder has expired at the new record's creation. A concurrent
// claim of the same key (another connection, another instance) waits on the key until this transaction
// ends, then finds it taken (or free again, if this one rolled back).
const CLAIM_IDEMPOTENCY = `${IDEMPOTENCY.insert}
  ON CONFLICT (vault_id, key) DO UPDATE SET
    request_hash = EXCLUDED.request_hash, response = EXCLUDED.response, created = EXCLUDED.created, expires = EXCLUDED.expires
  WHERE idempotency_records.expires <= EXCLUDED.created`;
const FIND_IDEMPOTENCY = `${IDEMPOTENCY.select} WHERE vault_id = $1 AND key = $2 AND expires > $3`;
const DELETE_EXPIRED_IDEMPOTENCY = `DELETE FROM idempotency_records WHERE (vault_id, key) IN (
  SELECT vault_id, key FROM idempotency_records WHERE expires <= $1 ORDER BY expires LIMIT $2)`;
// Row-locked compare-and-set: of two concurrent writers, the second re-checks the version after the
// first commits and changes nothing.
const UPDATE_WALLET = `UPDATE wallets SET name = $2, updated = $3, expires = $4, key_store = $5, key_ref = $6, version = $7, binding = $8
  WHERE id = $1 AND version = $7 - 1`;

// A governed entry is carried out once: the unique authorization_id refuses the second (NULLs never collide).
const INSERT_KEY_EXPORT = `INSERT INTO key_exports (id, vault_id, kind, wallet_id, recipient, authorization_id, actor, created)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`;
// The first export's time stays: a key exported once is exported for ever.
const MARK_WALLET_EXPORTED = 'UPDATE wallets SET exported = COALESCE(exported, $2), version = version + 1 WHERE id = $1';
const MARK_DERIVED_EXPORTED = 'UPDATE wallets SET exported = COALESCE(exported, $2), version = version + 1 WHERE vault_id = $1 AND derivation_path IS NOT NULL';
const SEED_EXPORTED = "SELECT created FROM key_exports WHERE vault_id = $1 AND kind = 'hd-seed' ORDER BY created LIMIT 1";

/**
 * Accounts, vaults, API keys, wallets and idempotency records, written once for every SQL database (see
 * SqlDatabase for what each database does its own way). Concurrency rests on the database: the version
 * compare-and-set is one UPDATE, the idempotency claim and its wallet are one transaction.
 */
export class SqlWalletRepository implements WalletRepository {
  /** Answers authentication's lookups from memory: the seam's (one per database), when it has one. */
  private readonly apiKeys: ApiKeyCache | undefined;

  constructor(private readonly db: SqlDatabase) {
    this.apiKeys = db.apiKeyCache;
  }

  private async rows<T>(read: (row: object, at: InstantDecoder<unknown>) => T, sql: string, params?: readonly unknown[]): Promise<T[]> {
    return (await this.db.all<object>(sql, params)).map((r) => read(r, this.db.instant));
  }

  private async first<T>(read: (row: object, at: InstantDecoder<unknown>) => T, sql: string, params: readonly unknown[]): Promise<T | null> {
    return (await this.rows(read, sql, params))[0] ?? null;
  }

  async ensureAccount(id: string, now: Date): Promise<Account> {
    return (await this.first(ACCOUNTS.read, ENSURE_ACCOUNT, [id, now]))!;
  }

  async insertVault(vault: Vault): Promise<void> {
    await this.db.run(VAULTS.insert, VAULTS.values(vault));
  }

  findVault(id: string): Promise<Vault | null> {
    return this.first(VAULTS.read, `${VAULTS.select} WHERE id = $1`, [id]);
  }

  listVaults(): Promise<Vault[]> {
    return this.rows(VAULTS.read, `${VAULTS.select} ORDER BY created, id`);
  }

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await this.db.run(INSERT_API_KEY, apiKeyValues(key));
    this.apiKeys?.forget?.();
  }

  async rotateApiKey(id: string, successor: ApiKeyRecord, overlapEnds: Date, recorded: AuditEvent): Promise<boolean> {
    // One transaction: the old row names its successor only if the successor row is there, and both are on record.
    const done = await this.db.auditedTransaction(async (tx, audit) => {
      const marked = await tx.run('UPDATE api_keys SET replaced_by = $1, overlap_ends = $2 WHERE id = $3 AND replaced_by IS NULL AND revoked IS NULL', [successor.id, overlapEnds, id]);
      if (marked === 0) return false;
      await tx.run(INSERT_API_KEY, apiKeyValues(successor));
      audit(prepareAuditEvent(recorded));
      return true;
    });
    this.apiKeys?.forget?.();
    return done;
  }

  async markFirstUsed(id: string, now: Date): Promise<void> {
    // COALESCE: the first instance to record it keeps its time; PostgreSQL's trigger tells every instance's cache.
    await this.db.run('UPDATE api_keys SET first_used = COALESCE(first_used, $1) WHERE id = $2', [now, id]);
    this.apiKeys?.forget?.();
  }

  /** Read on every request (authentication): see the ApiKeyCache for why a revocation is seen at once. */
  findApiKey(id: string): Promise<ApiKeyRecord | null> {
    return this.apiKeys ? this.apiKeys.find(id, this.readApiKey) : this.readApiKey(id);
  }

  private readonly readApiKey = (id: string): Promise<ApiKeyRecord | null> => this.first(toApiKey, `${SELECT_API_KEY} WHERE id = $1`, [id]);

  listApiKeys(vaultId: string): Promise<ApiKeyRecord[]> {
    return this.rows(toApiKey, `${SELECT_API_KEY} WHERE vault_id = $1 ORDER BY created, id`, [vaultId]);
  }

  async revokeApiKey(id: string, now: Date): Promise<boolean> {
    // PostgreSQL's trigger (migration 4) also announces the update to every instance's cache.
    const changed = await this.db.run('UPDATE api_keys SET revoked = COALESCE(revoked, $1) WHERE id = $2', [now, id]);
    this.apiKeys?.forget?.();
    return changed > 0;
  }

  async setApproverAddress(id: string, address: string, recorded: AuditEvent): Promise<boolean> {
    // PostgreSQL's trigger announces the update to every instance's cache, as a revocation.
    const changed = await runAudited(this.db, 'UPDATE api_keys SET approver_address = $1 WHERE id = $2', [address, id], recorded);
    this.apiKeys?.forget?.();
    return changed;
  }

  async setApiKeyRoles(id: string, roles: readonly ApiKeyRole[], recorded: AuditEvent): Promise<boolean> {
    // As a credential change: PostgreSQL's trigger tells every instance's cache, this one forgets at once.
    const changed = await runAudited(this.db, 'UPDATE api_keys SET roles = $1 WHERE id = $2 AND revoked IS NULL', [roles.join(','), id], recorded);
    this.apiKeys?.forget?.();
    return changed;
  }

  async countActiveApiKeys(vaultId: string): Promise<number> {
    const [row] = await this.db.all<{ n: number | string }>('SELECT count(*) AS n FROM api_keys WHERE vault_id = $1 AND revoked IS NULL', [vaultId]);
    return Number(row!.n);
  }

  async insertWallet(wallet: Wallet, idempotency?: IdempotencyRecord): Promise<void> {
    if (!idempotency) {
      await this.db.run(WALLETS.insert, WALLETS.values(wallet));
      return;
    }
    if (idempotency.vaultId !== wallet.vaultId) throw new Error('idempotency record of another vault');
    await this.db.transaction(async (tx) => {
      if ((await tx.run(CLAIM_IDEMPOTENCY, IDEMPOTENCY.values(idempotency))) === 0) {
        // Thrown inside the transaction, so it rolls back and nothing is written.
        throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, `Idempotency-Key ${JSON.stringify(idempotency.key)} is already in use`);
      }
      await tx.run(WALLETS.insert, WALLETS.values(wallet));
    });
  }

  async reserveDerivationIndex(vaultId: string): Promise<number> {
    const [row] = await this.db.transaction((tx) => tx.all<{ reserved: number | string }>(RESERVE_DERIVATION_INDEX, [vaultId]));
    return Number(row!.reserved);
  }

  recordExport(r: KeyExportRecord, recorded: AuditEvent): Promise<boolean> {
    return this.db.auditedTransaction(async (tx, audit) => {
      if ((await tx.run(INSERT_KEY_EXPORT, [r.id, r.vaultId, r.kind, r.walletId, r.recipient, r.authorization, r.actor, r.at])) === 0) return false;
      if (r.kind === 'hd-seed') await tx.run(MARK_DERIVED_EXPORTED, [r.vaultId, r.at]);
      else await tx.run(MARK_WALLET_EXPORTED, [r.walletId, r.at]);
      audit(prepareAuditEvent(recorded));
      return true;
    });
  }

  async seedExported(vaultId: string): Promise<Date | null> {
    const [row] = await this.rows((row, at) => at((row as { created: never }).created), SEED_EXPORTED, [vaultId]);
    return row ?? null;
  }

  findIdempotency(vaultId: string, key: string, now: Date): Promise<IdempotencyRecord | null> {
    return this.first(IDEMPOTENCY.read, FIND_IDEMPOTENCY, [vaultId, key, now]);
  }

  deleteExpiredIdempotency(now: Date, limit: number): Promise<number> {
    return this.db.run(DELETE_EXPIRED_IDEMPOTENCY, [now, limit]);
  }

  findWallet(vaultId: string, address: string, now: Date): Promise<Wallet | null> {
    return this.first(WALLETS.read, `${WALLETS.select} WHERE vault_id = $1 AND address = $2 AND (expires IS NULL OR expires > $3)`, [vaultId, address, now]);
  }

  findWalletByAddress(address: string): Promise<Wallet | null> {
    return this.first(WALLETS.read, `${WALLETS.select} WHERE address = $1`, [address]);
  }

  listWallets(vaultId: string, now: Date, offset: number, limit: number): Promise<WalletPage> {
    return this.db.walletPages.list(vaultId, now, offset, limit);
  }

  countWallets(vaultId: string, now: Date): Promise<number> {
    return this.db.walletPages.count(vaultId, now);
  }

  updateWallet(wallet: Wallet, recorded?: AuditEvent): Promise<boolean> {
    const w = wallet;
    return runAudited(this.db, UPDATE_WALLET, [w.id, w.name, w.updated, w.expires, w.keyStore, w.keyRef, w.version, w.binding], recorded);
  }

  listUnbound(query: { readonly vaultId?: string; readonly afterId: string | null; readonly limit: number }): Promise<Wallet[]> {
    const { vaultId, afterId, limit } = query;
    return vaultId === undefined
      ? this.rows(WALLETS.read, `${WALLETS.select} WHERE binding IS NULL AND id > $1 ORDER BY id LIMIT $2`, [afterId ?? '', limit])
      : this.rows(WALLETS.read, `${WALLETS.select} WHERE binding IS NULL AND vault_id = $1 AND id > $2 ORDER BY id LIMIT $3`, [vaultId, afterId ?? '', limit]);
  }

  async bindingUpgradePending(): Promise<boolean> {
    return (await this.db.all('SELECT 1 FROM wallet_binding_upgrade LIMIT 1')).length > 0;
  }

  async finishBindingUpgrade(): Promise<void> {
    await this.db.run('DELETE FROM wallet_binding_upgrade');
  }

  findExpired(now: Date, limit: number): Promise<Wallet[]> {
    return this.rows(WALLETS.read, `${WALLETS.select} WHERE expires IS NOT NULL AND expires <= $1 ORDER BY expires, id LIMIT $2`, [now, limit]);
  }

  async markDeleted(id: string, now: Date): Promise<boolean> {
    return (await this.db.run('UPDATE wallets SET version = version + 1 WHERE id = $1 AND expires IS NOT NULL AND expires <= $2', [id, now])) === 1;
  }

  async removeWallet(id: string, deleted?: AuditEvent): Promise<void> {
    await runAudited(this.db, 'DELETE FROM wallets WHERE id = $1', [id], deleted);
  }

  findRecord(id: string): Promise<Wallet | null> {
    return this.first(WALLETS.read, `${WALLETS.select} WHERE id = $1`, [id]);
  }

  listByKeyStore(keyStore: string, afterId: string | null, limit: number): Promise<Wallet[]> {
    return this.rows(WALLETS.read, `${WALLETS.select} WHERE key_store = $1 AND id > $2 ORDER BY id LIMIT $3`, [keyStore, afterId ?? '', limit]);
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
