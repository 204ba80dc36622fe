import { invalidArgument, DomainError, ErrorCode } from '../domain/errors.js';
import type { ApiKeyRecord, Vault } from '../domain/vault.js';
import { normalizeWalletName } from '../domain/wallet.js';
import type { Clock } from '../ports/clock.port.js';
import type { IdGenerator } from '../ports/id-generator.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { generateApiKey } from './api-key-format.js';

/** The account vaults go to when none is named: a self-hosted deployment usually has just one. */
export const DEFAULT_ACCOUNT = 'default';
const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Operator actions from the CLI: vaults and their API keys. */
export class ManageVaults {
  constructor(
    private readonly repository: WalletRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async createVault(input: { name: string; account?: string }): Promise<Vault> {
    const name = normalizeWalletName(input.name);
    const accountId = input.account ?? DEFAULT_ACCOUNT;
    if (!IDENTIFIER.test(accountId)) {
      throw invalidArgument('account: must be 1 to 100 letters, digits, ".", "_" or "-"');
    }
    const now = this.clock.now();
    await this.repository.ensureAccount(accountId, now);
    const vault: Vault = { id: this.ids.next(), accountId, name, created: now };
    await this.repository.insertVault(vault);
    return vault;
  }

  listVaults(): Promise<Vault[]> {
    return this.repository.listVaults();
  }

  /** Returns the key itself exactly once; only its hash is stored. */
  async createApiKey(vaultId: string): Promise<{ apiKey: string; record: ApiKeyRecord }> {
    await this.requireVault(vaultId);
    const { id, apiKey, secretHash } = generateApiKey();
    const record: ApiKeyRecord = { id, vaultId, secretHash, created: this.clock.now(), revoked: null };
    await this.repository.insertApiKey(record);
    return { apiKey, record };
  }

  async listApiKeys(vaultId: string): Promise<ApiKeyRecord[]> {
    await this.requireVault(vaultId);
    return this.repository.listApiKeys(vaultId);
  }

  async revokeApiKey(id: string): Promise<void> {
    if (!(await this.repository.revokeApiKey(id, this.clock.now()))) {
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, `api key ${id} does not exist`);
    }
  }

  private async requireVault(vaultId: string): Promise<Vault> {
    const vault = await this.repository.findVault(vaultId);
    if (!vault) throw new DomainError(ErrorCode.VAULT_NOT_FOUND, `vault ${vaultId} does not exist`);
    return vault;
  }
}
