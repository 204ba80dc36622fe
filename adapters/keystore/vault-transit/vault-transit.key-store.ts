import { LocalSigningKeyStore } from '../shared/local-signing.key-store.js';
import { VaultTransitKeySource, type VaultTransitKeySourceConfig } from './vault-transit.key-source.js';

/** Configuration of the `vault-transit` key store. */
export interface VaultTransitKeyStoreConfig extends VaultTransitKeySourceConfig {
  /** Keep unwrapped keys in memory this long (default 0: off, one decrypt call per signature). */
  readonly cacheTtlMs?: number;
  readonly cacheSize?: number;
  /** Sign on a thread of its own, off the event loop (default: where the machine has more than one CPU). */
  readonly signingThread?: boolean;
}

/**
 * The `vault-transit` key store: keys wrapped by Transit (VaultTransitKeySource), unwrapped by its decrypt
 * and signed with here (LocalSigningKeyStore, as the `local` store signs).
 */
export class VaultTransitKeyStore extends LocalSigningKeyStore<VaultTransitKeySource> {
  constructor(config: VaultTransitKeyStoreConfig) {
    super('vault-transit', new VaultTransitKeySource(config), {
      cacheSize: config.cacheSize ?? 10_000,
      cacheTtlMs: config.cacheTtlMs ?? 0,
      signingThread: config.signingThread,
    });
  }

  /** Keys live only inside wallet records, so there is never an orphan to find. */
  async listKeyRefs(): Promise<string[]> {
    return [];
  }

  /** Re-encrypts under the latest Transit key version (after `vault write -f transit/keys/<key>/rotate`). */
  rewrap(keyRef: string): Promise<string> {
    return this.source.rewrap(keyRef);
  }
}
