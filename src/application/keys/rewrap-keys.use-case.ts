import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { Wallet } from '../../domain/wallet.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { KeyStoreRegistry } from '../../ports/key-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { audit, OPERATOR } from '../audit/audit-actor.js';
import type { WalletBindings } from '../wallets/wallet-binding.js';

export interface RewrapProgress {
  readonly done: number;
  readonly total: number;
}

const BATCH = 200;

/**
 * After the wrapping key of a store is rotated, re-wraps every wallet key of that store under the latest
 * version, so older versions can be retired. Resumable: running it again re-wraps what is left (and
 * harmlessly re-wraps what is done). A run that re-wrapped any key is recorded (`keys.rewrapped`) once it
 * is done; one that failed half-way is recorded by the rerun that finishes it.
 */
export class RewrapKeys {
  constructor(
    private readonly repository: WalletStore,
    private readonly keyStores: KeyStoreRegistry,
    /** A binding covers the key reference: it moves with the key (see rewrapped). */
    private readonly bindings: WalletBindings,
    private readonly auditLog: AuditLog,
    private readonly clock: Clock,
  ) {}

  async execute(storeName: string, onProgress: (p: RewrapProgress) => void = () => undefined): Promise<RewrapProgress> {
    const store = this.keyStores.all().find((s) => s.name === storeName);
    if (!store) {
      const configured = this.keyStores.all().map((s) => s.name).join(', ');
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, `key store ${storeName} is not configured (configured: ${configured})`);
    }
    if (!store.rewrap) throw new DomainError(ErrorCode.INVALID_ARGUMENT, `key store ${storeName} does not wrap keys; nothing to rewrap`);
    const wallets = [];
    for (let batch = await this.repository.listByKeyStore(storeName, null, BATCH); batch.length > 0; ) {
      wallets.push(...batch);
      batch = await this.repository.listByKeyStore(storeName, batch.at(-1)!.id, BATCH);
    }
    let done = 0;
    onProgress({ done, total: wallets.length });
    for (const wallet of wallets) {
      const keyRef = await store.rewrap(wallet.keyRef);
      // A concurrent rename or expire bumps the version: re-read and retry until the new reference sticks.
      for (let current = wallet; !(await this.repository.updateWallet(await this.rewrapped(current, keyRef))); ) {
        const fresh = await this.repository.findRecord(current.id);
        if (!fresh) break; // purged meanwhile: nothing left to rewrap
        current = fresh;
      }
      onProgress({ done: ++done, total: wallets.length });
    }
    if (done > 0) await audit(this.auditLog, 'keys.rewrapped', this.clock.now(), OPERATOR, null, null, { keyStore: storeName, rewrapped: done });
    return { done, total: wallets.length };
  }

  /**
   * The row with the key's new reference. Its binding covers the reference, so a binding that holds is
   * signed again by the key under the new one; a row whose binding does not hold (or that has none) keeps
   * what it had: a re-wrap never makes a row bound that was not.
   */
  private async rewrapped(current: Wallet, keyRef: string): Promise<Wallet> {
    const binding = this.bindings.problemOf(current) === null ? await this.bindings.bind({ ...current, keyRef }) : current.binding;
    return { ...current, keyRef, binding, version: current.version + 1 };
  }
}
