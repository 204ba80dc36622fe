import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import type { CreatedKey, KeyStore, RecoverableSignature } from '../../src/ports/key-store.port.js';
import { generatePrivateKey, publicKeyOf, signDigest } from '../keystore/shared/secp256k1.js';

/** Real secp256k1 keys held in a Map, with fault injection, for application unit tests. */
export class InMemoryKeyStore implements KeyStore {
  private readonly keys = new Map<string, { key: Buffer; created: Date }>();
  private counter = 0;
  /** The next N operations fail with KEYSTORE_UNAVAILABLE. */
  failNext = 0;

  constructor(readonly name: string) {}

  get size(): number {
    return this.keys.size;
  }
  has(keyRef: string): boolean {
    return this.keys.has(keyRef);
  }

  async create(): Promise<CreatedKey> {
    this.maybeFail();
    const key = generatePrivateKey();
    const keyRef = `${this.name}-${++this.counter}`;
    this.keys.set(keyRef, { key, created: new Date() });
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
