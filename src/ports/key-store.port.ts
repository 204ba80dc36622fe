/** A key created in a store: the private key never crosses this port. */
export interface CreatedKey {
  /** The store's reference to the key; recorded on the wallet and handed back to sign/destroy. */
  readonly keyRef: string;
  /** Uncompressed secp256k1 public key, 65 bytes starting with 0x04. */
  readonly publicKey: Uint8Array;
}

/** A recoverable secp256k1 signature with s in the lower half of the curve order. */
export interface RecoverableSignature {
  /** 32 bytes. */
  readonly r: Uint8Array;
  /** 32 bytes, low-s. */
  readonly s: Uint8Array;
  /** 27 or 28. */
  readonly v: 27 | 28;
}

/** The wallet a key is created for; stores that can label their keys (KMS tags) record it. */
export interface KeyOwner {
  readonly accountId: string;
  readonly vaultId: string;
  readonly walletId: string;
}

/**
 * Custody of secp256k1 private keys. Errors from the backend are raised as DomainError
 * KEYSTORE_UNAVAILABLE naming the store.
 */
export interface KeyStore {
  /** Stable name of the store, recorded on every wallet it holds (`local`, `pkcs11`, `aws-kms`, `vault-transit`). */
  readonly name: string;
  /**
   * Generates a key and stores it durably before returning: a returned key survives a crash. `owner`
   * names the wallet the key is for, so an operator looking at the store can tell whose key it is.
   */
  create(owner?: KeyOwner): Promise<CreatedKey>;
  /** Signs a 32-byte digest as is (no hashing, no prefix). */
  sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature>;
  /** Destroys the key; destroying a key that is already gone succeeds. */
  destroy(keyRef: string): Promise<void>;
  /** Resolves when the store answers; rejects with KEYSTORE_UNAVAILABLE otherwise. */
  ping(): Promise<void>;
  /**
   * Keys created before `createdBefore`; used to find keys no wallet names (orphans of a crash between
   * key creation and record commit). Stores that cannot list their keys return an empty list.
   */
  listKeyRefs(createdBefore: Date): Promise<string[]>;
  /** Releases connections, sessions and cached key material. */
  close(): Promise<void>;
  /**
   * Only for stores that keep a wrapped key in the reference (vault-transit): re-wraps it under the
   * store's latest wrapping key version and returns the new reference for the same key.
   */
  rewrap?(keyRef: string): Promise<string>;
}

/** Every configured key store, and the one new wallets go to. */
export interface KeyStoreRegistry {
  /** The store that new wallets are created in. */
  readonly default: KeyStore;
  /** The store of a given name; throws KEYSTORE_UNAVAILABLE when it is not configured. */
  get(name: string): KeyStore;
  /** All configured stores. */
  all(): readonly KeyStore[];
}
