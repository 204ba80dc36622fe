import { parseAddress } from '../../domain/address.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import { walletState, type Wallet } from '../../domain/wallet.js';
import type { Clock } from '../../ports/clock.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { auditEvent, OPERATOR, SYSTEM } from '../audit/audit-actor.js';
import type { WalletBindings } from './wallet-binding.js';
import { requireVault, requireWallet } from './wallet-lookup.js';

/** What a binding run did: the wallets it bound, and those it could not (each with why). */
export interface BindReport {
  readonly bound: readonly { readonly vaultId: string; readonly address: string }[];
  readonly failed: readonly { readonly vaultId: string; readonly address: string; readonly reason: string }[];
}

export interface BindWalletsDeps {
  readonly repository: VaultStore & WalletStore;
  readonly bindings: WalletBindings;
  readonly clock: Clock;
}

const PAGE = 100;

/**
 * Binds wallets that have no binding yet (WalletBindings): a wallet's own key signs its row's vault,
 * address, key store and key reference, and the binding is written with its `wallet.bound` record in one
 * transaction. Only two callers may do it, because binding a row makes it sign for the vault it names:
 *
 * - the upgrade (`upgrade`): once, for the wallets that a release before bindings made, at the first start
 *   with key stores after the migration that added them (its marker, consumed here);
 * - an operator (`bind`, `wallet-vault wallets bind`), for a wallet the upgrade could not bind (its key
 *   store was not configured or did not answer then) or one whose binding was cleared.
 *
 * A row whose binding is there but does not hold is never bound again here: that is a change made in the
 * database, and the remedy is the row as it was (docs/security.md).
 */
export class BindWallets {
  constructor(private readonly deps: BindWalletsDeps) {}

  /**
   * The upgrade's binding of every wallet without one (deleted ones left: they never sign again), when the
   * marker says the wallets of an earlier release still wait for it; null when it does not. The marker is
   * removed once the pass is done, whatever it could not bind (reported: an operator binds those), so from
   * then on nothing binds a wallet unasked. A crash before that leaves the marker: the next start resumes.
   */
  async upgrade(): Promise<BindReport | null> {
    const { repository } = this.deps;
    if (!(await repository.bindingUpgradePending())) return null;
    const report = await this.bindAll(undefined, SYSTEM, 'upgrade');
    await repository.finishBindingUpgrade();
    return report;
  }

  /**
   * The operator's binding of the vault's wallets without one (all, or the one at `address`). A wallet at
   * `address` that is bound already is CONFLICT (bound and holding: nothing to do; not holding: a row
   * changed in the database, which binding again would make sign for the vault it now names).
   */
  async bind(input: { readonly vaultId: string; readonly address?: string }): Promise<BindReport> {
    const { repository, bindings, clock } = this.deps;
    await requireVault(repository, input.vaultId);
    if (input.address === undefined) return this.bindAll(input.vaultId, OPERATOR, 'operator');
    const wallet = await requireWallet(repository, input.vaultId, input.address, clock.now());
    if (wallet.binding !== null) {
      throw new DomainError(
        ErrorCode.CONFLICT,
        bindings.problemOf(wallet) === null
          ? `wallet ${wallet.address} is bound to vault ${wallet.vaultId} already; nothing to do`
          : `wallet ${wallet.address}: its binding does not hold for its row (a change made in the database); restore the row as it was rather than bind it to what it now names (docs/security.md); nothing was bound`,
      );
    }
    return this.bindEach([wallet], OPERATOR, 'operator');
  }

  private async bindAll(vaultId: string | undefined, actor: string, by: string): Promise<BindReport> {
    const bound: BindReport['bound'][number][] = [];
    const failed: BindReport['failed'][number][] = [];
    let afterId: string | null = null;
    for (;;) {
      const page = await this.deps.repository.listUnbound({ ...(vaultId === undefined ? {} : { vaultId }), afterId, limit: PAGE });
      if (page.length === 0) break;
      afterId = page.at(-1)!.id;
      const now = this.deps.clock.now();
      const done = await this.bindEach(page.filter((w) => walletState(w, now) !== 'deleted'), actor, by);
      bound.push(...done.bound);
      failed.push(...done.failed);
    }
    return { bound, failed };
  }

  /**
   * Binds each of `wallets` (one at a time: a remote store is asked once per wallet), reporting each: a key
   * store that cannot sign it (not configured, not answering, another key at the reference) fails that
   * wallet only; a database that fails stops the run, so the upgrade's marker stays for the next start.
   */
  private async bindEach(wallets: readonly Wallet[], actor: string, by: string): Promise<BindReport> {
    const bound: BindReport['bound'][number][] = [];
    const failed: BindReport['failed'][number][] = [];
    for (const wallet of wallets) {
      const entry = { vaultId: wallet.vaultId, address: wallet.address };
      const outcome = await this.bindOne(wallet, actor, by);
      if (outcome === 'bound') bound.push(entry);
      else if (outcome !== 'bound elsewhere') failed.push({ ...entry, reason: outcome.failed });
    }
    return { bound, failed };
  }

  /**
   * Binds the row as it is, with optimistic concurrency (a rename racing it: re-read, bind again); `bound
   * elsewhere` when another writer bound it first (a second instance's upgrade) or the record is gone.
   */
  private async bindOne(wallet: Wallet, actor: string, by: string): Promise<'bound' | 'bound elsewhere' | { readonly failed: string }> {
    const { repository, bindings, clock } = this.deps;
    for (let current: Wallet | null = wallet; current !== null && current.binding === null; current = await repository.findRecord(current.id)) {
      let binding: string;
      try {
        binding = await bindings.bind(current);
      } catch (error) {
        if (error instanceof DomainError) return { failed: error.message };
        throw error;
      }
      const recorded = auditEvent('wallet.bound', clock.now(), actor, current.vaultId, current.address, { walletId: current.id, keyStore: current.keyStore, by });
      if (await repository.updateWallet({ ...current, binding, version: current.version + 1 }, recorded)) return 'bound';
    }
    return 'bound elsewhere';
  }
}
