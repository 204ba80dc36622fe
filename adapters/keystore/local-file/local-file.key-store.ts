import type { StoredKey } from '../../../src/ports/key-store.port.js';
import { LocalSigningKeyStore } from '../shared/local-signing.key-store.js';
import { LocalFileKeySource, type LocalFileKeySourceConfig } from './local-file.key-source.js';

/** Configuration of the `local` key store. */
export interface LocalFileKeyStoreConfig extends LocalFileKeySourceConfig {
  /** Unwrapped keys kept in memory at most (default 10 000; 0 disables the cache). */
  readonly cacheSize?: number;
  /** How long an unwrapped key stays in memory (default 5 minutes). */
  readonly cacheTtlMs?: number;
  /**
   * Sign on a thread of its own, off the event loop (SigningThread). Default: where the machine has more
   * than one CPU; on one, the thread would only take turns with the event loop.
   */
  readonly signingThread?: boolean;
}

/**
 * The `local` key store: key files (LocalFileKeySource) signed with here (LocalSigningKeyStore). Its
 * ping also checks the master key against the key directory's (LocalFileKeySource.ping); it lists its
 * keys for the orphan sweep.
 */
export class LocalFileKeyStore extends LocalSigningKeyStore<LocalFileKeySource> {
  constructor(config: LocalFileKeyStoreConfig) {
    super('local', new LocalFileKeySource(config), {
      cacheSize: config.cacheSize ?? 10_000,
      cacheTtlMs: config.cacheTtlMs ?? 5 * 60_000,
      signingThread: config.signingThread,
    });
    // A sign under way keeps its own copy (SigningThread.sign); the cache must not outlive a seal.
    this.source.holder.onDrop(() => this.forgetKeys());
  }

  checkMasterKey(): Promise<string | null> {
    return this.source.checkMasterKey();
  }

  listKeys(query: { readonly deploymentId: string; readonly createdBefore: Date }): Promise<StoredKey[]> {
    return this.source.listKeys(query);
  }

  listKeyRefs(createdBefore: Date): Promise<string[]> {
    return this.source.listKeyRefs(createdBefore);
  }
}
