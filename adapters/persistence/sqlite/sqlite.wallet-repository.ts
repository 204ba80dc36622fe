import type { Statement } from 'better-sqlite3';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { Account, ApiKeyRecord, Vault } from '../../../src/domain/vault.js';
import type { Wallet } from '../../../src/domain/wallet.js';
import type { IdempotencyRecord, WalletPage, WalletRepository } from '../../../src/ports/wallet-repository.port.js';
import { fromMillis, toIdempotency, toApiKey, toVault, toWallet, WALLET_COLUMNS, type ApiKeyRow, type IdempotencyRow, type VaultRow, type WalletRow } from '../shared/rows.js';
import { apiKeyCacheOf, type SqliteApiKeyCache } from './sqlite.api-key-cache.js';
import { runSql as run, type SqliteDatabase } from './sqlite.database.js';

const VISIBLE = '(expires IS NULL OR expires > @now)';

const ANCHOR_EVERY = 1000;
const ANCHOR_CACHE_VAULTS = 100;

interface AnchorIndex {
  readonly generation: number;
  /** The next expiry instant in the vault: from then on positions shift without any write. */
  readonly validUntil: number;
  /** (created, id) of the visible wallets at positions ANCHOR_EVERY, 2·ANCHOR_EVERY, ... */
  readonly keys: readonly { created: number; id: string }[];
}

export class SqliteWalletRepository implements WalletRepository {
  private readonly s: Record<string, Statement>;
  private readonly anchors = new Map<string, AnchorIndex>();
  /** Read on every request (authentication); see SqliteApiKeyCache for why revocation stays immediate. */
  private readonly apiKeys: SqliteApiKeyCache;

