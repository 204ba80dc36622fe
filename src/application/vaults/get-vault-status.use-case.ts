import type { Clock } from '../../ports/clock.port.js';
import type { ApiKeyStore } from '../../ports/api-key-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';

export interface VaultStatus {
  readonly timestamp: Date;
  readonly online: boolean;
  readonly vaultKeys: number;
  readonly wallets: number;
  readonly version: string;
}

export class GetVaultStatus {
  constructor(
    private readonly repository: ApiKeyStore & WalletStore,
    private readonly clock: Clock,
    /** Version of this build, usually the git commit. */
    private readonly version: string,
  ) {}

  async execute(vaultId: string): Promise<VaultStatus> {
    const now = this.clock.now();
    const [vaultKeys, wallets] = await Promise.all([
      this.repository.countActiveApiKeys(vaultId),
      this.repository.countWallets(vaultId, now),
    ]);
    return { timestamp: now, online: true, vaultKeys, wallets, version: this.version };
  }
}
