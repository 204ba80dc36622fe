import type { AuditLog } from '../ports/audit-log.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { KeyStoreRegistry } from '../ports/key-store.port.js';
import type { WalletStore } from '../ports/wallet-store.port.js';
import { audit, SYSTEM } from './audit-actor.js';

export interface PurgeReport {
  readonly destroyed: number;
  readonly failed: number;
}

/**
 * Destroys the key material of wallets past their expiry, then removes their records. The wallet is
 * already invisible from its expiry instant. Each wallet is first claimed with a conditional write
 * (still expired at that moment), so an unexpire racing the expiry instant either wins, and the key
 * is kept, or loses, and the client gets 404; never a wallet answered as unexpired whose key is gone.
 * Each step is idempotent, so a crash between them is finished by the next run. Each removal is recorded in the audit trail (actor `system`) once the record
 * is gone.
 */
export class PurgeExpiredWallets {
  constructor(
    private readonly repository: WalletStore,
    private readonly keyStores: KeyStoreRegistry,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
    private readonly batchSize = 100,
  ) {}

  async execute(): Promise<PurgeReport> {
    let destroyed = 0;
    let failed = 0;
    const skip = new Set<string>();
    for (;;) {
      const batch = (await this.repository.findExpired(this.clock.now(), this.batchSize + skip.size)).filter(
        (w) => !skip.has(w.id),
      );
      if (batch.length === 0) return { destroyed, failed };
      for (const wallet of batch) {
        try {
          // Only a wallet still expired now is destroyed: one unexpired since it was found keeps its key.
          if (!(await this.repository.markDeleted(wallet.id, this.clock.now()))) {
            skip.add(wallet.id);
            continue;
          }
          await this.keyStores.get(wallet.keyStore).destroy(wallet.keyRef);
          await this.repository.removeWallet(wallet.id);
        } catch {
          // A store that is down keeps the record, so the next run tries again; the wallet stays invisible.
          skip.add(wallet.id);
          failed++;
          continue;
        }
        destroyed++;
        await audit(this.auditLog, 'wallet.deleted', this.clock.now(), SYSTEM, wallet.vaultId, wallet.address, {
          walletId: wallet.id,
          keyStore: wallet.keyStore,
          expired: wallet.expires!.toISOString(),
        });
      }
    }
  }
}
