import { addressFromPublicKey } from '../domain/address.js';
import { DomainError, ErrorCode } from '../domain/errors.js';
import { normalizeWalletName, type Wallet } from '../domain/wallet.js';
import type { Clock } from '../ports/clock.port.js';
import type { IdGenerator } from '../ports/id-generator.port.js';
import type { KeyStoreRegistry } from '../ports/key-store.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';

export class CreateWallet {
  constructor(
    private readonly repository: WalletRepository,
    private readonly keyStores: KeyStoreRegistry,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /**
   * The key is durable in its store before the record naming it is committed, and the record is
   * committed before this resolves: an acknowledged wallet survives a crash at any instant.
   */
  async execute(input: { vaultId: string; name: unknown }): Promise<Wallet> {
    const name = normalizeWalletName(input.name);
    const vault = await this.repository.findVault(input.vaultId);
    if (!vault) throw new DomainError(ErrorCode.VAULT_NOT_FOUND, `vault ${input.vaultId} does not exist`);
    const store = this.keyStores.default;
    const id = this.ids.next();
    const key = await store.create({ accountId: vault.accountId, vaultId: vault.id, walletId: id });
    const now = this.clock.now();
    const wallet: Wallet = {
      id,
      accountId: vault.accountId,
      vaultId: vault.id,
      name,
      address: addressFromPublicKey(key.publicKey),
      keyStore: store.name,
      keyRef: key.keyRef,
      created: now,
      updated: now,
      expires: null,
      version: 1,
    };
    try {
      await this.repository.insertWallet(wallet);
    } catch (error) {
      // No record names the key, so it must not outlive this failure (the orphan sweep is the backstop).
      await store.destroy(key.keyRef).catch(() => undefined);
      throw error;
    }
    return wallet;
  }
}
