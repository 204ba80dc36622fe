import type { CreatedKey, KeyStore, RecoverableSignature } from '../../../src/ports/key-store.port.js';
import { LocalSigner } from '../shared/local-signer.js';
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
 * and signed with here (LocalSigner: the unwrapped-key cache and the signing thread of the `local` store).
 */
export class VaultTransitKeyStore implements KeyStore {
  readonly name = 'vault-transit';
  private readonly source: VaultTransitKeySource;
  private readonly signer: LocalSigner;

  constructor(config: VaultTransitKeyStoreConfig) {
    this.source = new VaultTransitKeySource(config);
    this.signer = new LocalSigner(this.source, {
      cacheSize: config.cacheSize ?? 10_000,
      cacheTtlMs: config.cacheTtlMs ?? 0,
      signingThread: config.signingThread,
    });
  }

  create(): Promise<CreatedKey> {
    return this.source.create();
  }

  sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    return this.signer.sign(keyRef, digest);
  }

  /** The ciphertext lives in the wallet record; removing the record removes it. Only memory is cleared. */
  async destroy(keyRef: string): Promise<void> {
    this.signer.forget(keyRef);
  }

  ping(): Promise<void> {
    return this.source.ping();
  }

  /** Keys live only inside wallet records, so there is never an orphan to find. */
  async listKeyRefs(): Promise<string[]> {
    return [];
  }

  /** Re-encrypts under the latest Transit key version (after `vault write -f transit/keys/<key>/rotate`). */
  rewrap(keyRef: string): Promise<string> {
    return this.source.rewrap(keyRef);
  }

  close(): Promise<void> {
    return this.signer.close();
  }
}
