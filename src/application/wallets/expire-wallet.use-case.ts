import { expireWallet, type Wallet } from '../../domain/wallet.js';
import type { Clock } from '../../ports/clock.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import type { Principal } from '../access/authenticate.use-case.js';
import { changeWallet } from './wallet-lookup.js';

/**
 * Schedules deletion 30 days out; nothing is destroyed in the key store until then. Recorded only when
 * the wallet was active: expiring an expiring wallet keeps its date and changes nothing.
 */
export class ExpireWallet {
  constructor(
    readonly repository: WalletStore,
    readonly clock: Clock,
  ) {}

  execute(principal: Principal, address: string): Promise<Wallet> {
    return changeWallet(this, principal, address, expireWallet, 'wallet.expired', (after) => ({ expires: after.expires!.toISOString() }));
  }
}
