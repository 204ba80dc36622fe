import { invalidArgument } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.port.js';
import type { WalletPage, WalletStore } from '../../ports/wallet-store.port.js';

export const LIST_DEFAULT_COUNT = 100;
export const LIST_MAX_COUNT = 1000;

export class ListWallets {
  constructor(
    private readonly repository: WalletStore,
    private readonly clock: Clock,
  ) {}

  execute(vaultId: string, offset = 0, count = LIST_DEFAULT_COUNT): Promise<WalletPage> {
    if (!Number.isSafeInteger(offset) || offset < 0) throw invalidArgument('offset: must be an integer >= 0');
    if (!Number.isSafeInteger(count) || count < 0 || count > LIST_MAX_COUNT) {
      throw invalidArgument(`count: must be an integer from 0 to ${LIST_MAX_COUNT}`);
    }
    return this.repository.listWallets(vaultId, this.clock.now(), offset, count);
  }
}
