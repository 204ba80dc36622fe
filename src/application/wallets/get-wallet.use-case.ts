import type { Wallet } from '../../domain/wallet.js';
import type { Clock } from '../../ports/clock.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { requireWallet } from './wallet-lookup.js';

export class GetWallet {
  constructor(
    private readonly repository: WalletStore,
    private readonly clock: Clock,
  ) {}

  execute(vaultId: string, address: string): Promise<Wallet> {
    return requireWallet(this.repository, vaultId, address, this.clock.now());
  }
}
