import type { CreatedKey, KeyOwner, KeyStore, RecoverableSignature } from '../../../src/ports/key-store.port.js';
import { LocalSigner, type KeySource, type LocalSignerOptions } from './local-signer.js';

/**
 * What a store that signs locally needs of its key source beyond `load`: the custody half of the
 * KeyStore port. Anything more a source offers (listing, re-wrapping, checking a master key) its store
 * class passes on itself.
 */
export interface CustodyKeySource extends KeySource {
  /** Generates a key and keeps it (wrapped) durably before returning. */
  create(owner?: KeyOwner): Promise<CreatedKey>;
  /** Removes the wrapped key; one already gone is not an error. */
  destroy(keyRef: string): Promise<void>;
  /** Resolves when the backend answers; rejects with KEYSTORE_UNAVAILABLE otherwise. */
  ping(): Promise<void>;
}

/**
 * A KeyStore made of a key source (custody: create, unwrap, destroy) and the LocalSigner (the
 * unwrapped-key cache and the signing thread). The `local` and `vault-transit` stores are this, each with
 * its source and its defaults; the signer forgets a key before its source destroys it, so no unwrapped
 * copy outlives the key.
 */
export class SourceBackedKeyStore<S extends CustodyKeySource> implements KeyStore {
  private readonly signer: LocalSigner;

  constructor(
    readonly name: string,
    protected readonly source: S,
    signer: LocalSignerOptions,
  ) {
    this.signer = new LocalSigner(source, signer);
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

  ping(): Promise<void> {
    return this.source.ping();
  }

  /** Zeroes the unwrapped keys and ends the signing thread. */
  close(): Promise<void> {
    return this.signer.close();
  }
}
