import type { CreatedKey, DerivedKey, KeyOwner, KeyStore, RecoverableSignature, StoredKey } from '../../src/ports/key-store.port.js';
import { sealedError } from '../keystore/local-file/master-key-holder.js';

/**
 * A KeyStore that refuses to sign, create or import while the seal is closed (VAULT_SEAL=shamir), with
 * VAULT_SEALED naming the seal, whatever store it wraps: a sealed vault signs nothing, not only with the
 * local store's keys (whose master key is the one sealed). Applied to every store at the composition
 * root, before createVault, so every route, the JSON-RPC endpoint, a release and the binding of a new
 * wallet reach it. Deleting a key, listing keys and pinging need no key material and pass through.
 */
export class SealedKeyStore implements KeyStore {
  readonly name: string;
  readonly importKey?: (privateKey: Uint8Array, owner?: KeyOwner) => Promise<CreatedKey>;
  readonly rewrap?: (keyRef: string) => Promise<string>;
  readonly deriveKey?: (index: number, owner: KeyOwner) => Promise<DerivedKey>;
  readonly exportKey?: (keyRef: string) => Promise<Buffer>;
  readonly exportSeed?: (vaultId: string) => Promise<Buffer | null>;
  readonly listKeys?: (query: { readonly deploymentId: string; readonly createdBefore: Date }) => Promise<StoredKey[]>;
  readonly listKeyRefs?: (createdBefore: Date) => Promise<string[]>;

  constructor(
    private readonly inner: KeyStore,
    private readonly seal: { readonly sealed: boolean },
  ) {
    this.name = inner.name;
    // Present only where the wrapped store has them: callers test for their presence.
    if (inner.importKey) {
      const importKey = inner.importKey.bind(inner);
      this.importKey = (privateKey, owner) => this.unsealed(() => importKey(privateKey, owner));
    }
    if (inner.deriveKey) {
      const deriveKey = inner.deriveKey.bind(inner);
      this.deriveKey = (index, owner) => this.unsealed(() => deriveKey(index, owner));
    }
    if (inner.exportKey) {
      const exportKey = inner.exportKey.bind(inner);
      this.exportKey = (keyRef) => this.unsealed(() => exportKey(keyRef));
    }
    if (inner.exportSeed) {
      const exportSeed = inner.exportSeed.bind(inner);
      this.exportSeed = (vaultId) => this.unsealed(() => exportSeed(vaultId));
    }
    if (inner.rewrap) {
      const rewrap = inner.rewrap.bind(inner);
      this.rewrap = (keyRef) => this.unsealed(() => rewrap(keyRef));
    }
    if (inner.listKeys) this.listKeys = inner.listKeys.bind(inner);
    if (inner.listKeyRefs) this.listKeyRefs = inner.listKeyRefs.bind(inner);
  }

  create(owner?: KeyOwner): Promise<CreatedKey> {
    return this.unsealed(() => this.inner.create(owner));
  }

  /** Sealed, every sign is refused before the policy gate: a sealed refusal counts against no limit. */
  refusesEverySign(): Error | null {
    return this.seal.sealed ? sealedError() : null;
  }

  sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    return this.seal.sealed ? Promise.reject(sealedError()) : this.inner.sign(keyRef, digest);
  }

  destroy(keyRef: string): Promise<void> {
    return this.inner.destroy(keyRef);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private unsealed<T>(work: () => Promise<T>): Promise<T> {
    return this.seal.sealed ? Promise.reject(sealedError()) : work();
  }
}
