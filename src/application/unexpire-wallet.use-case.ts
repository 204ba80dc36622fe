import { unexpireWallet, type Wallet } from '../domain/wallet.js';
import type { AuditLog } from '../ports/audit-log.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { actorOf, audit } from './audit-actor.js';
import type { Principal } from './authenticate.use-case.js';
import { mutateWallet } from './wallet-lookup.js';

/** Recorded only when the wallet was expiring: unexpiring an active wallet changes nothing. */
export class UnexpireWallet {
  constructor(
    private readonly repository: WalletRepository,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
  ) {}

  async execute(principal: Principal, address: string): Promise<Wallet> {
    const m = await mutateWallet(this.repository, this.clock, principal.vaultId, address, unexpireWallet);
    if (m.previous) {
      await audit(this.auditLog, 'wallet.unexpired', m.at, actorOf(principal), principal.vaultId, m.wallet.address, {
        walletId: m.wallet.id,
        cancelledExpiry: m.previous.expires!.toISOString(),
      });
    }
    return m.wallet;
  }
}
