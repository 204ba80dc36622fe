import { availableParallelism } from 'node:os';
import type { RecoverableSignature } from '../../../src/ports/key-store.port.js';
import { KeyCache } from './key-cache.js';
import { signDigest } from './secp256k1.js';
import { SigningThread } from './signing-thread.js';

/**
 * Where the private keys of a locally signing store come from (the key files of `local`, Transit's
 * decrypt for `vault-transit`). Custody only: the source unwraps, the LocalSigner signs.
 */
export interface KeySource {
  /**
   * The private key `keyRef` names, unwrapped into a fresh buffer that the caller then owns (and zeroes).
   * The source checks that it is that key (the address the reference names): a wrapped key moved to
   * another reference is refused, never signed with. Rejects with KEYSTORE_UNAVAILABLE naming the store.
   */
  load(keyRef: string): Promise<Buffer>;
}

export interface LocalSignerOptions {
  /** Unwrapped keys kept in memory at most (0: none, each sign loads its key). */
  readonly cacheSize: number;
  /** How long an unwrapped key stays in memory (0: none). */
  readonly cacheTtlMs: number;
  /** Sign on a thread of its own (SigningThread). Default: where the machine has more than one CPU. */
  readonly signingThread?: boolean;
}

/**
 * Signs with keys that a KeySource unwraps into this process, as web3signer's local signers do: one
 * place owns the unwrapped keys (the KeyCache), the signing thread, and the rules of who zeroes which
 * buffer. Stores whose key never leaves its backend (PKCS#11, AWS KMS) sign there instead.
 *
 * The rules: a key the cache keeps is the cache's, zeroed when evicted or expired; a key it does not keep
 * (size or TTL 0) is this sign's only, zeroed once signed; of two concurrent loads of one key the first
 * kept wins and the second is zeroed (KeyCache.keep). The signing thread copies the key as a sign is
 * queued (SigningThread.sign), so an eviction while the sign waits never zeroes the key it signs with.
 */
export class LocalSigner {
  private readonly cache: KeyCache;
  /** Started by the first sign (a CLI command never needs it); null where not wanted. */
  private thread: SigningThread | null | undefined;

  constructor(
    private readonly source: KeySource,
    private readonly options: LocalSignerOptions,
  ) {
    this.cache = new KeyCache(options.cacheSize, options.cacheTtlMs);
  }

  async sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    const cached = this.cache.get(keyRef);
    const { key, kept } = cached ? { key: cached, kept: true } : this.cache.keep(keyRef, await this.source.load(keyRef));
    this.thread ??= (this.options.signingThread ?? availableParallelism() > 1) ? new SigningThread() : null;
    try {
      return this.thread ? await this.thread.sign(key, digest) : signDigest(key, digest);
    } finally {
      if (!kept) key.fill(0);
    }
  }

  /** Drops (and zeroes) the unwrapped key of `keyRef`, if held: its store is destroying it. */
  forget(keyRef: string): void {
    this.cache.delete(keyRef);
  }

  /** Zeroes every unwrapped key and ends the signing thread (signs still on it are signed here). */
  async close(): Promise<void> {
    this.cache.clear();
    const thread = this.thread;
    this.thread = undefined;
    await thread?.close();
  }
}
