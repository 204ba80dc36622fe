import type { CreatedKey, KeyOwner, KeyStore, RecoverableSignature, StoredKey } from '../../../src/ports/key-store.port.js';
import { LocalSigner } from '../shared/local-signer.js';
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
 * The `local` key store: key files (LocalFileKeySource) signed with here (LocalSigner, which holds the
 * unwrapped-key cache and the signing thread).
 */
export class LocalFileKeyStore implements KeyStore {
  readonly name = 'local';
  private readonly source: LocalFileKeySource;
  private readonly signer: LocalSigner;

  constructor(config: LocalFileKeyStoreConfig) {
    this.source = new LocalFileKeySource(config);
    this.signer = new LocalSigner(this.source, {
      cacheSize: config.cacheSize ?? 10_000,
      cacheTtlMs: config.cacheTtlMs ?? 5 * 60_000,
      signingThread: config.signingThread,
    });
  }

  create(owner?: KeyOwner): Promise<CreatedKey> {
    return this.source.create(owner);
  }

  sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    return this.signer.sign(keyRef, digest);
  }

  async destroy(keyRef: string): Promise<void> {
    this.signer.forget(keyRef);
    await this.source.destroy(keyRef);
  }

  /** Also checks the master key against the key directory's (LocalFileKeySource.ping). */
  ping(): Promise<void> {
    return this.source.ping();
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

  close(): Promise<void> {
    return this.signer.close();
  }
}
