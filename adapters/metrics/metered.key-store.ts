import { performance } from 'node:perf_hooks';
import type { CreatedKey, DerivedKey, KeyOwner, KeyStore, RecoverableSignature, StoredKey } from '../../src/ports/key-store.port.js';
import type { KeyStoreOperation } from './prometheus.metrics.js';

/** Where a metered store reports; PrometheusMetrics implements it. */
export interface KeyStoreObserver {
  observeKeyStore(keyStore: string, operation: KeyStoreOperation, ok: boolean, seconds: number): void;
}

/**
 * A KeyStore that times every call of the store it wraps. Applied in the composition root, so every
 * store is measured the same way and none carries metrics code of its own.
 */
export class MeteredKeyStore implements KeyStore {
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
    private readonly observer: KeyStoreObserver,
  ) {
    this.name = inner.name;
    // Only stores that can import, re-wrap (or list) expose importKey, rewrap (listKeys): callers test for their presence.
    if (inner.importKey) {
      const importKey = inner.importKey.bind(inner);
      this.importKey = (privateKey, owner) => this.timed('importKey', () => importKey(privateKey, owner));
    }
    if (inner.deriveKey) {
      const deriveKey = inner.deriveKey.bind(inner);
      this.deriveKey = (index, owner) => this.timed('deriveKey', () => deriveKey(index, owner));
    }
    if (inner.exportKey) {
      const exportKey = inner.exportKey.bind(inner);
      this.exportKey = (keyRef) => this.timed('exportKey', () => exportKey(keyRef));
    }
    if (inner.exportSeed) {
      const exportSeed = inner.exportSeed.bind(inner);
      this.exportSeed = (vaultId) => this.timed('exportSeed', () => exportSeed(vaultId));
    }
    if (inner.rewrap) {
      const rewrap = inner.rewrap.bind(inner);
      this.rewrap = (keyRef) => this.timed('rewrap', () => rewrap(keyRef));
    }
    if (inner.listKeys) {
      const listKeys = inner.listKeys.bind(inner);
      this.listKeys = (query) => this.timed('listKeys', () => listKeys(query));
    }
    if (inner.listKeyRefs) {
      const listKeyRefs = inner.listKeyRefs.bind(inner);
      this.listKeyRefs = (createdBefore) => this.timed('listKeyRefs', () => listKeyRefs(createdBefore));
    }
  }

  create(owner?: KeyOwner): Promise<CreatedKey> {
    return this.timed('create', () => this.inner.create(owner));
  }

  sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    return this.timed('sign', () => this.inner.sign(keyRef, digest));
  }

  destroy(keyRef: string): Promise<void> {
    return this.timed('destroy', () => this.inner.destroy(keyRef));
  }

  ping(): Promise<void> {
    return this.timed('ping', () => this.inner.ping());
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async timed<T>(operation: KeyStoreOperation, work: () => Promise<T>): Promise<T> {
    const started = performance.now(); // cheaper than a pair of BigInts, as precise at this scale
    let ok = false;
    try {
      const result = await work();
      ok = true;
      return result;
    } finally {
      this.observer.observeKeyStore(this.name, operation, ok, (performance.now() - started) / 1000);
    }
  }
}