  constructor(private readonly db: SqliteDatabase) {
    this.apiKeys = apiKeyCacheOf(db);
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      insertAccount: p('INSERT INTO accounts (id, created) VALUES (?, ?) ON CONFLICT (id) DO NOTHING'),
      findAccount: p('SELECT id, created FROM accounts WHERE id = ?'),
      insertVault: p('INSERT INTO vaults (id, account_id, name, created) VALUES (@id, @accountId, @name, @created)'),
      findVault: p('SELECT id, account_id, name, created FROM vaults WHERE id = ?'),
      listVaults: p('SELECT id, account_id, name, created FROM vaults ORDER BY created, id'),
      insertApiKey: p(
        'INSERT INTO api_keys (id, vault_id, secret_hash, created, revoked) VALUES (@id, @vaultId, @secretHash, @created, @revoked)',
      ),
      findApiKey: p('SELECT id, vault_id, secret_hash, created, revoked FROM api_keys WHERE id = ?'),
      listApiKeys: p('SELECT id, vault_id, secret_hash, created, revoked FROM api_keys WHERE vault_id = ? ORDER BY created, id'),
      revokeApiKey: p('UPDATE api_keys SET revoked = COALESCE(revoked, ?) WHERE id = ?'),
      countActiveApiKeys: p('SELECT count(*) AS n FROM api_keys WHERE vault_id = ? AND revoked IS NULL'),
      insertWallet: p(
        `INSERT INTO wallets (${WALLET_COLUMNS}) VALUES (@id, @accountId, @vaultId, @name, @address, @keyStore, @keyRef, @created, @updated, @expires, @version)`,
      ),
      // Takes the slot only when it is free or its holder has expired at the new record's creation.
      claimIdempotency: p(
        `INSERT INTO idempotency_records (vault_id, key, request_hash, response, created, expires)
         VALUES (@vaultId, @key, @requestHash, @response, @created, @expires)
         ON CONFLICT (vault_id, key) DO UPDATE SET
           request_hash = excluded.request_hash, response = excluded.response, created = excluded.created, expires = excluded.expires
         WHERE idempotency_records.expires <= excluded.created`,
      ),
      findIdempotency: p(
        'SELECT vault_id, key, request_hash, response, created, expires FROM idempotency_records WHERE vault_id = ? AND key = ? AND expires > ?',
      ),
      deleteExpiredIdempotency: p(
        `DELETE FROM idempotency_records WHERE (vault_id, key) IN (
           SELECT vault_id, key FROM idempotency_records WHERE expires <= ? ORDER BY expires LIMIT ?
         )`,
      ),
      findWallet: p(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE vault_id = @vaultId AND address = @address AND ${VISIBLE}`),
      // The offset is walked in the covering index alone (rowids only); just the page's rows are read.
      listWallets: p(
        `SELECT ${WALLET_COLUMNS} FROM wallets WHERE rowid IN (
           SELECT rowid FROM wallets WHERE vault_id = @vaultId AND ${VISIBLE} ORDER BY created, id LIMIT @limit OFFSET @offset
         ) ORDER BY created, id`,
      ),
      listWalletsFrom: p(
        `SELECT ${WALLET_COLUMNS} FROM wallets WHERE rowid IN (
           SELECT rowid FROM wallets WHERE vault_id = @vaultId AND ${VISIBLE} AND (created, id) >= (@created, @id)
           ORDER BY created, id LIMIT @limit OFFSET @offset
         ) ORDER BY created, id`,
      ),
      listKeys: p(`SELECT created, id FROM wallets WHERE vault_id = @vaultId AND ${VISIBLE} ORDER BY created, id`),
      nextExpiry: p('SELECT min(expires) AS at FROM wallets WHERE vault_id = @vaultId AND expires > @now'),
      generation: p('SELECT generation FROM wallet_counts WHERE vault_id = ?'),
      rowsInVault: p('SELECT rows FROM wallet_counts WHERE vault_id = ?'),
      expiredInVault: p('SELECT count(*) AS n FROM wallets WHERE vault_id = @vaultId AND expires IS NOT NULL AND expires <= @now'),
      updateWallet: p(
        `UPDATE wallets SET name = @name, updated = @updated, expires = @expires, key_store = @keyStore, key_ref = @keyRef, version = @version
         WHERE id = @id AND version = @version - 1`,
      ),
      findExpired: p(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE expires IS NOT NULL AND expires <= ? ORDER BY expires, id LIMIT ?`),
      markDeleted: p('UPDATE wallets SET version = version + 1 WHERE id = ? AND expires IS NOT NULL AND expires <= ?'),
      removeWallet: p('DELETE FROM wallets WHERE id = ?'),
      findRecord: p(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE id = ?`),
      listByKeyStore: p(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE key_store = @keyStore AND id > @afterId ORDER BY id LIMIT @limit`),
      keyRefInUse: p('SELECT 1 FROM wallets WHERE key_store = ? AND key_ref = ? LIMIT 1'),
      ping: p('SELECT 1'),
    };
  }

  ensureAccount(id: string, now: Date): Promise<Account> {
    return run(() => {
      this.s.insertAccount!.run(id, now.getTime());
      const row = this.s.findAccount!.get(id) as { id: string; created: number };
      return { id: row.id, created: new Date(row.created) };
    });
  }

  insertVault(vault: Vault): Promise<void> {
    return run(() => {
      this.s.insertVault!.run({ ...vault, created: vault.created.getTime() });
    });
  }

  findVault(id: string): Promise<Vault | null> {
    return run(() => {
      const row = this.s.findVault!.get(id) as VaultRow<number> | undefined;
      return row ? toVault(row, fromMillis) : null;
    });
  }

  listVaults(): Promise<Vault[]> {
    return run(() => (this.s.listVaults!.all() as VaultRow<number>[]).map((r) => toVault(r, fromMillis)));
  }

  insertApiKey(key: ApiKeyRecord): Promise<void> {
    return run(() => {
      this.s.insertApiKey!.run({ ...key, created: key.created.getTime(), revoked: key.revoked?.getTime() ?? null });
      this.apiKeys.forget();
    });
  }

  findApiKey(id: string): Promise<ApiKeyRecord | null> {
    return run(() =>
      this.apiKeys.find(id, () => {
        const row = this.s.findApiKey!.get(id) as ApiKeyRow<number> | undefined;
        return row ? toApiKey(row, fromMillis) : null;
      }),
    );
  }

  listApiKeys(vaultId: string): Promise<ApiKeyRecord[]> {
    return run(() => (this.s.listApiKeys!.all(vaultId) as ApiKeyRow<number>[]).map((r) => toApiKey(r, fromMillis)));
  }

  revokeApiKey(id: string, now: Date): Promise<boolean> {
    return run(() => {
      const changed = this.s.revokeApiKey!.run(now.getTime(), id).changes > 0;
      this.apiKeys.forget();
      return changed;
    });
  }

  countActiveApiKeys(vaultId: string): Promise<number> {
    return run(() => (this.s.countActiveApiKeys!.get(vaultId) as { n: number }).n);
  }

  insertWallet(wallet: Wallet, idempotency?: IdempotencyRecord): Promise<void> {
    if (!idempotency) {
      return run(() => {
        this.s.insertWallet!.run(walletParams(wallet));
      });
    }
    if (idempotency.vaultId !== wallet.vaultId) return Promise.reject(new Error('idempotency record of another vault'));
    return run(() =>
      this.db.transaction(() => {
        const claimed = this.s.claimIdempotency!.run({
          ...idempotency,
          created: idempotency.created.getTime(),
          expires: idempotency.expires.getTime(),
        });
        // Thrown inside the transaction, so it rolls back and nothing is written.
        if (claimed.changes === 0) {
          throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, `Idempotency-Key ${JSON.stringify(idempotency.key)} is already in use`);
        }
        this.s.insertWallet!.run(walletParams(wallet));
      }).immediate(),
    );
  }

  findIdempotency(vaultId: string, key: string, now: Date): Promise<IdempotencyRecord | null> {
    return run(() => {
      const row = this.s.findIdempotency!.get(vaultId, key, now.getTime()) as IdempotencyRow<number> | undefined;
      return row ? toIdempotency(row, fromMillis) : null;
    });
  }

  deleteExpiredIdempotency(now: Date, limit: number): Promise<number> {
    return run(() => this.s.deleteExpiredIdempotency!.run(now.getTime(), limit).changes);
  }

  findWallet(vaultId: string, address: string, now: Date): Promise<Wallet | null> {
    return run(() => {
      const row = this.s.findWallet!.get({ vaultId, address, now: now.getTime() }) as WalletRow<number> | undefined;
      return row ? toWallet(row, fromMillis) : null;
    });
  }

  listWallets(vaultId: string, now: Date, offset: number, limit: number): Promise<WalletPage> {
    return run(() =>
      // One read transaction, so the page and the total agree even while others write.
      this.db.transaction(() => {
        const at = now.getTime();
        const anchor = offset >= ANCHOR_EVERY ? this.anchorFor(vaultId, at, offset) : undefined;
        const rows = (
          anchor
            ? this.s.listWalletsFrom!.all({ vaultId, now: at, created: anchor.created, id: anchor.id, offset: offset - anchor.position, limit })
            : this.s.listWallets!.all({ vaultId, now: at, offset, limit })
        ) as WalletRow<number>[];
        return { count: this.countSync(vaultId, now), page: rows.map((r) => toWallet(r, fromMillis)) };
      })(),
    );
  }

  /**
   * SQLite walks every skipped index entry of an OFFSET, ~12 ms at 100 000. So the (created, id) key of
   * every ANCHOR_EVERY-th visible wallet is kept per vault, and a deep page seeks to the nearest anchor
   * and walks at most ANCHOR_EVERY entries. Anchors are valid while the vault's generation (moved by
   * triggers on every insert, delete and expiry change) is the same and no expiry instant has passed.
   */
  private anchorFor(vaultId: string, now: number, offset: number): { created: number; id: string; position: number } | undefined {
    const generation = (this.s.generation!.get(vaultId) as { generation: number } | undefined)?.generation ?? 0;
    let entry = this.anchors.get(vaultId);
    if (!entry || entry.generation !== generation || now >= entry.validUntil) {
      const keys: { created: number; id: string }[] = [];
      let position = 0;
      for (const row of this.s.listKeys!.iterate({ vaultId, now }) as Iterable<{ created: number; id: string }>) {
        if (position > 0 && position % ANCHOR_EVERY === 0) keys.push(row);
        position++;
      }
      const next = (this.s.nextExpiry!.get({ vaultId, now }) as { at: number | null }).at;
      entry = { generation, validUntil: next ?? Number.POSITIVE_INFINITY, keys };
      this.anchors.delete(vaultId);
      if (this.anchors.size >= ANCHOR_CACHE_VAULTS) this.anchors.delete(this.anchors.keys().next().value as string);
      this.anchors.set(vaultId, entry);
    }
    const index = Math.floor(offset / ANCHOR_EVERY) - 1;
    const key = entry.keys[Math.min(index, entry.keys.length - 1)];
    return key ? { ...key, position: (Math.min(index, entry.keys.length - 1) + 1) * ANCHOR_EVERY } : undefined;
  }

  countWallets(vaultId: string, now: Date): Promise<number> {
    return run(() => this.countSync(vaultId, now));
  }

  updateWallet(wallet: Wallet): Promise<boolean> {
    return run(() => this.s.updateWallet!.run(walletParams(wallet)).changes === 1);
  }

  findExpired(now: Date, limit: number): Promise<Wallet[]> {
    return run(() => (this.s.findExpired!.all(now.getTime(), limit) as WalletRow<number>[]).map((r) => toWallet(r, fromMillis)));
  }

  markDeleted(id: string, now: Date): Promise<boolean> {
    return run(() => this.s.markDeleted!.run(id, now.getTime()).changes === 1);
  }

  removeWallet(id: string): Promise<void> {
    return run(() => {
      this.s.removeWallet!.run(id);
    });
  }

  findRecord(id: string): Promise<Wallet | null> {
    return run(() => {
      const row = this.s.findRecord!.get(id) as WalletRow<number> | undefined;
      return row ? toWallet(row, fromMillis) : null;
    });
  }

  listByKeyStore(keyStore: string, afterId: string | null, limit: number): Promise<Wallet[]> {
    return run(() => (this.s.listByKeyStore!.all({ keyStore, afterId: afterId ?? '', limit }) as WalletRow<number>[]).map((r) => toWallet(r, fromMillis)));
  }

  keyRefInUse(keyStore: string, keyRef: string): Promise<boolean> {
    return run(() => this.s.keyRefInUse!.get(keyStore, keyRef) !== undefined);
  }

  ping(): Promise<void> {
    return run(() => {
      this.s.ping!.get();
    });
  }

  async close(): Promise<void> {
    // The connection is shared with the signature log; whoever opened it closes it.
  }

  private countSync(vaultId: string, now: Date): number {
    const rows = (this.s.rowsInVault!.get(vaultId) as { rows: number } | undefined)?.rows ?? 0;
    const expired = (this.s.expiredInVault!.get({ vaultId, now: now.getTime() }) as { n: number }).n;
    return rows - expired;
  }
}

function walletParams(w: Wallet) {
  return {
    id: w.id,
    accountId: w.accountId,
    vaultId: w.vaultId,
    name: w.name,
    address: w.address,
    keyStore: w.keyStore,
    keyRef: w.keyRef,
    created: w.created.getTime(),
    updated: w.updated.getTime(),
    expires: w.expires?.getTime() ?? null,
    version: w.version,
  };
}
