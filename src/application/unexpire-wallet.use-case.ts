import { unexpireWallet, type Wallet } from '../domain/wallet.js';
import type { Clock } from '../ports/clock.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { mutateWallet } from './wallet-lookup.js';

export class UnexpireWallet {
  constructor(
    private readonly repository: WalletRepository,
    private readonly clock: Clock,
  ) {}

  execute(vaultId: string, address: string): Promise<Wallet> {
    return mutateWallet(this.repository, this.clock, vaultId, address, unexpireWallet);
  }
}
