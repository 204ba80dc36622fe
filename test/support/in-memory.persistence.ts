import type { Account, ApiKeyRecord, Vault } from '../../src/domain/vault.js';
import type { Wallet } from '../../src/domain/wallet.js';
import type { AttachResult, SignatureLog, SignatureRecord } from '../../src/ports/signature-log.port.js';
import type { WalletPage, WalletRepository } from '../../src/ports/wallet-repository.port.js';

const visible = (w: Wallet, now: Date) => w.expires === null || w.expires.getTime() > now.getTime();
const byCreatedThenId = (a: Wallet, b: Wallet) => a.created.getTime() - b.created.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** In-memory twin of the SQLite repository for application unit tests; it passes the same contract. */
export class InMemoryWalletRepository implements WalletRepository {
  readonly accounts = new Map<string, Account>();
  readonly vaults = new Map<string, Vault>();
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  readonly wallets = new Map<string, Wallet>();

  async ensureAccount(id: string, now: Date): Promise<Account> {
    if (!this.accounts.has(id)) this.accounts.set(id, { id, created: now });
    return this.accounts.get(id)!;
  }
  async insertVault(vault: Vault): Promise<void> {
    if (!this.accounts.has(vault.accountId)) throw new Error('no such account');
    this.vaults.set(vault.id, vault);
  }
  async findVault(id: string): Promise<Vault | null> {
    return this.vaults.get(id) ?? null;
  }
  async listVaults(): Promise<Vault[]> {
    return [...this.vaults.values()].sort((a, b) => a.created.getTime() - b.created.getTime());
  }
  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    this.apiKeys.set(key.id, key);
  }
  async findApiKey(id: string): Promise<ApiKeyRecord | null> {
    return this.apiKeys.get(id) ?? null;
  }
  async listApiKeys(vaultId: string): Promise<ApiKeyRecord[]> {
    return [...this.apiKeys.values()].filter((k) => k.vaultId === vaultId).sort((a, b) => a.created.getTime() - b.created.getTime());
  }
  async revokeApiKey(id: string, now: Date): Promise<boolean> {
    const key = this.apiKeys.get(id);
    if (!key) return false;
    if (key.revoked === null) this.apiKeys.set(id, { ...key, revoked: now });
    return true;
  }
  async countActiveApiKeys(vaultId: string): Promise<number> {
    return [...this.apiKeys.values()].filter((k) => k.vaultId === vaultId && k.revoked === null).length;
  }
  async insertWallet(wallet: Wallet): Promise<void> {
    if ([...this.wallets.values()].some((w) => w.address === wallet.address)) throw new Error('duplicate address');
    this.wallets.set(wallet.id, wallet);
  }
  async findWallet(vaultId: string, address: string, now: Date): Promise<Wallet | null> {
    return [...this.wallets.values()].find((w) => w.vaultId === vaultId && w.address === address && visible(w, now)) ?? null;
  }
  async listWallets(vaultId: string, now: Date, offset: number, limit: number): Promise<WalletPage> {
    const all = [...this.wallets.values()].filter((w) => w.vaultId === vaultId && visible(w, now)).sort(byCreatedThenId);
    return { count: all.length, page: all.slice(offset, offset + limit) };
  }
  async countWallets(vaultId: string, now: Date): Promise<number> {
    return (await this.listWallets(vaultId, now, 0, 0)).count;
  }
  async updateWallet(wallet: Wallet): Promise<boolean> {
    const current = this.wallets.get(wallet.id);
    if (!current || current.version !== wallet.version - 1) return false;
    this.wallets.set(wallet.id, wallet);
    return true;
  }
  async findExpired(now: Date, limit: number): Promise<Wallet[]> {
    return [...this.wallets.values()]
      .filter((w) => w.expires !== null && w.expires.getTime() <= now.getTime())
      .sort((a, b) => a.expires!.getTime() - b.expires!.getTime())
      .slice(0, limit);
  }
  async removeWallet(id: string): Promise<void> {
    this.wallets.delete(id);
  }
  async findRecord(id: string): Promise<Wallet | null> {
    return this.wallets.get(id) ?? null;
  }
  async listByKeyStore(keyStore: string, afterId: string | null, limit: number): Promise<Wallet[]> {
    return [...this.wallets.values()]
      .filter((w) => w.keyStore === keyStore && w.id > (afterId ?? ''))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  }
  async keyRefInUse(keyStore: string, keyRef: string): Promise<boolean> {
    return [...this.wallets.values()].some((w) => w.keyStore === keyStore && w.keyRef === keyRef);
  }
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

export class InMemorySignatureLog implements SignatureLog {
  readonly records = new Map<string, SignatureRecord>();

  async record(entry: SignatureRecord): Promise<void> {
    if (this.records.has(entry.submissionHash)) throw new Error('duplicate submission hash');
    this.records.set(entry.submissionHash, entry);
  }
  async find(vaultId: string, submissionHash: string): Promise<SignatureRecord | null> {
    const r = this.records.get(submissionHash);
    return r && r.vaultId === vaultId ? r : null;
  }
  async attachTransaction(vaultId: string, submissionHash: string, transactionHash: string, now: Date): Promise<AttachResult> {
    const r = await this.find(vaultId, submissionHash);
    if (!r) return 'missing';
    if (r.transactionHash === null) {
      this.records.set(submissionHash, { ...r, transactionHash, submitted: now });
      return 'attached';
    }
    return r.transactionHash === transactionHash ? 'unchanged' : 'conflict';
  }
}
