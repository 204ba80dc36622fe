import type { CreatedKey, DerivedKey, KeyOwner, KeyStore, RecoverableSignature } from '../../../src/ports/key-store.port.js';
import { invalidArgument } from '../../../src/domain/errors.js';
import { isPrivateKey } from '../../../src/domain/private-key.js';
import { signDigest } from './secp256k1.js';
import { SigningThread } from './signing-thread.js';
import { cpuBudget, signingThreadPays } from '../../system/cpu-budget.js';

/**
 * Where the private keys of a locally signing store come from and are kept (the key files of `local`,
 * Transit for `vault-transit`): custody only, the store signs. Anything more a source offers (listing,
 * re-wrapping, checking a master key) its store class passes on itself.
 */
export interface KeySource {
  /** Generates a key and keeps it (wrapped) durably before returning. */
  create(owner?: KeyOwner): Promise<CreatedKey>;
  /**
   * Keeps a key the operator brings, wrapped and durably, as `create` keeps one it made (KeyStore.importKey):
   * a source without it cannot import. The caller zeroes `privateKey`.
   */
  import?(privateKey: Uint8Array, owner?: KeyOwner): Promise<CreatedKey>;
  /**
   * The private key `keyRef` names, unwrapped into a fresh buffer that the caller then owns (and zeroes).
   * The source checks that it is that key (the address the reference names): a wrapped key moved to
   * another reference is refused, never signed with. Rejects with KEYSTORE_UNAVAILABLE naming the store.
   */
  load(keyRef: string): Promise<Buffer>;
  /** Derives and keeps the key at `index` of the owner's vault's HD seed (KeyStore.deriveKey): a source without it cannot derive. */
  derive?(index: number, owner: KeyOwner): Promise<DerivedKey>;
  /** The vault's HD seed unwrapped into a fresh buffer the caller zeroes, or null when it has none (KeyStore.exportSeed): a source without it has no seeds. */
  seed?(vaultId: string): Promise<Buffer | null>;
  /** Removes the wrapped key; one already gone is not an error. */
  destroy(keyRef: string): Promise<void>;
  /** Resolves when the backend answers; rejects with KEYSTORE_UNAVAILABLE otherwise. */
  ping(): Promise<void>;
}

export interface LocalSigningOptions {
  /** Unwrapped keys kept in memory at most (0: none, each sign loads its key). */
  readonly cacheSize: number;
  /** How long an unwrapped key stays in memory (0: none). */
  readonly cacheTtlMs: number;
  /** Sign on a thread of its own (SigningThread). Default: where the machine has more than one CPU. */
  readonly signingThread?: boolean;
}

/**
 * A KeyStore that signs here with keys its KeySource unwraps into this process, as web3signer's
 * credential signers do (a source of key material + the signer that holds it). The `local` and
 * `vault-transit` stores are this class, each with its source and its defaults. Stores whose key never
 * leaves its backend (PKCS#11, AWS KMS) sign there instead.
 *
 * This is the one place that owns unwrapped keys, so the rules of who zeroes which buffer live here:
 * - a key kept in memory (bounded by `cacheSize`, for `cacheTtlMs`, the least recently used dropped
 *   first) is the store's, zeroed when evicted, expired, destroyed or closed;
 * - a key not kept (size or TTL 0) is its sign's only, zeroed once signed;
 * - of two concurrent loads of one key the first kept wins and the second is zeroed as it arrives
 *   (replacing the kept one would zero a key a sign in flight holds);
 * - the signing thread copies the key as a sign is queued (SigningThread.sign), so an eviction while the
 *   sign waits never zeroes the key it signs with;
 * - `destroy` drops the key before its source destroys it, so no unwrapped copy outlives the key.
 */
