import { toChecksumAddress } from '../../domain/address.js';
import type { Clock } from '../../ports/clock.port.js';
import type { KeyQuarantine } from '../../ports/key-quarantine.port.js';
import type { KeyStoreRegistry } from '../../ports/key-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { auditEvent, SYSTEM } from '../audit/audit-actor.js';

export interface SweepReport {
  /** Keys quarantined by this run. */
  readonly quarantined: number;
  /** Keys in quarantine after it (what the metric and its alert report). */
  readonly held: number;
}

/**
 * Finds the keys of this deployment that no wallet record names (left by a crash between key creation
 * and record commit, or made unreferenced by a database restored to an earlier point) and quarantines
 * them: kept, never destroyed, not signing (no wallet names them), recorded once in the audit trail and
 * left for the operator (`wallet-vault keys quarantine`). It never touches a key of another deployment
 * or one that carries none: the stores do not even list those. Only keys older than `graceMs` are
 * considered, so a create in flight is never taken for an orphan.
 */
export class SweepOrphanKeys {
  constructor(
    private readonly repository: WalletStore,
    private readonly keyStores: KeyStoreRegistry,
    /** Absent (a persistence of an earlier release): no deployment id, so nothing is ever swept. */
    private readonly quarantine: KeyQuarantine | undefined,
    private readonly clock: Clock,
    private readonly graceMs = 10 * 60 * 1000,
  ) {}

  async execute(): Promise<SweepReport> {
    if (!this.quarantine) return { quarantined: 0, held: 0 };
    const deploymentId = await this.quarantine.deploymentId();
    const createdBefore = new Date(this.clock.now().getTime() - this.graceMs);
    let quarantined = 0;
    for (const store of this.keyStores.all()) {
      if (!store.listKeys) continue;
      for (const key of await store.listKeys({ deploymentId, createdBefore })) {
        if (await this.repository.keyRefInUse(store.name, key.keyRef)) continue;
        // Once per key, not once per run: a key already held is left as it is.
        if (await this.quarantine.has(store.name, key.keyRef)) continue;
        const now = this.clock.now();
        // Held and recorded in one transaction: never held unrecorded, never recorded twice (a key
        // already held, by a concurrent sweep too, is not added and records nothing).
        const held = { keyStore: store.name, keyRef: key.keyRef, address: key.address, vaultId: key.vaultId, quarantined: now };
        const recorded = auditEvent('key.quarantined', now, SYSTEM, key.vaultId, toChecksumAddress(key.address), {
          keyStore: store.name,
          reason: 'no wallet names it',
        });
        if (await this.quarantine.add(held, recorded)) quarantined++;
      }
    }
    return { quarantined, held: await this.releaseNamed() };
  }

  /**
   * A held key that a wallet names again (a newer backup restored over the database) is not an orphan
   * any more: it leaves quarantine, recorded. Returns how many keys stay held.
   */
  private async releaseNamed(): Promise<number> {
    let held = 0;
    for (const key of await this.quarantine!.list()) {
      if (!(await this.repository.keyRefInUse(key.keyStore, key.keyRef))) {
        held++;
        continue;
      }
      const recorded = auditEvent('key.restored', this.clock.now(), SYSTEM, key.vaultId, toChecksumAddress(key.address), {
        keyStore: key.keyStore,
        reason: 'a wallet names it again',
      });
      await this.quarantine!.remove(key.keyStore, key.keyRef, recorded);
    }
    return held;
  }
}
