import { normalizeWalletName, renameWallet, type Wallet } from '../domain/wallet.js';
import type { AuditLog } from '../ports/audit-log.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { actorOf, audit } from './audit-actor.js';
import type { Principal } from './authenticate.use-case.js';
import { mutateWallet } from './wallet-lookup.js';

export class RenameWallet {
  constructor(
    private readonly repository: WalletRepository,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
  ) {}

  /** Recorded only when the name changes: renaming to the same name changes nothing. */
  async execute(principal: Principal, address: string, rawName: unknown): Promise<Wallet> {
    const name = normalizeWalletName(rawName);
    const m = await mutateWallet(this.repository, this.clock, principal.vaultId, address, (w, now) => renameWallet(w, name, now));
    if (m.previous) {
      await audit(this.auditLog, 'wallet.renamed', m.at, actorOf(principal), principal.vaultId, m.wallet.address, {
        walletId: m.wallet.id,
        from: m.previous.name,
        to: m.wallet.name,
      });
    }
    return m.wallet;
  }
}