export class LocalSigningKeyStore<S extends KeySource> implements KeyStore {
  /** The unwrapped keys kept, oldest use first (a Map keeps insertion order). */
  private readonly keys = new Map<string, { key: Buffer; expiresAt: number }>();
  /** Started by the first sign (a CLI command never needs it); null where not wanted. */
  private thread: SigningThread | null | undefined;
  /** Present when the source can import (KeyStore.importKey is optional: without it an import is refused naming the store). */
  readonly importKey?: (privateKey: Uint8Array, owner?: KeyOwner) => Promise<CreatedKey>;
  /** Present when the source can derive from an HD seed (KeyStore.deriveKey). */
  readonly deriveKey?: (index: number, owner: KeyOwner) => Promise<DerivedKey>;
  /** Present when the source keeps HD seeds (KeyStore.exportSeed). */
  readonly exportSeed?: (vaultId: string) => Promise<Buffer | null>;

  constructor(
    readonly name: string,
    protected readonly source: S,
    private readonly options: LocalSigningOptions,
  ) {
    if (source.import) {
      this.importKey = async (privateKey, owner) => {
        if (!isPrivateKey(privateKey)) throw invalidArgument(`key store ${name}: the key to import is not a secp256k1 private key`);
        return source.import!(privateKey, owner);
      };
    }
    if (source.derive) this.deriveKey = (index, owner) => source.derive!(index, owner);
    if (source.seed) this.exportSeed = (vaultId) => source.seed!(vaultId);
  }

  /**
   * The key unwrapped by its source, checked by it to be the key the reference names (KeySource.load), in
   * a buffer of the caller's: never the kept copy, so the caller's zeroing cannot reach a key a sign uses.
   */
  exportKey(keyRef: string): Promise<Buffer> {
    return this.source.load(keyRef);
  }

  create(owner?: KeyOwner): Promise<CreatedKey> {
    return this.source.create(owner);
  }

  async sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    const held = this.held(keyRef);
    const { key, kept } = held ? { key: held, kept: true } : this.keep(keyRef, await this.source.load(keyRef));
    // Unset: on where this process has more than one core of CPU time, its cgroup's quota counted (cpu-budget.ts).
    this.thread ??= (this.options.signingThread ?? signingThreadPays(cpuBudget())) ? new SigningThread() : null;
    try {
      return this.thread ? await this.thread.sign(key, digest) : signDigest(key, digest);
    } finally {
      if (!kept) key.fill(0);
    }
  }

  async destroy(keyRef: string): Promise<void> {
    this.drop(keyRef);
    await this.source.destroy(keyRef);
  }

  ping(): Promise<void> {
    return this.source.ping();
  }

  /** Zeroes every unwrapped key kept in memory (the seal: nothing unwrapped outlives the master key). */
  forgetKeys(): void {
    for (const ref of [...this.keys.keys()]) this.drop(ref);
  }

  /** Zeroes every unwrapped key and ends the signing thread (signs still on it are signed here). */
  async close(): Promise<void> {
    this.forgetKeys();
    const thread = this.thread;
    this.thread = undefined;
    await thread?.close();
  }

  /** The kept key of `ref`, unless expired (then zeroed); a hit becomes the most recently used. */
  private held(ref: string, now = Date.now()): Buffer | undefined {
    const entry = this.keys.get(ref);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.drop(ref);
      return undefined;
    }
    this.keys.delete(ref);
    this.keys.set(ref, entry);
    return entry.key;
  }

  /**
   * Hands `key`, just unwrapped for `ref`, to the store, and returns the key to sign with and who zeroes
   * it (`kept`: the store, when evicted; else the caller, once signed). See the rules above.
   */
  private keep(ref: string, key: Buffer, now = Date.now()): { key: Buffer; kept: boolean } {
    if (this.options.cacheSize <= 0 || this.options.cacheTtlMs <= 0) return { key, kept: false };
    const already = this.held(ref, now);
    if (already && already !== key) {
      key.fill(0);
      return { key: already, kept: true };
    }
    this.keys.set(ref, { key, expiresAt: now + this.options.cacheTtlMs });
    while (this.keys.size > this.options.cacheSize) this.drop(this.keys.keys().next().value as string);
    return { key, kept: true };
  }

  /** Zeroes and forgets the kept key of `ref`, if any. */
  private drop(ref: string): void {
    const entry = this.keys.get(ref);
    if (!entry) return;
    entry.key.fill(0);
    this.keys.delete(ref);
  }
}
