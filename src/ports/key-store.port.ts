/** A key created in a store: the private key never crosses this port. */
export interface CreatedKey {
  /** The store's reference to the key; recorded on the wallet and handed back to sign/destroy. */
  readonly keyRef: string;
  /** Uncompressed secp256k1 public key, 65 bytes starting with 0x04. */
  readonly publicKey: Uint8Array;
}

/** A key derived from its vault's HD seed: where, so the seed alone restores it. */
export interface DerivedKey extends CreatedKey {
  /** The BIP-32 path, `m/44'/60'/0'/0/<index>`. */
  readonly derivationPath: string;
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

/** The wallet a key is created for; stores that can label their keys (file header, PKCS#11 label, KMS tags) record it. */
export interface KeyOwner {
  readonly accountId: string;
  readonly vaultId: string;
  readonly walletId: string;
  /**
   * The deployment (one database) creating the key, given by the composition (createVault). A store that
   * lists its keys records it on the key, so the orphan sweep of one deployment can tell its own keys
   * from another's sharing the directory or token. Absent: the key carries no deployment and no
   * sweep ever considers it.
   */
  readonly deploymentId?: string;
}

/** A key of one deployment, as a store lists it for the orphan sweep. */
export interface StoredKey {
  readonly keyRef: string;
  /** Lower-case hex address of the key (what a wallet restored from it is called). */
  readonly address: string;
  /** The vault the key was created for, where the store records it; null otherwise. */
  readonly vaultId: string | null;
}

/**
 * Custody of secp256k1 private keys. Errors from the backend are raised as DomainError
 * KEYSTORE_UNAVAILABLE naming the store.
 */
export interface KeyStore {
  /** Stable name of the store, recorded on every wallet it holds (`local`, `pkcs11`, `aws-kms`, `vault-transit`). */
  readonly name: string;
  /**
   * The refusal every sign would get from this store right now (a sealed vault's VAULT_SEALED), or null;
   * asked before the policy gate, so a request no key could sign is neither recorded as a policy decision
   * nor counted against the policy's limits. Optional: a store without it is asked only when it signs.
   */
  refusesEverySign?(): Error | null;
  /**
   * Generates a key and stores it durably before returning: a returned key survives a crash. `owner`
   * names the wallet the key is for, so an operator looking at the store can tell whose key it is.
   */
  create(owner?: KeyOwner): Promise<CreatedKey>;
  /**
   * Stores a private key the operator brings (`wallet-vault keys import`) durably before returning, as
   * `create` does. The store copies what it needs; the caller zeroes `privateKey` afterwards. A store
   * that cannot import lacks this method: the import is refused naming the store.
   */
  importKey?(privateKey: Uint8Array, owner?: KeyOwner): Promise<CreatedKey>;
  /**
   * Derives the key at `index` of the vault's HD seed (`owner.vaultId`; the seed is generated in the store
   * at the vault's first derived wallet, wrapped as its keys are) and keeps it durably, as `create` does.
   * The caller reserves `index` durably first and never reuses it. A store that cannot derive (its keys
   * never leave a device or a service) lacks this method: a derived wallet is refused naming the store.
   */
  deriveKey?(index: number, owner: KeyOwner): Promise<DerivedKey>;
  /**
   * The private key `keyRef` names, in a fresh buffer the caller owns and zeroes: only for a key export,
   * which encrypts it to a recipient at once (docs/keystores.md#key-export). A store whose keys never leave
   * it (a KMS, an HSM) lacks this method: the export is refused naming the store.
   */
  exportKey?(keyRef: string): Promise<Buffer>;
  /**
   * The vault's HD seed (its 32-byte BIP-39 entropy) in a fresh buffer the caller zeroes, for an export as
   * exportKey; null when the vault has none (no derived wallet yet). A store that cannot derive lacks it.
   */
  exportSeed?(vaultId: string): Promise<Buffer | null>;
  /** Signs a 32-byte digest as is (no hashing, no prefix). */
  sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature>;
  /** Destroys the key; destroying a key that is already gone succeeds. */
  destroy(keyRef: string): Promise<void>;
  /** Resolves when the store answers; rejects with KEYSTORE_UNAVAILABLE otherwise. */
  ping(): Promise<void>;
  /**
   * The keys that carry `deploymentId` (KeyOwner.deploymentId at their creation) and were created
   * before `createdBefore`; keys of another deployment, or carrying none, are never listed. The orphan
   * sweep quarantines (never destroys) those no wallet names; a store without this method is never swept.
   */
  listKeys?(query: { readonly deploymentId: string; readonly createdBefore: Date }): Promise<StoredKey[]>;
  /**
   * Key references created before `createdBefore`. Superseded by listKeys and no longer called by the
   * vault: stores written against earlier releases may keep it, new ones need not have it.
   */
  listKeyRefs?(createdBefore: Date): Promise<string[]>;
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
