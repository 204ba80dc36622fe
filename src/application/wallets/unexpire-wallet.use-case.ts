import { unexpireWallet, type Wallet } from '../../domain/wallet.js';
import type { Clock } from '../../ports/clock.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import type { Principal } from '../access/authenticate.use-case.js';
import { changeWallet } from './wallet-lookup.js';

/** Recorded only when the wallet was expiring: unexpiring an active wallet changes nothing. */
export class UnexpireWallet {
  constructor(
    readonly repository: WalletStore,
    readonly clock: Clock,
  ) {}

  execute(principal: Principal, address: string): Promise<Wallet> {
    return changeWallet(this, principal, address, unexpireWallet, 'wallet.unexpired', (_after, before) => ({
      cancelledExpiry: before.expires!.toISOString(),
    }));
  }
}
