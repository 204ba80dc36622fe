import type { Clock } from '../../ports/clock.port.js';
import type { KeyStoreRegistry } from '../../ports/key-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { auditEvent, SYSTEM } from '../audit/audit-actor.js';

export interface PurgeReport {
  readonly destroyed: number;
  readonly failed: number;
}

/**
 * Destroys the key material of wallets past their expiry, then removes their records. The wallet is
 * already invisible from its expiry instant. Each wallet is first claimed with a conditional write
 * (still expired at that moment), so an unexpire racing the expiry instant either wins, and the key
 * is kept, or loses, and the client gets 404; never a wallet answered as unexpired whose key is gone.
 * Each step is idempotent, so a crash between them is finished by the next run.
 *
 * The order is claim, destroy the key, then remove the record together with its wallet.deleted audit
 * record (actor `system`) in one transaction. The key store is outside the database, so no transaction
 * spans the destroy; this order is the one where a crash loses nothing and claims nothing false:
 * - before the destroy: the key and the (invisible) record are kept; the next run destroys and removes.
 * - between the destroy and the removal: the record still names the destroyed key, with no wallet.deleted
 *   yet. It stays expired, so it is invisible (no read, sign or unexpire finds it) and the next run finds it
 *   again, destroys again (idempotent in every key store) and removes it with its record: the event is
 *   late, not lost. The record is the durable note that the deletion is unfinished.
 * - the removal and wallet.deleted commit together or not at all, and only a removal that found the
 *   record writes one, so the event is recorded (and delivered, docs/webhooks.md) exactly once.
 * Removing first would instead leave a key no record names and a trail that says it was destroyed.
 */
export class PurgeExpiredWallets {
  constructor(
    private readonly repository: WalletStore,
    private readonly keyStores: KeyStoreRegistry,
    private readonly clock: Clock,
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
          await this.repository.removeWallet(
            wallet.id,
            auditEvent('wallet.deleted', this.clock.now(), SYSTEM, wallet.vaultId, wallet.address, {
              walletId: wallet.id,
              keyStore: wallet.keyStore,
              expired: wallet.expires!.toISOString(),
            }),
          );
        } catch {
          // A store that is down (or a removal that failed) keeps the record, so the next run tries again;
          // the wallet stays invisible.
          skip.add(wallet.id);
          failed++;
          continue;
        }
        destroyed++;
      }
    }
  }
}
