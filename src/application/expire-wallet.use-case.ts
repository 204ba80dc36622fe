import { expireWallet, type Wallet } from '../domain/wallet.js';
import type { AuditLog } from '../ports/audit-log.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { actorOf, audit } from './audit-actor.js';
import type { Principal } from './authenticate.use-case.js';
import { mutateWallet } from './wallet-lookup.js';

/**
 * Schedules deletion 30 days out; nothing is destroyed in the key store until then. Recorded only when
 * the wallet was active: expiring an expiring wallet keeps its date and changes nothing.
 */
export class ExpireWallet {
  constructor(
    private readonly repository: WalletRepository,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
  ) {}

  async execute(principal: Principal, address: string): Promise<Wallet> {
    const m = await mutateWallet(this.repository, this.clock, principal.vaultId, address, expireWallet);
    if (m.previous) {
      await audit(this.auditLog, 'wallet.expired', m.at, actorOf(principal), principal.vaultId, m.wallet.address, {
        walletId: m.wallet.id,
        expires: m.wallet.expires!.toISOString(),
      });
    }
    return m.wallet;
  }
}
