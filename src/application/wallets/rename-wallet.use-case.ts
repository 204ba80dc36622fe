import { normalizeWalletName, renameWallet, type Wallet } from '../../domain/wallet.js';
import type { Clock } from '../../ports/clock.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import type { Principal } from '../access/authenticate.use-case.js';
import { changeWallet } from './wallet-lookup.js';

/** Recorded only when the name changes: renaming to the same name changes nothing. */
export class RenameWallet {
  constructor(
    readonly repository: WalletStore,
    readonly clock: Clock,
  ) {}

  execute(principal: Principal, address: string, rawName: unknown): Promise<Wallet> {
    const name = normalizeWalletName(rawName);
    return changeWallet(this, principal, address, (w, now) => renameWallet(w, name, now), 'wallet.renamed', (after, before) => ({
      from: before.name,
      to: after.name,
    }));
  }
}
