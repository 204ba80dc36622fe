import { DomainError, ErrorCode, invalidArgument } from '../../src/domain/errors.js';
import { isPrivateKey } from '../../src/domain/private-key.js';
import { addressFromPublicKey } from '../../src/domain/address.js';
import type { CreatedKey, KeyOwner, KeyStore, RecoverableSignature, StoredKey } from '../../src/ports/key-store.port.js';
import { generatePrivateKey, publicKeyOf, signDigest } from '../keystore/shared/secp256k1.js';

/** Real secp256k1 keys held in a Map, with fault injection, for application unit tests. */
export class InMemoryKeyStore implements KeyStore {
  private readonly keys = new Map<string, { key: Buffer; created: Date; owner?: KeyOwner }>();
  private counter = 0;
  /** The next N operations fail with KEYSTORE_UNAVAILABLE. */
  failNext = 0;
  /** Keeps a copy of the key it is given (absent with `{ importKey: false }`: a store that cannot import). */
  readonly importKey?: (privateKey: Uint8Array, owner?: KeyOwner) => Promise<CreatedKey>;

  constructor(
    readonly name: string,
    options: { readonly importKey?: boolean } = {},
  ) {
    if (options.importKey !== false) {
      this.importKey = async (privateKey, owner) => {
        this.maybeFail();
        if (!isPrivateKey(privateKey)) throw invalidArgument('privateKey: not a secp256k1 private key');
        const key = Buffer.from(privateKey);
        const keyRef = `${this.name}-${++this.counter}`;
        this.keys.set(keyRef, { key, created: new Date(), owner });
        return { keyRef, publicKey: publicKeyOf(key) };
      };
    }
  }

  get size(): number {
    return this.keys.size;
  }
  has(keyRef: string): boolean {
    return this.keys.has(keyRef);
  }

  async create(owner?: KeyOwner): Promise<CreatedKey> {
    this.maybeFail();
    const key = generatePrivateKey();
    const keyRef = `${this.name}-${++this.counter}`;
    this.keys.set(keyRef, { key, created: new Date(), owner });
    return { keyRef, publicKey: publicKeyOf(key) };
  }
  async sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    this.maybeFail();
    const entry = this.keys.get(keyRef);
    if (!entry) throw new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store ${this.name}: no key for this wallet`);
    return signDigest(entry.key, digest);
  }
  async destroy(keyRef: string): Promise<void> {
    this.maybeFail();
    this.keys.delete(keyRef);
  }
  async ping(): Promise<void> {
    this.maybeFail();
  }
  async listKeys(query: { readonly deploymentId: string; readonly createdBefore: Date }): Promise<StoredKey[]> {
    return [...this.keys]
      .filter(([, v]) => v.created < query.createdBefore && v.owner?.deploymentId === query.deploymentId)
      .map(([keyRef, v]) => ({ keyRef, address: addressFromPublicKey(publicKeyOf(v.key)).toLowerCase(), vaultId: v.owner!.vaultId }));
  }
  async listKeyRefs(createdBefore: Date): Promise<string[]> {
    return [...this.keys].filter(([, v]) => v.created < createdBefore).map(([k]) => k);
  }
  async close(): Promise<void> {}

  private maybeFail(): void {
    if (this.failNext > 0) {
      this.failNext--;
      throw new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store ${this.name}: unavailable (injected)`);
    }
  }
}
