import type { Wallet } from '../domain/wallet.js';
import type { Clock } from '../ports/clock.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { requireWallet } from './wallet-lookup.js';

export class GetWallet {
  constructor(
    private readonly repository: WalletRepository,
    private readonly clock: Clock,
  ) {}

  execute(vaultId: string, address: string): Promise<Wallet> {
    return requireWallet(this.repository, vaultId, address, this.clock.now());
  }
}
