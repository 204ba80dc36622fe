import type { Clock } from '../ports/clock.port.js';
import type { KeyStoreRegistry } from '../ports/key-store.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';

/**
 * Destroys keys that no wallet record names: left by a crash between key creation and record commit.
 * Only keys older than `graceMs` are considered, so a create in flight is never swept.
 */
export class SweepOrphanKeys {
  constructor(
    private readonly repository: WalletRepository,
    private readonly keyStores: KeyStoreRegistry,
    private readonly clock: Clock,
    private readonly graceMs = 10 * 60 * 1000,
  ) {}

  async execute(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - this.graceMs);
    let swept = 0;
    for (const store of this.keyStores.all()) {
      for (const keyRef of await store.listKeyRefs(before)) {
        if (!(await this.repository.keyRefInUse(store.name, keyRef))) {
          await store.destroy(keyRef);
          swept++;
        }
      }
    }
    return swept;
  }
}
