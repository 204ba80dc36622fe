import { normalizeWalletName, renameWallet, type Wallet } from '../domain/wallet.js';
import type { Clock } from '../ports/clock.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { mutateWallet } from './wallet-lookup.js';

export class RenameWallet {
  constructor(
    private readonly repository: WalletRepository,
    private readonly clock: Clock,
  ) {}

  execute(vaultId: string, address: string, rawName: unknown): Promise<Wallet> {
    const name = normalizeWalletName(rawName);
    return mutateWallet(this.repository, this.clock, vaultId, address, (w, now) => renameWallet(w, name, now));
  }
}
