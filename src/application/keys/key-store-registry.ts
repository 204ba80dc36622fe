import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { KeyStore, KeyStoreRegistry } from '../../ports/key-store.port.js';

/** The configured stores by name; new wallets go to `defaultName`. */
export class MapKeyStoreRegistry implements KeyStoreRegistry {
  private readonly stores: Map<string, KeyStore>;
  readonly default: KeyStore;

  constructor(stores: readonly KeyStore[], defaultName: string) {
    this.stores = new Map(stores.map((s) => [s.name, s]));
    const chosen = this.stores.get(defaultName);
    if (!chosen) throw new Error(`key store ${defaultName} is not configured`);
    this.default = chosen;
  }

  get(name: string): KeyStore {
    const store = this.stores.get(name);
    if (!store) {
      throw new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store ${name} holds this wallet but is not configured`);
    }
    return store;
  }

  all(): readonly KeyStore[] {
    return [...this.stores.values()];
  }
}
